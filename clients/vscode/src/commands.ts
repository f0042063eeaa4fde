/**
 * Arguments for the server's `workspace/executeCommand` commands and formatting of
 * their results. Pure (no `vscode`), so it is unit-tested with node's test runner.
 */

/** Commands the server implements (`workspace/executeCommand`). */
export const SERVER_COMMANDS = {
  accepted: 'flashls.accepted',
  toggleCompletions: 'flashls.toggleCompletions',
  showSettings: 'flashls.showSettings',
  rewrite: 'flashls.rewrite',
  explain: 'flashls.explain',
  insertExplanation: 'flashls.insertExplanation',
  showContext: 'flashls.showContext',
  showUsage: 'flashls.showUsage',
} as const;

/**
 * Commands this extension contributes. vscode-languageclient registers every server
 * command as a VS Code command of the same id, so these ids must differ from
 * `SERVER_COMMANDS` or the client fails to start.
 */
export const CLIENT_COMMANDS = {
  rewriteSelection: 'flashls.rewriteSelection',
  explainSelection: 'flashls.explainSelection',
  toggleCompletions: 'flashls.toggleInlineCompletions',
  toggleLanguage: 'flashls.toggleLanguage',
  showContext: 'flashls.showContextAtCursor',
  showUsage: 'flashls.showUsageReport',
  restartServer: 'flashls.restartServer',
  statusMenu: 'flashls.statusMenu',
  acceptNextEdit: 'flashls.acceptNextEdit',
  jumpToNextEdit: 'flashls.jumpToNextEdit',
  dismissNextEdit: 'flashls.dismissNextEdit',
} as const;

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface ExecuteCommandParams {
  command: string;
  arguments: unknown[];
}

/** The instruction as sent, or undefined when there is nothing to send. */
export function normalizeInstruction(text: string | undefined): string | undefined {
  const trimmed = (text ?? '').trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Input-box validation message, or undefined when the text is acceptable. */
export function validateInstruction(text: string): string | undefined {
  return normalizeInstruction(text) ? undefined : 'Describe the change, e.g. "add type hints".';
}

export function rewriteParams(uri: string, range: LspRange, instruction: string): ExecuteCommandParams {
  return { command: SERVER_COMMANDS.rewrite, arguments: [{ uri, range, instruction }] };
}

export function explainParams(uri: string, range: LspRange): ExecuteCommandParams {
  return { command: SERVER_COMMANDS.explain, arguments: [{ uri, range }] };
}

export function showContextParams(uri: string, position: LspPosition): ExecuteCommandParams {
  return { command: SERVER_COMMANDS.showContext, arguments: [{ uri, position }] };
}

export function showUsageParams(): ExecuteCommandParams {
  return { command: SERVER_COMMANDS.showUsage, arguments: [] };
}

/**
 * What to tell the user after `flashls.rewrite` ({applied, model, failureReason?}).
 * The server itself warns when the editor refused the edit, so only success is news.
 */
export function rewriteOutcome(result: unknown): string | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const { applied, model } = result as { applied?: unknown; model?: unknown };
  if (applied !== true) return undefined;
  return typeof model === 'string' && model ? `rewritten by ${model}` : 'rewritten';
}

/** The `markdown` field of a command result; a readable note when the result has none. */
export function markdownOf(result: unknown, what: string): string {
  if (result && typeof result === 'object' && typeof (result as { markdown?: unknown }).markdown === 'string') {
    return (result as { markdown: string }).markdown;
  }
  return `*flashls returned no ${what}.*`;
}

/** A code fence longer than any backtick run inside `text`. */
export function fence(text: string, info = ''): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  return `${ticks}${info}\n${text}${text.endsWith('\n') ? '' : '\n'}${ticks}`;
}

function isPrimitive(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function formatBreakdown(breakdown: unknown): string {
  if (typeof breakdown === 'string') return fence(breakdown, 'text');
  if (breakdown && typeof breakdown === 'object' && !Array.isArray(breakdown)) {
    const entries = Object.entries(breakdown as Record<string, unknown>);
    if (entries.length > 0 && entries.every(([, v]) => isPrimitive(v))) {
      return table(entries);
    }
  }
  return fence(JSON.stringify(breakdown ?? null, null, 2), 'json');
}

function table(entries: [string, unknown][]): string {
  const rows = entries.map(([k, v]) => `| ${k} | ${String(v).replace(/\|/g, '\\|')} |`);
  return ['| | |', '| --- | --- |', ...rows].join('\n');
}

function block(value: unknown): string {
  return typeof value === 'string' ? fence(value, 'text') : fence(JSON.stringify(value ?? null, null, 2), 'json');
}

/**
 * Markdown document for `flashls.showContext`: the request's scalar facts as a table,
 * the token breakdown, then the exact prompt (FIM prompt + suffix, or chat messages).
 */
export function formatContext(result: unknown, where: string): string {
  const out = [`# flashls context at ${where}`, ''];
  if (!result || typeof result !== 'object' || Array.isArray(result)) {
    out.push('*flashls returned no context.*');
    return out.join('\n') + '\n';
  }
  const obj = result as Record<string, unknown>;
  const shown = new Set(['prompt', 'suffix', 'messages', 'breakdown']);
  const facts = Object.entries(obj).filter(([k, v]) => !shown.has(k) && isPrimitive(v));
  if (facts.length) out.push(table(facts), '');
  if ('breakdown' in obj) out.push('## Breakdown', '', formatBreakdown(obj.breakdown), '');
  if ('prompt' in obj) out.push('## Prompt (before the cursor)', '', block(obj.prompt), '');
  if ('suffix' in obj) out.push('## Suffix (after the cursor)', '', block(obj.suffix), '');
  if (Array.isArray(obj.messages)) {
    out.push('## Messages', '');
    for (const message of obj.messages as { role?: unknown; content?: unknown }[]) {
      out.push(`### ${String(message?.role ?? 'message')}`, '', block(message?.content), '');
    }
  }
  return out.join('\n').trimEnd() + '\n';
}

/** Values of one setting at each level, as `WorkspaceConfiguration.inspect` returns them. */
export interface InspectedSetting {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

export type SettingTarget = 'global' | 'workspace' | 'workspaceFolder';

/** Write where the effective value comes from, so the toggle is never shadowed. */
export function toggleTarget(inspected: InspectedSetting | undefined): SettingTarget {
  if (inspected?.workspaceFolderValue !== undefined) return 'workspaceFolder';
  if (inspected?.workspaceValue !== undefined) return 'workspace';
  return 'global';
}

/** Settings only the client reads; the server would report them as unknown. */
export const CLIENT_ONLY_KEYS = ['serverPath', 'trace'] as const;

/** A plain copy of the `flashls` section without the client-only keys. */
export function serverSettings(section: unknown): Record<string, unknown> {
  if (!section || typeof section !== 'object' || Array.isArray(section)) return {};
  const copy = JSON.parse(JSON.stringify(section)) as Record<string, unknown>;
  for (const key of CLIENT_ONLY_KEYS) delete copy[key];
  return copy;
}
