import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  commandLine, discoverServer, DiscoveryInput, executableNames, pathCandidates, Probe, scriptCandidates,
} from '../discovery';
import { hasModule, isExecutable } from '../probe';

function fakeProbe(executables: string[], modules: Record<string, string[]> = {}): Probe & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async isExecutable(file) {
      calls.push(file);
      return executables.includes(file);
    },
    async hasModule(python, module) {
      calls.push(`${python} -m ${module}`);
      return (modules[python] ?? []).includes(module);
    },
  };
}

function input(over: Partial<DiscoveryInput> = {}): DiscoveryInput {
  return { serverPath: '', pathEnv: '/usr/local/bin:/usr/bin', platform: 'linux', home: '/home/u', ...over };
}

test('the serverPath setting wins over everything else', async () => {
  const probe = fakeProbe(['/opt/flashls/bin/flashls', '/usr/bin/flashls']);
  const found = await discoverServer(input({ serverPath: '/opt/flashls/bin/flashls', pythonInterpreter: '/venv/bin/python' }), probe);
  assert.deepEqual(found, { ok: true, command: '/opt/flashls/bin/flashls', args: [], source: 'setting flashls.serverPath' });
});

test('a wrong serverPath is an error naming the setting, not a silent fallback', async () => {
  const found = await discoverServer(input({ serverPath: '/nope/flashls' }), fakeProbe(['/usr/bin/flashls']));
  assert.equal(found.ok, false);
  if (!found.ok) {
    assert.match(found.message, /flashls\.serverPath/);
    assert.match(found.message, /\/nope\/flashls/);
    assert.deepEqual(found.tried, ['/nope/flashls']);
  }
});

test('serverPath expands ~ and looks bare names up on PATH', async () => {
  const home = await discoverServer(input({ serverPath: '~/bin/flashls' }), fakeProbe(['/home/u/bin/flashls']));
  assert.equal(home.ok && home.command, '/home/u/bin/flashls');
  const bare = await discoverServer(input({ serverPath: 'flashls-dev' }), fakeProbe(['/usr/bin/flashls-dev']));
  assert.equal(bare.ok && bare.command, '/usr/bin/flashls-dev');
});

test('the script beside the active interpreter comes before PATH', async () => {
  const probe = fakeProbe(['/venv/bin/flashls', '/usr/bin/flashls']);
  const found = await discoverServer(input({ pythonInterpreter: '/venv/bin/python', pythonSource: 'ms-python' }), probe);
  assert.equal(found.ok && found.command, '/venv/bin/flashls');
  assert.equal(found.ok && found.source, 'Python environment (ms-python)');
});

test('without a script, `python -m flashls` from that interpreter', async () => {
  const probe = fakeProbe(['/usr/bin/flashls'], { '/venv/bin/python': ['flashls'] });
  const found = await discoverServer(input({ pythonInterpreter: '/venv/bin/python' }), probe);
  assert.deepEqual(found.ok && [found.command, ...found.args], ['/venv/bin/python', '-m', 'flashls']);
});

test('PATH is the last resort, searched in order', async () => {
  const probe = fakeProbe(['/usr/bin/flashls']);
  const found = await discoverServer(input({ pythonInterpreter: '/venv/bin/python' }), probe);
  assert.equal(found.ok && found.command, '/usr/bin/flashls');
  assert.deepEqual(probe.calls, ['/venv/bin/flashls', '/venv/bin/python -m flashls', '/usr/local/bin/flashls', '/usr/bin/flashls']);
});

test('nothing found: the message says how to install and where it looked', async () => {
  const found = await discoverServer(input({ pythonInterpreter: '/venv/bin/python' }), fakeProbe([]));
  assert.equal(found.ok, false);
  if (!found.ok) {
    assert.match(found.message, /pip install flashls/);
    assert.match(found.message, /\/venv\/bin\/python/);
    assert.match(found.message, /flashls\.serverPath/);
    assert.ok(found.tried.includes('/usr/bin/flashls'));
  }
});

