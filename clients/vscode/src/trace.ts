/**
 * `flashls.trace.server` decides by itself whether the LSP messages are traced.
 *
 * vscode-languageclient 10 traces only while its trace channel's log level is Trace,
 * and then treats "off" as "messages", so the setting alone did nothing. The client
 * gets this channel instead: its log level follows the setting, and it writes each
 * trace line to a plain output channel ("flashls Trace") made the first time one comes.
 * Pure: no `vscode` import (the numbers are `vscode.LogLevel`'s).
 */

export const LOG_LEVEL_TRACE = 1;
export const LOG_LEVEL_INFO = 3;

export type TraceSetting = 'off' | 'messages' | 'verbose';

export function traceSetting(value: unknown): TraceSetting {
  return value === 'messages' || value === 'verbose' ? value : 'off';
}

/** What the trace channel writes to; made lazily so an unused channel never shows up. */
export interface LineSink {
  appendLine(line: string): void;
  append(text: string): void;
  replace(text: string): void;
  clear(): void;
  show(preserveFocus?: boolean): void;
  hide(): void;
  dispose(): void;
}

type Listener = (level: number) => void;

export class SettingTraceChannel {
  readonly name = 'flashls Trace';
  private sink: LineSink | undefined;
  private readonly listeners = new Set<Listener>();
  private level: number;

  constructor(private readonly makeSink: () => LineSink, private readonly setting: () => unknown) {
    this.level = this.levelFor(setting());
  }

  get logLevel(): number {
    return this.level;
  }

  /** Call on every configuration change: tells the client when tracing turns on or off. */
  settingChanged(): void {
    const level = this.levelFor(this.setting());
    if (level === this.level) return;
    this.level = level;
    for (const listener of this.listeners) listener(level);
  }

  onDidChangeLogLevel = (listener: Listener): { dispose(): void } => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  trace(message: string): void {
    if (this.level === LOG_LEVEL_TRACE) this.out().appendLine(message);
  }
  debug(message: string): void { this.trace(message); }
  info(message: string): void { this.out().appendLine(message); }
  warn(message: string): void { this.out().appendLine(`[warning] ${message}`); }
  error(message: string | Error): void { this.out().appendLine(`[error] ${String(message)}`); }
  append(text: string): void { this.out().append(text); }
  appendLine(line: string): void { this.out().appendLine(line); }
  replace(text: string): void { this.out().replace(text); }
  clear(): void { this.sink?.clear(); }
  show(preserveFocus?: boolean): void { this.out().show(preserveFocus); }
  hide(): void { this.sink?.hide(); }
  dispose(): void {
    this.sink?.dispose();
    this.sink = undefined;
    this.listeners.clear();
  }

  private levelFor(value: unknown): number {
    return traceSetting(value) === 'off' ? LOG_LEVEL_INFO : LOG_LEVEL_TRACE;
  }

  private out(): LineSink {
    this.sink ??= this.makeSink();
    return this.sink;
  }
}
