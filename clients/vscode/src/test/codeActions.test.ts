import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CodeActionUi, codeActionMiddleware, interceptFor, needsInstruction, withInstruction } from '../codeActions';

const uri = 'file:///a.py';
const range = { start: { line: 1, character: 0 }, end: { line: 3, character: 4 } };

test('the Rewrite… action (no instruction, no intent) needs an instruction', () => {
  assert.equal(needsInstruction([{ uri, range }]), true);
  assert.equal(needsInstruction([{ uri, range, instruction: '' }]), true);
  assert.equal(needsInstruction([{ uri, range, instruction: null }]), true);
});

test('rewrites that carry an instruction or an intent go out as they are', () => {
  assert.equal(needsInstruction([{ uri, range, instruction: 'add types' }]), false);
  assert.equal(needsInstruction([{ uri, range, version: 3, intent: 'simplify', diagnostics: [] }]), false);
  assert.equal(needsInstruction([{ uri, range, intent: 'fix' }]), false);
});

test('malformed arguments are left to the server to refuse', () => {
  for (const args of [[], undefined, null, ['x'], [[{ uri }]], [null], 'nope']) {
    assert.equal(needsInstruction(args), false, JSON.stringify(args));
  }
});

test('interception per command', () => {
  assert.deepEqual(interceptFor('flashls.rewrite', [{ uri, range }]), { kind: 'askInstruction' });
  assert.deepEqual(interceptFor('flashls.rewrite', [{ uri, range, intent: 'docstring' }]), { kind: 'passThrough' });
  assert.deepEqual(interceptFor('flashls.rewrite', [{ uri, range, instruction: 'x' }]), { kind: 'passThrough' });
  assert.deepEqual(interceptFor('flashls.explain', [{ uri, range }]), { kind: 'showExplanation' });
  for (const other of ['flashls.insertExplanation', 'flashls.accepted', 'flashls.showUsage', 'other.rewrite']) {
    assert.deepEqual(interceptFor(other, [{ uri, range }]), { kind: 'passThrough' }, other);
  }
});

test('the instruction is added to the first argument without touching the original', () => {
  const args = [{ uri, range, version: 7 }, 'extra'];
  const out = withInstruction(args, 'use a loop');
  assert.deepEqual(out, [{ uri, range, version: 7, instruction: 'use a loop' }, 'extra']);
  assert.deepEqual(args[0], { uri, range, version: 7 });
});

/** A scripted editor: the input box answers `answer`; everything shown is recorded. */
function fakeUi(answer: string | undefined) {
  const seen = { asked: 0, progress: [] as string[], shown: [] as string[], rewritten: [] as unknown[], failed: [] as string[] };
  const ui: CodeActionUi = {
    askInstruction: async () => { seen.asked += 1; return answer; },
    progress: async (title, work) => { seen.progress.push(title); return work(); },
    showExplanation: async (markdown) => { seen.shown.push(markdown); },
    rewritten: (result) => { seen.rewritten.push(result); },
    failed: (command) => { seen.failed.push(command); },
  };
  return { ui, seen };
}

function recordingNext(result: unknown) {
  const calls: [string, unknown[]][] = [];
  const next = async (command: string, args: unknown[]) => { calls.push([command, args]); return result; };
  return { next, calls };
}

test('Rewrite…: asks, then sends the instruction with the original arguments', async () => {
  const { ui, seen } = fakeUi('use a loop');
  const { next, calls } = recordingNext({ applied: true, model: 'deepseek-flash' });
  const result = await codeActionMiddleware(ui)('flashls.rewrite', [{ uri, range }], next);
  assert.equal(seen.asked, 1);
  assert.deepEqual(calls, [['flashls.rewrite', [{ uri, range, instruction: 'use a loop' }]]]);
  assert.deepEqual(result, { applied: true, model: 'deepseek-flash' });
  assert.deepEqual(seen.rewritten, [result]);
  assert.deepEqual(seen.shown, []);
});

test('Rewrite…: cancelling the input box sends nothing', async () => {
  const { ui, seen } = fakeUi(undefined);
  const { next, calls } = recordingNext({ applied: true });
  assert.equal(await codeActionMiddleware(ui)('flashls.rewrite', [{ uri, range }], next), undefined);
  assert.equal(seen.asked, 1);
  assert.deepEqual(calls, []);
  assert.deepEqual(seen.rewritten, []);
});

test('intent rewrites and other commands never ask', async () => {
  const { ui, seen } = fakeUi('ignored');
  const { next, calls } = recordingNext('ok');
  const middleware = codeActionMiddleware(ui);
  const simplify = [{ uri, range, intent: 'simplify' }];
  assert.equal(await middleware('flashls.rewrite', simplify, next), 'ok');
  assert.equal(await middleware('flashls.insertExplanation', [{ uri, range }], next), 'ok');
  assert.equal(seen.asked, 0);
  assert.deepEqual(calls, [['flashls.rewrite', simplify], ['flashls.insertExplanation', [{ uri, range }]]]);
});

test('Explain: the returned Markdown is shown and returned', async () => {
  const { ui, seen } = fakeUi(undefined);
  const answer = { markdown: 'Adds **a** and b.', model: 'deepseek-flash' };
  const { next, calls } = recordingNext(answer);
  assert.deepEqual(await codeActionMiddleware(ui)('flashls.explain', [{ uri, range }], next), answer);
  assert.deepEqual(calls, [['flashls.explain', [{ uri, range }]]]);
  assert.deepEqual(seen.shown, ['Adds **a** and b.']);
  assert.deepEqual(seen.progress, ['explaining']);
});

test('a failed request shows nothing more and resolves to undefined', async () => {
  const { ui, seen } = fakeUi('x');
  const failing = async () => { throw new Error('Rewrite failed'); };
  const middleware = codeActionMiddleware(ui);
  assert.equal(await middleware('flashls.explain', [{ uri, range }], failing), undefined);
  assert.equal(await middleware('flashls.rewrite', [{ uri, range }], failing), undefined);
  assert.deepEqual(seen.failed, ['flashls.explain', 'flashls.rewrite']);
  assert.deepEqual(seen.shown, []);
  // An explain the client swallowed (undefined) opens no empty panel.
  assert.equal(await middleware('flashls.explain', [{ uri, range }], async () => undefined), undefined);
  assert.deepEqual(seen.shown, []);
});
