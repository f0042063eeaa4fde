/**
 * Next edit suggestions in VS Code with the stable API: after a pause in typing,
 * ask the server (`textDocument/copilotInlineEdit`) for the edit that follows the
 * one just made and show it with decorations (deleted text struck through on a red
 * background, inserted text after it in green). Commands jump to it, accept it
 * (Tab while it is shown) and dismiss it (Escape); typing anywhere dismisses it.
 *
 * `NextEditController` holds the logic and sees the editor only through
 * `NextEditHost`, so node's test runner drives it with a scripted host;
 * `registerNextEdit` binds it to VS Code (the `vscode` module is passed in, never
 * imported here).
 */
import type * as vscodeTypes from 'vscode';
import { CLIENT_COMMANDS } from './commands';

export const METHOD = 'textDocument/copilotInlineEdit';
export const SHOWN = 'textDocument/didShowInlineEdit';
export const REJECTED = 'flashls.nextEdit.rejected';
export const CONTEXT_KEY = 'flashls.nextEditVisible';
export const NEXT_EDIT_COMMANDS = {
  accept: CLIENT_COMMANDS.acceptNextEdit,
  jump: CLIENT_COMMANDS.jumpToNextEdit,
  dismiss: CLIENT_COMMANDS.dismissNextEdit,
} as const;
export const DEFAULT_DEBOUNCE_MS = 500;

export interface LspPosition { line: number; character: number }
export interface LspRange { start: LspPosition; end: LspPosition }
export interface LspCommand { title?: string; command: string; arguments?: unknown[] }
export interface NextEdit {
  text: string;
  range: LspRange;
  textDocument: { uri: string; version: number };
  command?: LspCommand;
}
export interface Cursor { uri: string; version: number; position: LspPosition }

function isPosition(raw: unknown): raw is LspPosition {
  const p = raw as LspPosition;
  return !!p && Number.isInteger(p.line) && Number.isInteger(p.character) && p.line >= 0 && p.character >= 0;
}

/** The edits of an untrusted result; anything malformed is dropped. */
export function parseNextEdits(raw: unknown): NextEdit[] {
  const edits = (raw as { edits?: unknown })?.edits;
  if (!Array.isArray(edits)) return [];
  return edits.filter((e): e is NextEdit => {
    const edit = e as NextEdit;
    return !!edit && typeof edit.text === 'string' && !!edit.range && isPosition(edit.range.start)
      && isPosition(edit.range.end) && !!edit.textDocument && typeof edit.textDocument.uri === 'string'
      && Number.isInteger(edit.textDocument.version);
  });
}

/** The inserted text as one decoration line: line breaks shown as ⏎. */
export function insertionLabel(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ⏎ ');
}

/** What the controller needs from the editor; injected so it is unit-tested. */
export interface NextEditHost {
  enabled(): boolean;
  debounceMs(): number;
  /** The active editor's document and cursor, or undefined. */
  cursor(): Cursor | undefined;
  request(cursor: Cursor): Promise<unknown>;
  show(edits: NextEdit[]): void;
  clear(): void;
  apply(edits: NextEdit[]): Promise<boolean>;
  execute(command: string, args: unknown[]): void;
  notify(method: string, params: unknown): void;
  reveal(uri: string, position: LspPosition): void;
  setVisible(visible: boolean): void;
  /** Run `fn` after `ms`; returns a cancel function. */
  later(fn: () => void, ms: number): () => void;
}

export class NextEditController {
  private shown: NextEdit[] | undefined;
  private cancelTimer: (() => void) | undefined;
  private sequence = 0;

  constructor(private readonly host: NextEditHost) {}

  get visible(): boolean {
    return this.shown !== undefined;
  }

  /** The document changed (typing, undo, an accepted edit): drop what is shown and
   * ask again after the pause. */
  changed(): void {
    this.dismiss('rejected');
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.sequence += 1; // an answer still on its way is for an older text
    if (!this.host.enabled()) return;
    this.cancelTimer = this.host.later(() => {
      this.cancelTimer = undefined;
      void this.trigger();
    }, this.host.debounceMs());
  }

  /** Ask now, at the cursor. */
  async trigger(): Promise<boolean> {
    const cursor = this.host.cursor();
    if (!cursor || !this.host.enabled()) return false;
    const mine = ++this.sequence;
    let raw: unknown;
    try {
      raw = await this.host.request(cursor);
    } catch {
      return false; // the client reports failed requests; no popup here
    }
    const now = this.host.cursor();
    if (mine !== this.sequence || !now || now.uri !== cursor.uri || now.version !== cursor.version) return false;
    const edits = parseNextEdits(raw).filter((e) => e.textDocument.uri === cursor.uri
      && e.textDocument.version === cursor.version);
    if (edits.length === 0) return false;
    this.dismiss('rejected');
    this.shown = edits;
    this.host.show(edits);
    this.host.setVisible(true);
    this.host.notify(SHOWN, { item: { command: edits[0].command } });
    return true;
  }

  jump(): boolean {
    if (!this.shown) return false;
    const first = this.shown[0];
    this.host.reveal(first.textDocument.uri, first.range.start);
    return true;
  }

