/** The interpreter of the active Python environment, from the ms-python extension if present. */
import * as vscode from 'vscode';

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
  resolveEnvironment(env: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
  settings?: { getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } };
}

export interface Interpreter {
  path: string;
  source: string;
}

/** Ask ms-python first, then `python.defaultInterpreterPath`; undefined when neither knows. */
export async function activeInterpreter(resource?: vscode.Uri): Promise<Interpreter | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (ext) {
    try {
      const api = ext.isActive ? ext.exports : await ext.activate();
      const envs = api?.environments;
      const active = envs?.getActiveEnvironmentPath(resource);
      if (envs && active) {
        const resolved = await envs.resolveEnvironment(active);
        const file = resolved?.executable?.uri?.fsPath;
        if (file) return { path: file, source: 'ms-python active environment' };
      }
      const legacy = api?.settings?.getExecutionDetails?.(resource)?.execCommand;
      if (legacy && legacy.length === 1 && legacy[0]) {
        return { path: legacy[0], source: 'ms-python interpreter' };
      }
    } catch {
      // A broken Python extension must not stop flashls: fall through to settings.
    }
  }
  const configured = vscode.workspace.getConfiguration('python', resource).get<string>('defaultInterpreterPath');
  if (configured && configured.trim()) {
    return { path: configured.trim(), source: 'python.defaultInterpreterPath' };
  }
  return undefined;
}
