/**
 * Status bar text for the server's `flashls/status` notification.
 *
 * Pure: no `vscode` import, so node's test runner can exercise it directly.
 */

/** States the server reports, plus the two the client knows before it has a server. */
export type ServerState = 'ready' | 'thinking' | 'error' | 'disabled';
export type ClientState = ServerState | 'starting' | 'stopped';

/** Why nothing is offered for a document (`reason` of `flashls/status`). */
export interface StatusReason {
  code: string;
  message: string;
  /** The document it is about; absent: every document. */
  uri?: string;
}

/** Params of the `flashls/status` notification. */
export interface StatusParams {
  state: ServerState;
  message?: string;
  lastLatencyMs?: number;
  sessionCostUsd?: number;
  reason?: StatusReason;
}

/** Short labels for the reason codes the server sends. */
export const REASON_LABELS: Record<string, string> = {
  language_disabled: 'off for this language',
  excluded: 'excluded file',
  credential_file: 'credential file',
  outside_workspace: 'outside the workspace',
  too_large: 'file too large',
  no_api_key: 'no API key',
  backing_off: 'backing off',
  offline: 'offline',
};

export interface StatusView {
  /** Status bar text, with a codicon. */
  text: string;
  /** Hover text, one fact per line. */
  tooltip: string;
  /** Use the error background colour. */
  isError: boolean;
}

const ICONS: Record<ClientState, string> = {
  ready: '$(zap)',
  thinking: '$(loading~spin)',
  error: '$(warning)',
  disabled: '$(circle-slash)',
  starting: '$(loading~spin)',
  stopped: '$(debug-disconnect)',
};

const LABELS: Record<ClientState, string> = {
  ready: 'ready',
  thinking: 'thinking…',
  error: 'error',
  disabled: 'completions off',
  starting: 'starting…',
  stopped: 'server stopped',
};

/** Validate an untrusted notification payload; unknown shapes become an error state. */
export function parseStatus(raw: unknown): StatusParams {
  if (typeof raw !== 'object' || raw === null) {
    return { state: 'error', message: 'malformed flashls/status notification' };
  }
  const obj = raw as Record<string, unknown>;
  const state = obj.state;
  const known = state === 'ready' || state === 'thinking' || state === 'error' || state === 'disabled';
  const out: StatusParams = known
    ? { state }
    : { state: 'error', message: `unknown state ${JSON.stringify(state)}` };
  if (known && typeof obj.message === 'string' && obj.message) out.message = obj.message;
  if (isFiniteNumber(obj.lastLatencyMs) && obj.lastLatencyMs >= 0) out.lastLatencyMs = obj.lastLatencyMs;
  if (isFiniteNumber(obj.sessionCostUsd) && obj.sessionCostUsd >= 0) out.sessionCostUsd = obj.sessionCostUsd;
  const reason = parseReason(obj.reason);
  if (known && reason) out.reason = reason;
  return out;
}

function parseReason(raw: unknown): StatusReason | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const obj = raw as Record<string, unknown>;
  if (typeof obj.code !== 'string' || !obj.code) return undefined;
  const reason: StatusReason = {
    code: obj.code,
    message: typeof obj.message === 'string' && obj.message ? obj.message : obj.code,
  };
  if (typeof obj.uri === 'string' && obj.uri) reason.uri = obj.uri;
  return reason;
}

/** The reason that applies to the document at `activeUri` (a reason about another
 * file is not shown while this one is active). */
export function reasonFor(status: { reason?: StatusReason }, activeUri?: string): StatusReason | undefined {
  const reason = status.reason;
  if (!reason) return undefined;
  if (reason.uri && activeUri && reason.uri !== activeUri) return undefined;
  return reason;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** "312 ms" below a second, "1.2 s" above. */
export function formatLatency(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Costs of a session are tiny: keep enough digits to see them move. */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** Build the status bar view; `completionsEnabled` false shows "off" even while ready. */
export function formatStatus(
  status: StatusParams | { state: 'starting' | 'stopped'; message?: string },
  completionsEnabled = true,
  activeUri?: string,
): StatusView {
  let state: ClientState = status.state;
  if (state === 'ready' && !completionsEnabled) state = 'disabled';
  const full = status as StatusParams;
  const reason = reasonFor(full, activeUri);
  if (!reason && full.reason && state === 'disabled') state = 'ready'; // about another file
  const lines = [`flashls: ${reason ? REASON_LABELS[reason.code] ?? reason.code : LABELS[state]}`];
  if (reason) lines.push(`Nothing is offered here: ${reason.message}`);
  else if (status.message && !full.reason) lines.push(status.message);
  if (full.lastLatencyMs !== undefined) lines.push(`Last completion: ${formatLatency(full.lastLatencyMs)}`);
  if (full.sessionCostUsd !== undefined) lines.push(`This session: ${formatCost(full.sessionCostUsd)}`);
  lines.push('Click for flashls actions');
  let text = `${ICONS[state]} flashls`;
  if (state === 'ready' && full.lastLatencyMs !== undefined) text += ` ${formatLatency(full.lastLatencyMs)}`;
  return { text, tooltip: lines.join('\n'), isError: state === 'error' };
}
