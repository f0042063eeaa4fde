/** "Toggle inline completions for this language": flips the active editor's language in
 * `flashls.completion.languages`, at the level that already sets it (like the global
 * toggle), so it lasts and reaches the server as a settings change. */
import * as vscode from 'vscode';
import { toggleTarget } from './commands';
import { languageEnabled, toggleLanguage } from './languages';

const SECTION = 'flashls';
const KEY = 'completion.languages';

/** The language of the active editor, if any. */
export function activeLanguage(): string | undefined {
  return vscode.window.activeTextEditor?.document.languageId;
}

/** Whether completions run for the active editor's language. */
export function activeLanguageEnabled(): boolean {
  const language = activeLanguage();
  if (!language) return true;
  const resource = vscode.window.activeTextEditor?.document.uri;
  return languageEnabled(vscode.workspace.getConfiguration(SECTION, resource).get(KEY), language);
}

export async function toggleCompletionsForLanguage(languageId?: unknown): Promise<void> {
  const language = typeof languageId === 'string' && languageId ? languageId : activeLanguage();
  if (!language) {
    void vscode.window.showWarningMessage('flashls: open a file to toggle completions for its language.');
    return;
  }
  const resource = vscode.window.activeTextEditor?.document.uri;
  const config = vscode.workspace.getConfiguration(SECTION, resource);
  const { languages, enabled } = toggleLanguage(config.get(KEY), language);
  const target = {
    global: vscode.ConfigurationTarget.Global,
    workspace: vscode.ConfigurationTarget.Workspace,
    workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder,
  }[toggleTarget(config.inspect(KEY))];
  await config.update(KEY, languages, target);
  vscode.window.setStatusBarMessage(`flashls: inline completions ${enabled ? 'on' : 'off'} for ${language}`, 3000);
}
