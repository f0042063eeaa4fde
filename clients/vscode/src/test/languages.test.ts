import assert from 'node:assert/strict';
import { test } from 'node:test';
import { languageEnabled, languageMap, toggleLanguage } from '../languages';

test('"*" is the default for languages not listed', () => {
  assert.equal(languageEnabled({ '*': true, markdown: false }, 'markdown'), false);
  assert.equal(languageEnabled({ '*': true, markdown: false }, 'python'), true);
  assert.equal(languageEnabled({ '*': false, python: true }, 'go'), false);
  assert.equal(languageEnabled(undefined, 'go'), true);
});

test('toggling one language keeps the others and adds "*"', () => {
  assert.deepEqual(toggleLanguage({ markdown: false }, 'python'),
    { languages: { markdown: false, '*': true, python: false }, enabled: false });
  assert.deepEqual(toggleLanguage({ '*': false }, 'rust'),
    { languages: { '*': false, rust: true }, enabled: true });
});

test('malformed values are dropped, not trusted', () => {
  assert.deepEqual(languageMap({ python: 'no', go: false, '': true }), { go: false, '*': true });
  assert.deepEqual(languageMap([true]), { '*': true });
});