test('Windows: PATHEXT names, ; separated PATH, Scripts folder', () => {
  assert.deepEqual(executableNames('flashls', 'win32', '.EXE;.CMD'), ['flashls.exe', 'flashls.cmd']);
  assert.deepEqual(pathCandidates('C:\\a;;C:\\b', 'win32', '.EXE'), ['C:\\a\\flashls.exe', 'C:\\b\\flashls.exe']);
  assert.deepEqual(scriptCandidates('C:\\venv\\Scripts\\python.exe', 'win32', '.EXE'),
    ['C:\\venv\\Scripts\\flashls.exe', 'C:\\venv\\Scripts\\Scripts\\flashls.exe']);
  assert.deepEqual(scriptCandidates('C:\\conda\\python.exe', 'win32', '.EXE'),
    ['C:\\conda\\flashls.exe', 'C:\\conda\\Scripts\\flashls.exe']);
  assert.deepEqual(scriptCandidates('python', 'linux'), []);
});

test('real probe: only executable regular files count', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flashls-probe-'));
  const plain = join(dir, 'plain');
  const exe = join(dir, 'exe');
  writeFileSync(plain, '');
  writeFileSync(exe, '#!/bin/sh\n');
  chmodSync(exe, 0o755);
  assert.equal(await isExecutable(exe), true);
  assert.equal(await isExecutable(dir), false);
  assert.equal(await isExecutable(join(dir, 'missing')), false);
  if (process.platform !== 'win32') assert.equal(await isExecutable(plain), false);
});

test('real probe: hasModule asks the interpreter and survives a missing one', async () => {
  const python = process.platform === 'win32' ? 'python' : 'python3';
  assert.equal(await hasModule(python, 'json'), true);
  assert.equal(await hasModule(python, 'no_such_module_flashls_xyz'), false);
  assert.equal(await hasModule('/no/such/python', 'json'), false);
});

test('nothing found: "looked for" starts with the setting and says where it is read', async () => {
  const local = await discoverServer(input(), fakeProbe([]));
  assert.equal(local.ok, false);
  if (!local.ok) {
    assert.match(local.tried[0], /^setting flashls\.serverPath: not set \(read in User or Workspace settings\)/);
    assert.match(local.message, /set flashls\.serverPath to the flashls executable in User or Workspace settings/);
    assert.doesNotMatch(local.message, /login shell/);
  }
});

test('remote window: the message says User settings are not read there, and why PATH differs', async () => {
  const found = await discoverServer(input({ remoteName: 'ssh-remote' }), fakeProbe([]));
  assert.equal(found.ok, false);
  if (!found.ok) {
    assert.match(found.message, /Remote settings \("Preferences: Open Remote Settings \(JSON\)"\)/);
    assert.match(found.message, /\.vscode\/settings\.json/);
    assert.match(found.message, /\(ssh-remote\) a value in User settings is not read/);
    assert.match(found.message, /login shell \(~\/\.profile, ~\/\.bash_profile\)/);
    assert.match(found.tried[0], /not set \(read in Remote settings/);
  }
});

test('flashls in ~/.local/bin but off PATH: named, with where to set serverPath', async () => {
  const probe = fakeProbe(['/home/u/.local/bin/flashls']);
  const found = await discoverServer(input({ remoteName: 'wsl' }), probe);
  assert.equal(found.ok, false);
  if (!found.ok) {
    assert.match(found.message, /\/home\/u\/\.local\/bin\/flashls exists but its folder is not on this extension host's PATH/);
    assert.ok(found.tried.includes('/home/u/.local/bin/flashls (not on PATH)'));
  }
  // Already on PATH: found there, never reported as off PATH.
  const onPath = await discoverServer(
    input({ pathEnv: '/home/u/.local/bin:/usr/bin' }), fakeProbe(['/home/u/.local/bin/flashls']));
  assert.equal(onPath.ok && onPath.source, 'PATH');
});

test('a wrong serverPath says which settings file set it', async () => {
  const found = await discoverServer(input({ serverPath: '/nope/flashls', serverPathOrigin: 'Workspace settings' }), fakeProbe([]));
  assert.equal(found.ok, false);
  if (!found.ok) assert.match(found.message, /flashls\.serverPath is set in Workspace settings to "\/nope\/flashls"/);
});

test('the logged command line has no double space without arguments and quotes spaced parts', () => {
  assert.equal(commandLine('/venv/bin/flashls', []), '/venv/bin/flashls');
  assert.equal(commandLine('/venv/bin/python', ['-m', 'flashls']), '/venv/bin/python -m flashls');
  assert.equal(commandLine('/My Tools/flashls', []), '"/My Tools/flashls"');
});
