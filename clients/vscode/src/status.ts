/**
 * Status bar text for the server's `flashls/status` notification.
 *
 * Pure: no `vscode` import, so node's test runner can exercise it directly.
 */

/** States the server reports, plus the two the client knows before it has a server. */
export type ServerState = 'ready' | 'thinking' | 'error' | 'disabled';
export type ClientState = ServerState | 'starting' | 'stopped';

/** Params of the `flashls/status` notification. */
export interface StatusParams {
  state: ServerState;
  message?: string;
  lastLatencyMs?: number;
  sessionCostUsd?: number;
}

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
  return out;
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
): StatusView {
  let state: ClientState = status.state;
  if (state === 'ready' && !completionsEnabled) state = 'disabled';
  const lines = [`flashls: ${LABELS[state]}`];
  if (status.message) lines.push(status.message);
  const full = status as StatusParams;
  if (full.lastLatencyMs !== undefined) lines.push(`Last completion: ${formatLatency(full.lastLatencyMs)}`);
  if (full.sessionCostUsd !== undefined) lines.push(`This session: ${formatCost(full.sessionCostUsd)}`);
  lines.push('Click for flashls actions');
  let text = `${ICONS[state]} flashls`;
  if (state === 'ready' && full.lastLatencyMs !== undefined) text += ` ${formatLatency(full.lastLatencyMs)}`;
  return { text, tooltip: lines.join('\n'), isError: state === 'error' };
}
