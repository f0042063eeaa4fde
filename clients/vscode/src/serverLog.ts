/**
 * The server's stderr in the output channel at the level each line was logged at.
 *
 * vscode-languageclient writes every stderr line with `error()`, so a server's INFO
 * line showed as `[error]`. flashls prefixes its stderr lines with
 * `<date> <time> LEVEL name:`; a line without that prefix (a traceback's body) keeps
 * the level of the line before it. Pure: no `vscode` import.
 */

export type LineLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

const PREFIX = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) /;

const LEVELS: Record<string, LineLevel> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
  CRITICAL: 'error',
};

/** The level of one stderr line; `previous` for continuation lines, error before any. */
export function stderrLevel(line: string, previous: LineLevel | undefined): LineLevel {
  const match = PREFIX.exec(line);
  if (match) return LEVELS[match[1]];
  return previous ?? 'error';
}

/** The line without its timestamp: the output channel adds its own. */
export function stripTimestamp(line: string): string {
  return line.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} /, '');
}

export type LevelledLog = Record<LineLevel, (line: string) => void>;

/** A line handler for stderr that remembers the level across a multi-line record. */
export function stderrRouter(log: LevelledLog): (line: string) => void {
  let previous: LineLevel | undefined;
  return (line: string) => {
    previous = stderrLevel(line, previous);
    log[previous](stripTimestamp(line));
  };
}
