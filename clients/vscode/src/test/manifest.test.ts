import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

test('the manifest is installable: engine, entry point, license, repository', () => {
  assert.equal(manifest.engines.vscode, '^1.91.0');
  assert.equal(manifest.main, './dist/extension.js');
  assert.equal(manifest.license, 'MIT');
  assert.ok(manifest.repository?.url);
  assert.ok(readFileSync(join(root, 'LICENSE'), 'utf8').includes('MIT'));
});

test('vscode-languageclient is at least 10.0.1 (built-in inline completion)', () => {
  const spec: string = manifest.dependencies['vscode-languageclient'];
  const [major, minor, patch] = spec.replace(/^[\^~>=]+/, '').split('.').map(Number);
  assert.ok(major > 10 || (major === 10 && (minor > 0 || patch >= 1)), spec);
});

test('every flashls setting has a type, a description and a default', () => {
  const props = manifest.contributes.configuration.properties as Record<string, Record<string, unknown>>;
  const keys = Object.keys(props);
  assert.ok(keys.length > 10, 'settings were generated');
  for (const key of keys) {
    assert.match(key, /^flashls\./);
    assert.ok(props[key].type, `${key} has a type`);
    assert.ok(props[key].description || props[key].markdownDescription, `${key} has a description`);
    assert.ok('default' in props[key], `${key} has a default`);
  }
  assert.ok(props['flashls.serverPath'], 'client-only serverPath is declared');
  assert.equal(props['flashls.serverPath'].scope, 'machine-overridable');
});
