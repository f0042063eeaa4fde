import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCost, formatLatency, formatStatus, parseStatus, reasonFor } from '../status';

test('parseStatus keeps the known fields of a valid notification', () => {
  assert.deepEqual(
    parseStatus({ state: 'ready', message: 'ok', lastLatencyMs: 312, sessionCostUsd: 0.0021, extra: 1 }),
    { state: 'ready', message: 'ok', lastLatencyMs: 312, sessionCostUsd: 0.0021 },
  );
});

test('parseStatus turns malformed payloads into an error state instead of throwing', () => {
  assert.equal(parseStatus(null).state, 'error');
  assert.equal(parseStatus('ready').state, 'error');
  const unknown = parseStatus({ state: 'exploded' });
  assert.equal(unknown.state, 'error');
  assert.match(unknown.message ?? '', /exploded/);
});

test('parseStatus drops numbers that are not finite and non-negative', () => {
  const parsed = parseStatus({ state: 'ready', lastLatencyMs: -5, sessionCostUsd: 'a lot' });
  assert.deepEqual(parsed, { state: 'ready' });
  assert.deepEqual(parseStatus({ state: 'thinking', lastLatencyMs: Number.NaN }), { state: 'thinking' });
});

test('latency and cost are readable at every scale', () => {
  assert.equal(formatLatency(312.4), '312 ms');
  assert.equal(formatLatency(1234), '1.2 s');
  assert.equal(formatCost(0), '$0');
  assert.equal(formatCost(0.00213), '$0.0021');
  assert.equal(formatCost(1.5), '$1.50');
});

test('ready shows the last latency; tooltip lists cost and message', () => {
  const view = formatStatus({ state: 'ready', message: 'deepseek-flash', lastLatencyMs: 250, sessionCostUsd: 0.01 });
  assert.equal(view.text, '$(zap) flashls 250 ms');
  assert.equal(view.isError, false);
  assert.match(view.tooltip, /^flashls: ready/);
  assert.match(view.tooltip, /deepseek-flash/);
  assert.match(view.tooltip, /This session: \$0\.01/);
});

test('each state has its own icon and only error is flagged', () => {
  const texts = new Set<string>();
  for (const state of ['ready', 'thinking', 'error', 'disabled'] as const) {
    const view = formatStatus({ state });
    texts.add(view.text);
    assert.equal(view.isError, state === 'error');
  }
  assert.equal(texts.size, 4);
  assert.match(formatStatus({ state: 'thinking' }).text, /spin/);
});

test('completions switched off locally show as disabled even while the server is ready', () => {
  const view = formatStatus({ state: 'ready', lastLatencyMs: 100 }, false);
  assert.equal(view.text, '$(circle-slash) flashls');
  assert.match(view.tooltip, /completions off/);
});

test('client-side states before a server exists', () => {
  assert.match(formatStatus({ state: 'starting' }).tooltip, /starting/);
  const stopped = formatStatus({ state: 'stopped', message: 'not found' });
  assert.match(stopped.tooltip, /server stopped\nnot found/);
});

test('a reason is kept, shown in the tooltip for its own document only', () => {
  const parsed = parseStatus({
    state: 'disabled', message: 'off for markdown',
    reason: { code: 'language_disabled', message: 'off for markdown (flashls.completion.languages)', uri: 'file:///a.md' },
  });
  assert.deepEqual(parsed.reason, {
    code: 'language_disabled', message: 'off for markdown (flashls.completion.languages)', uri: 'file:///a.md',
  });
  const here = formatStatus(parsed, true, 'file:///a.md');
  assert.match(here.tooltip, /^flashls: off for this language/);
  assert.match(here.tooltip, /Nothing is offered here: off for markdown/);
  assert.equal(here.text, '$(circle-slash) flashls');
  const elsewhere = formatStatus(parsed, true, 'file:///b.py');
  assert.doesNotMatch(elsewhere.tooltip, /Nothing is offered/);
  assert.equal(reasonFor(parsed, 'file:///b.py'), undefined);
});

test('a reason without a uri holds everywhere; malformed reasons are dropped', () => {
  const offline = parseStatus({ state: 'error', message: 'cannot reach', reason: { code: 'offline', message: 'cannot reach x' } });
  const view = formatStatus(offline, true, 'file:///any.py');
  assert.match(view.tooltip, /^flashls: offline/);
  assert.equal(view.isError, true);
  assert.equal(parseStatus({ state: 'ready', reason: { code: 7 } }).reason, undefined);
  assert.equal(parseStatus({ state: 'ready', reason: 'x' }).reason, undefined);
});