  async accept(): Promise<boolean> {
    const edits = this.shown;
    if (!edits) return false;
    const now = this.host.cursor();
    if (!now || now.uri !== edits[0].textDocument.uri || now.version !== edits[0].textDocument.version) {
      this.dismiss('rejected');
      return false;
    }
    this.hide();
    const applied = await this.host.apply(edits);
    const command = edits[0].command;
    if (applied && command) this.host.execute(command.command, command.arguments ?? []);
    return applied;
  }

  /** Remove what is shown; `rejected` tells the server the user did not take it. */
  dismiss(reason: 'rejected' | 'quiet' = 'rejected'): boolean {
    const edits = this.shown;
    if (!edits) return false;
    this.hide();
    const id = edits[0].command?.arguments;
    if (reason === 'rejected' && id) this.host.execute(REJECTED, id);
    return true;
  }

  private hide(): void {
    this.shown = undefined;
    this.host.clear();
    this.host.setVisible(false);
  }
}

/** Something with `sendRequest` / `sendNotification`: the running LanguageClient. */
export interface Client {
  sendRequest(method: string, params: unknown): Promise<unknown>;
  sendNotification(method: string, params: unknown): Promise<void> | void;
  isRunning(): boolean;
  initializeResult?: { capabilities?: { experimental?: Record<string, unknown> } };
}

/** Bind the controller to VS Code; returns what to dispose. */
export function registerNextEdit(vscode: typeof vscodeTypes, client: () => Client | undefined,
  section = 'flashls'): vscodeTypes.Disposable[] {
  const deleted = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('diffEditor.removedTextBackground'),
    textDecoration: 'line-through',
  });
  const inserted = vscode.window.createTextEditorDecorationType({
    after: {
      color: new vscode.ThemeColor('editorGhostText.foreground'),
      backgroundColor: new vscode.ThemeColor('diffEditor.insertedTextBackground'),
    },
  });
  const running = () => {
    const c = client();
    const caps = c?.initializeResult?.capabilities?.experimental;
    return c && c.isRunning() && caps && caps.nextEditSuggestions ? c : undefined;
  };
  const config = () => vscode.workspace.getConfiguration(section);
  const range = (r: LspRange) => new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
  const host: NextEditHost = {
    enabled: () => running() !== undefined && config().get<boolean>('nextEdit.enable', true),
    debounceMs: () => config().get<number>('nextEdit.debounceMs', DEFAULT_DEBOUNCE_MS),
    cursor: () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return undefined;
      const p = editor.selection.active;
      return { uri: editor.document.uri.toString(), version: editor.document.version,
        position: { line: p.line, character: p.character } };
    },
    request: async (cursor) => running()?.sendRequest(METHOD, {
      textDocument: { uri: cursor.uri, version: cursor.version }, position: cursor.position }),
    show: (edits) => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      editor.setDecorations(deleted, edits.filter((e) => !range(e.range).isEmpty).map((e) => range(e.range)));
      editor.setDecorations(inserted, edits.filter((e) => e.text).map((e) => ({
        range: new vscode.Range(e.range.end.line, e.range.end.character, e.range.end.line, e.range.end.character),
        renderOptions: { after: { contentText: insertionLabel(e.text) } },
        hoverMessage: new vscode.MarkdownString().appendCodeblock(e.text),
      })));
    },
    clear: () => {
      for (const editor of vscode.window.visibleTextEditors) {
        editor.setDecorations(deleted, []);
        editor.setDecorations(inserted, []);
      }
    },
    apply: async (edits) => {
      const edit = new vscode.WorkspaceEdit();
      const uri = vscode.Uri.parse(edits[0].textDocument.uri);
      for (const e of edits) edit.replace(uri, range(e.range), e.text);
      return vscode.workspace.applyEdit(edit);
    },
    execute: (command, args) => {
      void running()?.sendRequest('workspace/executeCommand', { command, arguments: args })
        .catch(() => undefined);
    },
    notify: (method, params) => {
      void running()?.sendNotification(method, params);
    },
    reveal: (_uri, position) => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const at = new vscode.Position(position.line, position.character);
      editor.selection = new vscode.Selection(at, at);
      editor.revealRange(new vscode.Range(at, at));
    },
    setVisible: (visible) => {
      void vscode.commands.executeCommand('setContext', CONTEXT_KEY, visible);
    },
    later: (fn, ms) => {
      const timer = setTimeout(fn, ms);
      return () => clearTimeout(timer);
    },
  };
  const controller = new NextEditController(host);
  return [
    deleted, inserted,
    vscode.workspace.onDidChangeTextDocument((event) => {
      const editor = vscode.window.activeTextEditor;
      if (editor && event.document === editor.document && event.contentChanges.length) controller.changed();
    }),
    vscode.window.onDidChangeActiveTextEditor(() => controller.dismiss('rejected')),
    vscode.commands.registerCommand(NEXT_EDIT_COMMANDS.accept, () => controller.accept()),
    vscode.commands.registerCommand(NEXT_EDIT_COMMANDS.jump, () => controller.jump()),
    vscode.commands.registerCommand(NEXT_EDIT_COMMANDS.dismiss, () => controller.dismiss('rejected')),
  ];
}
