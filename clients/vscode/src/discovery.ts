/**
 * Where is the `flashls` server? Decided from settings, the active Python
 * environment and PATH, in that order.
 *
 * The decision is pure; file-system and process checks come in through `Probe`
 * so the order and the error text are unit-tested without VS Code.
 */
import * as path from 'path';

export interface DiscoveryInput {
  /** `flashls.serverPath`; empty when unset. */
  serverPath: string;
  /** Interpreter of the active Python environment, when one is known. */
  pythonInterpreter?: string;
  /** Where `pythonInterpreter` came from, for messages. */
  pythonSource?: string;
  /** `process.env.PATH`. */
  pathEnv: string;
  /** `process.env.PATHEXT` (Windows). */
  pathExt?: string;
  platform: NodeJS.Platform;
  /** Home directory, for `~` in `serverPath`. */
  home: string;
  /** Where the `serverPath` value was set ("Workspace settings", ...), when it is set. */
  serverPathOrigin?: string;
  /** `vscode.env.remoteName` ("ssh-remote", "wsl", ...): the extension host is remote. */
  remoteName?: string;
}

export interface Probe {
  /** True for an existing file the user may execute. */
  isExecutable(file: string): Promise<boolean>;
  /** True when `python` can import `module`. */
  hasModule(python: string, module: string): Promise<boolean>;
}

export interface ServerCommand {
  ok: true;
  command: string;
  args: string[];
  /** Human description of where it was found. */
  source: string;
}

export interface DiscoveryFailure {
  ok: false;
  /** One-line error with the fix, for the notification. */
  message: string;
  /** Every location checked, for the output channel. */
  tried: string[];
}

export type Discovery = ServerCommand | DiscoveryFailure;

export const INSTALL_HINT = 'pip install flashls';

function pathApi(platform: NodeJS.Platform): typeof path.posix {
  return platform === 'win32' ? path.win32 : path.posix;
}

/** Executable names to try for a bare program name. */
export function executableNames(name: string, platform: NodeJS.Platform, pathExt?: string): string[] {
  if (platform !== 'win32') return [name];
  const exts = (pathExt || '.EXE;.CMD;.BAT').split(';').filter(Boolean).map((e) => e.toLowerCase());
  return exts.map((ext) => name + ext);
}

/** `flashls` beside an interpreter: venv `bin/`, Windows `Scripts\`, conda root. */
export function scriptCandidates(python: string, platform: NodeJS.Platform, pathExt?: string): string[] {
  const p = pathApi(platform);
  if (!p.isAbsolute(python)) return [];
  const dir = p.dirname(python);
  const dirs = platform === 'win32' ? [dir, p.join(dir, 'Scripts')] : [dir];
  return dirs.flatMap((d) => executableNames('flashls', platform, pathExt).map((n) => p.join(d, n)));
}

/** `flashls` in each PATH directory, in PATH order. */
export function pathCandidates(pathEnv: string, platform: NodeJS.Platform, pathExt?: string): string[] {
  const p = pathApi(platform);
  const sep = platform === 'win32' ? ';' : ':';
  const dirs = pathEnv.split(sep).filter((d) => d.trim() !== '');
  return dirs.flatMap((d) => executableNames('flashls', platform, pathExt).map((n) => p.join(d, n)));
}

/** User bin folders that an interactive shell often adds to PATH and a login shell may not. */
export function userBinCandidates(home: string, platform: NodeJS.Platform): string[] {
  if (platform === 'win32') return [];
  return [path.posix.join(home, '.local', 'bin', 'flashls'), path.posix.join(home, 'bin', 'flashls')];
}

/**
 * Where to set `flashls.serverPath` so that it is read. Its scope is
 * `machine-overridable` (a path names a file on one machine), so in a remote window a
 * value in the local User settings is ignored.
 */
export function whereToSetServerPath(remoteName: string | undefined): string {
  if (!remoteName) return 'in User or Workspace settings';
  return 'in Remote settings ("Preferences: Open Remote Settings (JSON)") or the workspace\'s ' +
    `.vscode/settings.json: in this remote window (${remoteName}) a value in User settings is not read`;
}

