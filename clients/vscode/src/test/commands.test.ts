import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  CLIENT_COMMANDS, explainParams, rewriteOutcome, fence, formatContext, markdownOf, normalizeInstruction, rewriteParams,
  SERVER_COMMANDS, serverSettings, showContextParams, showUsageParams, toggleTarget, validateInstruction,
} from '../commands';
import { escapeHtml, markdownPage } from '../html';

const range = { start: { line: 1, character: 0 }, end: { line: 3, character: 4 } };
const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'));

test('server command arguments have the shapes the server expects', () => {
  assert.deepEqual(rewriteParams('file:///a.py', range, 'add types'),
    { command: 'flashls.rewrite', arguments: [{ uri: 'file:///a.py', range, instruction: 'add types' }] });
  assert.deepEqual(explainParams('file:///a.py', range),
    { command: 'flashls.explain', arguments: [{ uri: 'file:///a.py', range }] });
  assert.deepEqual(showContextParams('file:///a.py', { line: 2, character: 5 }),
    { command: 'flashls.showContext', arguments: [{ uri: 'file:///a.py', position: { line: 2, character: 5 } }] });
  assert.deepEqual(showUsageParams(), { command: 'flashls.showUsage', arguments: [] });
});

test('instructions are trimmed and empty ones are refused', () => {
  assert.equal(normalizeInstruction('  add types \n'), 'add types');
  assert.equal(normalizeInstruction('   '), undefined);
  assert.equal(normalizeInstruction(undefined), undefined);
  assert.equal(validateInstruction('x'), undefined);
  assert.match(validateInstruction(' ') ?? '', /Describe/);
});

test('client command ids never collide with server command ids', () => {
  // vscode-languageclient registers each server command as a VS Code command.
  const server = new Set<string>(Object.values(SERVER_COMMANDS));
  for (const id of Object.values(CLIENT_COMMANDS)) assert.ok(!server.has(id), id);
});

test('package.json contributes exactly the client commands', () => {
  const contributed = (manifest.contributes.commands as { command: string }[]).map((c) => c.command).sort();
  assert.deepEqual(contributed, Object.values(CLIENT_COMMANDS).sort());
  for (const c of manifest.contributes.commands) assert.equal(c.category, 'flashls');
});

test('a rewrite is news only when it was applied', () => {
  assert.equal(rewriteOutcome({ applied: true, model: 'deepseek-flash' }), 'rewritten by deepseek-flash');
  assert.equal(rewriteOutcome({ applied: true }), 'rewritten');
  assert.equal(rewriteOutcome({ applied: false, failureReason: 'stale' }), undefined);
  assert.equal(rewriteOutcome(null), undefined);
});

test('markdownOf reads the markdown field and explains its absence', () => {
  assert.equal(markdownOf({ markdown: '# hi', costUsd: 0 }, 'explanation'), '# hi');
  assert.match(markdownOf(null, 'explanation'), /no explanation/);
  assert.match(markdownOf({ markdown: 3 }, 'usage report'), /no usage report/);
});

test('fences are longer than any backtick run in the content', () => {
  assert.equal(fence('a', 'py'), '```py\na\n```');
  assert.equal(fence('x ```` y\n'), '`````\nx ```` y\n`````');
});

test('context: facts table, text breakdown, FIM prompt and suffix as code blocks', () => {
  const doc = formatContext({
    endpoint: 'fim', model: 'deepseek-flash', maxTokens: 64, tiers: [{ tier: 1 }],
    prompt: 'def f():\n    ```', suffix: '\n', breakdown: 'cursor window: 120 tokens',
  }, 'a.py:3:5');
  assert.match(doc, /^# flashls context at a\.py:3:5/);
  assert.match(doc, /\| model \| deepseek-flash \|/);
  assert.match(doc, /\| maxTokens \| 64 \|/);
  assert.doesNotMatch(doc, /tiers/);
  assert.match(doc, /## Breakdown\n\n```text\ncursor window: 120 tokens\n```/);
  assert.match(doc, /## Prompt \(before the cursor\)\n\n````text\ndef f\(\):\n {4}```\n````/);
  assert.match(doc, /## Suffix \(after the cursor\)/);
});

test('context: chat messages each get a section; a flat object breakdown is a table', () => {
  const doc = formatContext({
    messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'x' }],
    breakdown: { prefix: 120, suffix: 30 },
  }, 'b.ts:1:1');
  assert.match(doc, /### system\n\n```text\nbe brief\n```/);
  assert.match(doc, /### user/);
  assert.match(doc, /\| prefix \| 120 \|/);
  assert.match(formatContext({ breakdown: { parts: [{ a: 1 }] } }, 'c'), /```json\n\{\n {2}"parts"/);
  assert.match(formatContext(undefined, 'c'), /no context/);
  assert.match(formatContext([1], 'c'), /no context/);
});

test('toggle writes at the level the effective value comes from', () => {
  assert.equal(toggleTarget(undefined), 'global');
  assert.equal(toggleTarget({ defaultValue: true, globalValue: false }), 'global');
  assert.equal(toggleTarget({ defaultValue: true, workspaceValue: false }), 'workspace');
  assert.equal(toggleTarget({ workspaceValue: true, workspaceFolderValue: false }), 'workspaceFolder');
});

test('server settings: a plain copy without client-only keys', () => {
  const section = { serverPath: '/x', trace: { server: 'off' }, model: 'm', completion: { enable: false }, get: () => 1 };
  const out = serverSettings(section);
  assert.deepEqual(out, { model: 'm', completion: { enable: false } });
  (out.completion as { enable: boolean }).enable = true;
  assert.equal(section.completion.enable, false);
  assert.deepEqual(serverSettings(null), {});
  assert.deepEqual(serverSettings([1]), {});
});

test('the Markdown page escapes and runs no script', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const page = markdownPage('<p>hi</p>', 'vscode-resource:', 'T<i>');
  assert.match(page, /default-src 'none'/);
  assert.doesNotMatch(page, /script-src/);
  assert.match(page, /<title>T&lt;i&gt;<\/title>/);
  assert.match(page, /<p>hi<\/p>/);
});
