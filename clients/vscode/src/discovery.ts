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
    const candidates = file.includes('/') || file.includes('\\')
      ? [file]
      : pathCandidates(input.pathEnv, input.platform, input.pathExt).map((c) => p.join(p.dirname(c), file));
    for (const candidate of candidates) {
      tried.push(candidate);
      if (await probe.isExecutable(candidate)) {
        return { ok: true, command: candidate, args: [], source: 'setting flashls.serverPath' };
      }
    }
    return {
      ok: false,
      message: `flashls.serverPath is set to "${configured}", which is not an executable file. ` +
        'Fix the path or clear the setting to let flashls find the server itself.',
      tried,
    };
  }
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
  const envHint = python ? ` into the Python environment ${python}` : '';
  return {
    ok: false,
    message: `The flashls language server was not found. Install it${envHint} with ` +
      `\`${INSTALL_HINT}\`, or set flashls.serverPath to the flashls executable.`,
    tried,
  };
}
