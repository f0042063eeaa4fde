/** Real file-system and process checks behind `discovery.Probe` (node only, no vscode). */
import { execFile } from 'child_process';
import { constants, promises as fs } from 'fs';
import type { Probe } from './discovery';

export async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    if (process.platform === 'win32') return true;
    await fs.access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const FIND_SPEC = 'import importlib.util, sys; sys.exit(0 if importlib.util.find_spec(sys.argv[1]) else 1)';

/** True when `python` imports `module`; a missing or broken interpreter is just false. */
export function hasModule(python: string, module: string, timeoutMs = 10000): Promise<boolean> {
  return new Promise((resolve) => {
    try {
      execFile(python, ['-c', FIND_SPEC, module], { timeout: timeoutMs, windowsHide: true }, (error) => {
        resolve(!error);
      });
    } catch {
      resolve(false);
    }
  });
}

export const nodeProbe: Probe = { isExecutable, hasModule };
