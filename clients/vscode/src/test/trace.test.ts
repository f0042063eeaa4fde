import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSink, LOG_LEVEL_INFO, LOG_LEVEL_TRACE, SettingTraceChannel, traceSetting } from '../trace';

function sink(): LineSink & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    appendLine: (line) => lines.push(line), append: (text) => lines.push(text), replace: () => {},
    clear: () => lines.splice(0), show: () => {}, hide: () => {}, dispose: () => {},
  };
}

test('the trace channel log level follows flashls.trace.server, so the client traces', () => {
  let setting: unknown = 'messages';
  const out = sink();
  const channel = new SettingTraceChannel(() => out, () => setting);
  assert.equal(channel.logLevel, LOG_LEVEL_TRACE);
  channel.trace("Sending request 'initialize - (0)'.");
  assert.deepEqual(out.lines, ["Sending request 'initialize - (0)'."]);

  const changes: number[] = [];
  channel.onDidChangeLogLevel((level) => changes.push(level));
  setting = 'off';
  channel.settingChanged();
  assert.equal(channel.logLevel, LOG_LEVEL_INFO);
  channel.trace('dropped');
  channel.settingChanged(); // no change, no event
  setting = 'verbose';
  channel.settingChanged();
  assert.deepEqual(changes, [LOG_LEVEL_INFO, LOG_LEVEL_TRACE]);
  assert.deepEqual(out.lines, ["Sending request 'initialize - (0)'."]);
});

test('off by default: no trace channel is even created', () => {
  let made = 0;
  const channel = new SettingTraceChannel(() => { made += 1; return sink(); }, () => undefined);
  assert.equal(channel.logLevel, LOG_LEVEL_INFO);
  channel.trace('x');
  assert.equal(made, 0);
});

test('unknown setting values are off', () => {
  assert.equal(traceSetting('loud'), 'off');
  assert.equal(traceSetting('verbose'), 'verbose');
});
