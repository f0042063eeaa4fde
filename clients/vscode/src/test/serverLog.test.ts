import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineLevel, stderrLevel, stderrRouter } from '../serverLog';

test('stderr lines keep the level the server logged them at', () => {
  assert.equal(stderrLevel('2026-12-01 08:00:00,123 INFO flashls.lsp.session: settings updated', undefined), 'info');
  assert.equal(stderrLevel('2026-12-01 08:00:00,123 DEBUG flashls: x', undefined), 'debug');
  assert.equal(stderrLevel('2026-12-01 08:00:00,123 WARNING pygls: y', undefined), 'warn');
  assert.equal(stderrLevel('2026-12-01 08:00:00,123 CRITICAL flashls: z', undefined), 'error');
});

test('a line without the prefix continues the record before it; first of all is an error', () => {
  assert.equal(stderrLevel('Traceback (most recent call last):', undefined), 'error');
  assert.equal(stderrLevel('  File "x.py", line 1', 'warn'), 'warn');
});

test('the router writes each line once, at its level, without the timestamp', () => {
  const seen: [LineLevel, string][] = [];
  const log = Object.fromEntries((['trace', 'debug', 'info', 'warn', 'error'] as LineLevel[])
    .map((level) => [level, (line: string) => { seen.push([level, line]); }])) as unknown as Record<LineLevel, (l: string) => void>;
  const route = stderrRouter(log);
  route('2026-12-01 08:00:00,123 INFO flashls: started');
  route('2026-12-01 08:00:01,000 ERROR flashls: boom');
  route('  detail line');
  assert.deepEqual(seen, [
    ['info', 'INFO flashls: started'],
    ['error', 'ERROR flashls: boom'],
    ['error', '  detail line'],
  ]);
});