/** A remote extension host takes PATH from the remote login shell, not from your terminal. */
export function remotePathNote(remoteName: string | undefined): string {
  if (!remoteName) return '';
  return ' The extension host of this remote window takes PATH from the remote machine\'s login ' +
    'shell (~/.profile, ~/.bash_profile), not from ~/.bashrc or the editor\'s own PATH: ' +
    '`which flashls` in a terminal can find it while flashls cannot.';
}

/** The command line as logged: no trailing space without arguments. */
export function commandLine(command: string, args: string[]): string {
  return [command, ...args].map((part) => (/\s/.test(part) ? JSON.stringify(part) : part)).join(' ');
}

export function expandHome(file: string, home: string, platform: NodeJS.Platform): string {
  if (file === '~') return home;
  if (file.startsWith('~/') || (platform === 'win32' && file.startsWith('~\\'))) {
    return pathApi(platform).join(home, file.slice(2));
  }
  return file;
}

/** Find the server; never throws, a miss is a `DiscoveryFailure` that says how to fix it. */
export async function discoverServer(input: DiscoveryInput, probe: Probe): Promise<Discovery> {
  const p = pathApi(input.platform);
  const tried: string[] = [];
  const configured = input.serverPath.trim();
  if (configured) {
    const file = expandHome(configured, input.home, input.platform);
    const bare = !file.includes('/') && !file.includes('\\');
    const candidates = bare
      ? pathCandidates(input.pathEnv, input.platform, input.pathExt).map((c) => p.join(p.dirname(c), file))
      : [file];
    for (const candidate of candidates) {
      tried.push(candidate);
      if (await probe.isExecutable(candidate)) {
        return { ok: true, command: candidate, args: [], source: 'setting flashls.serverPath' };
      }
    }
    const origin = input.serverPathOrigin ? ` in ${input.serverPathOrigin}` : '';
    return {
      ok: false,
      message: `flashls.serverPath is set${origin} to "${configured}", which is not an executable file. ` +
        'Fix the path or clear the setting to let flashls find the server itself.' +
        remotePathNote(bare ? input.remoteName : undefined),
      tried,
    };
  }
  tried.push(`setting flashls.serverPath: not set (read ${whereToSetServerPath(input.remoteName)})`);
  const python = input.pythonInterpreter?.trim();
  if (python) {
    const where = input.pythonSource ? ` (${input.pythonSource})` : '';
    for (const candidate of scriptCandidates(python, input.platform, input.pathExt)) {
      tried.push(candidate);
      if (await probe.isExecutable(candidate)) {
        return { ok: true, command: candidate, args: [], source: `Python environment${where}` };
      }
    }
    tried.push(`${python} -m flashls`);
    if (await probe.hasModule(python, 'flashls')) {
      return { ok: true, command: python, args: ['-m', 'flashls'], source: `Python environment${where}` };
    }
  }
  for (const candidate of pathCandidates(input.pathEnv, input.platform, input.pathExt)) {
    tried.push(candidate);
    if (await probe.isExecutable(candidate)) {
      return { ok: true, command: candidate, args: [], source: 'PATH' };
    }
  }
  const onPath = new Set(pathCandidates(input.pathEnv, input.platform, input.pathExt));
  let offPath: string | undefined;
  for (const candidate of userBinCandidates(input.home, input.platform).filter((c) => !onPath.has(c))) {
    tried.push(`${candidate} (not on PATH)`);
    if (!offPath && await probe.isExecutable(candidate)) offPath = candidate;
  }
  const envHint = python ? ` into the Python environment ${python}` : '';
  const found = offPath
    ? ` ${offPath} exists but its folder is not on this extension host's PATH; set flashls.serverPath to it ` +
      `${whereToSetServerPath(input.remoteName)}.`
    : '';
  return {
    ok: false,
    message: `The flashls language server was not found.${found} Install it${envHint} with ` +
      `\`${INSTALL_HINT}\`, or set flashls.serverPath to the flashls executable ` +
      `${whereToSetServerPath(input.remoteName)}.${remotePathNote(input.remoteName)}`,
    tried,
  };
}
