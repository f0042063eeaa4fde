import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Cursor, insertionLabel, NextEdit, NextEditController, NextEditHost, parseNextEdits } from '../nextEdit';

const uri = 'file:///geometry.py';
const command = { title: 'accepted', command: 'flashls.nextEdit.accepted', arguments: ['nes-1'] };

function edit(line: number, start: number, end: number, text: string, version = 6): NextEdit {
  return { text, range: { start: { line, character: start }, end: { line, character: end } },
    textDocument: { uri, version }, command };
}

/** A scripted editor: a document at a version, timers run by hand, everything recorded. */
function scripted(answer: () => unknown = () => ({ edits: [edit(4, 12, 17, 'size'), edit(5, 21, 26, 'size')] })) {
  const seen = {
    requests: [] as Cursor[], shown: [] as NextEdit[][], cleared: 0, applied: [] as NextEdit[][],
    executed: [] as [string, unknown[]][], notified: [] as [string, unknown][],
    revealed: [] as unknown[], visible: [] as boolean[], timers: [] as { fn: () => void; ms: number; live: boolean }[],
  };
  const state = { cursor: { uri, version: 6, position: { line: 3, character: 13 } } as Cursor | undefined, enabled: true };
  const host: NextEditHost = {
    enabled: () => state.enabled,
    debounceMs: () => 500,
    cursor: () => state.cursor && { ...state.cursor },
    request: async (cursor) => { seen.requests.push(cursor); return answer(); },
    show: (edits) => { seen.shown.push(edits); },
    clear: () => { seen.cleared += 1; },
    apply: async (edits) => { seen.applied.push(edits); return true; },
    execute: (c, args) => { seen.executed.push([c, args]); },
    notify: (method, params) => { seen.notified.push([method, params]); },
    reveal: (_u, position) => { seen.revealed.push(position); },
    setVisible: (v) => { seen.visible.push(v); },
    later: (fn, ms) => {
      const timer = { fn, ms, live: true };
      seen.timers.push(timer);
      return () => { timer.live = false; };
    },
  };
  const runTimers = async () => {
    for (const t of seen.timers.splice(0)) if (t.live) t.fn();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { host, seen, state, runTimers };
}

test('a result is parsed defensively', () => {
  assert.deepEqual(parseNextEdits(undefined), []);
  assert.deepEqual(parseNextEdits({ edits: 'x' }), []);
  assert.deepEqual(parseNextEdits({ edits: [{ text: 'a' }, edit(1, 0, 1, 'b')] }), [edit(1, 0, 1, 'b')]);
  assert.equal(insertionLabel('a\nb\r\nc'), 'a ⏎ b ⏎ c');
});

test('a pause after a change asks once, shows the edit and tells the server it was shown', async () => {
  const { host, seen, runTimers } = scripted();
  const nes = new NextEditController(host);
  nes.changed();
  nes.changed(); // still typing: the first timer is cancelled
  assert.equal(seen.timers.filter((t) => t.live).length, 1);
  assert.equal(seen.timers[1].ms, 500);
  assert.deepEqual(seen.requests, []); // nothing is asked while the user types
  await runTimers();
  assert.equal(seen.requests.length, 1);
  assert.deepEqual(seen.requests[0], { uri, version: 6, position: { line: 3, character: 13 } });
  assert.equal(nes.visible, true);
  assert.equal(seen.shown.length, 1);
  assert.deepEqual(seen.visible.at(-1), true);
  assert.deepEqual(seen.notified, [['textDocument/didShowInlineEdit', { item: { command } }]]);
});

test('jump moves to the edit; accept applies every part and runs its command', async () => {
  const { host, seen, runTimers } = scripted();
  const nes = new NextEditController(host);
  nes.changed();
  await runTimers();
  assert.equal(nes.jump(), true);
  assert.deepEqual(seen.revealed, [{ line: 4, character: 12 }]);
  assert.equal(await nes.accept(), true);
  assert.equal(seen.applied.length, 1);
  assert.equal(seen.applied[0].length, 2);
  assert.deepEqual(seen.executed, [['flashls.nextEdit.accepted', ['nes-1']]]);
  assert.equal(nes.visible, false);
  assert.deepEqual(seen.visible.at(-1), false);
  assert.equal(await nes.accept(), false); // nothing left to accept
});

test('escape or typing dismisses and reports a rejection; nothing is applied', async () => {
  const { host, seen, runTimers } = scripted();
  const nes = new NextEditController(host);
  nes.changed();
  await runTimers();
  assert.equal(nes.dismiss(), true);
  assert.deepEqual(seen.executed, [['flashls.nextEdit.rejected', ['nes-1']]]);
  assert.equal(nes.visible, false);
  nes.changed();
  await runTimers();
  assert.equal(nes.visible, true);
  nes.changed(); // the user typed elsewhere
  assert.equal(nes.visible, false);
  assert.deepEqual(seen.applied, []);
  assert.equal(seen.executed.filter(([c]) => c === 'flashls.nextEdit.rejected').length, 2);
});

test('an answer for an older version, or after the user moved on, is not shown', async () => {
  const { host, seen, state, runTimers } = scripted(() => ({ edits: [edit(4, 12, 17, 'size', 5)] }));
  const nes = new NextEditController(host);
  nes.changed();
  await runTimers();
  assert.equal(nes.visible, false);
  const later = scripted();
  const nes2 = new NextEditController(later.host);
  const pending = nes2.trigger();
  later.state.cursor = { uri, version: 7, position: { line: 3, character: 14 } }; // typed meanwhile
  assert.equal(await pending, false);
  assert.equal(nes2.visible, false);
  assert.deepEqual(seen.shown, []);
  void state;
});

test('an edit accepted on a changed document is dismissed instead', async () => {
  const { host, seen, state, runTimers } = scripted();
  const nes = new NextEditController(host);
  nes.changed();
  await runTimers();
  state.cursor = { uri, version: 7, position: { line: 0, character: 0 } };
  assert.equal(await nes.accept(), false);
  assert.deepEqual(seen.applied, []);
});

test('disabled: no timer, no request; empty answers show nothing', async () => {
  const { host, seen, state, runTimers } = scripted(() => ({ edits: [] }));
  state.enabled = false;
  const nes = new NextEditController(host);
  nes.changed();
  assert.deepEqual(seen.timers, []);
  state.enabled = true;
  nes.changed();
  await runTimers();
  assert.equal(seen.requests.length, 1);
  assert.equal(nes.visible, false);
  assert.deepEqual(seen.notified, []);
});

test('a failed request shows nothing and throws nothing', async () => {
  const { host, seen } = scripted(() => { throw new Error('429'); });
  const nes = new NextEditController(host);
  assert.equal(await nes.trigger(), false);
  assert.deepEqual(seen.shown, []);
});
