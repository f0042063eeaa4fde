/**
 * Client side of the server's code-action commands. The "Rewrite…" action carries
 * `flashls.rewrite {uri, range}` without an instruction (the client must ask for it);
 * the "Explain" action runs `flashls.explain`, whose Markdown result editors ignore.
 * No `vscode` import: the editor services come in as `CodeActionUi`, so the whole
 * flow runs under node's test runner.
 */
import { markdownOf, SERVER_COMMANDS } from './commands';

/** What the middleware does with one server command invocation. */
export type Interception =
  | { kind: 'askInstruction' } // ask the user, then send with the instruction
  | { kind: 'showExplanation' } // send, then show the returned Markdown
  | { kind: 'passThrough' }; // send as is

function firstObject(args: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(args) || args.length === 0) return undefined;
  const first = args[0];
  return first && typeof first === 'object' && !Array.isArray(first) ? first as Record<string, unknown> : undefined;
}

/**
 * A `flashls.rewrite` argument list that the server would refuse for lack of an
 * instruction: its first argument is an object with neither `instruction` nor `intent`.
 * Anything else (intent-based rewrites, malformed arguments) goes to the server as is,
 * which reports bad input itself.
 */
export function needsInstruction(args: unknown): boolean {
  const first = firstObject(args);
  if (!first) return false;
  const has = (key: string) => first[key] !== undefined && first[key] !== null && first[key] !== '';
  return !has('instruction') && !has('intent');
}

export function interceptFor(command: string, args: unknown): Interception {
  if (command === SERVER_COMMANDS.rewrite && needsInstruction(args)) return { kind: 'askInstruction' };
  if (command === SERVER_COMMANDS.explain) return { kind: 'showExplanation' };
  return { kind: 'passThrough' };
}

/** The arguments with the instruction added to the first one (the rest unchanged). */
export function withInstruction(args: unknown[], instruction: string): unknown[] {
  const first = firstObject(args) ?? {};
  return [{ ...first, instruction }, ...args.slice(1)];
}

/** The editor services the middleware needs; injected so the flow is unit-tested. */
export interface CodeActionUi {
  /** The instruction, or undefined when the user cancelled or entered nothing. */
  askInstruction(): Promise<string | undefined>;
  /** Run `work` while showing `title` as progress. */
  progress<T>(title: string, work: () => Promise<T>): Promise<T>;
  showExplanation(markdown: string): Promise<void>;
  rewritten(result: unknown): void;
  failed(command: string, error: unknown): void;
}

export type ExecuteNext = (command: string, args: unknown[]) => unknown;

/**
 * `middleware.executeCommand` for vscode-languageclient. When `next` rejects, the
 * client has already reported the failed request, so the error ends here (`failed`
 * logs it) instead of reaching VS Code as a second notification.
 */
export function codeActionMiddleware(ui: CodeActionUi) {
  return async (command: string, args: unknown[], next: ExecuteNext): Promise<unknown> => {
    const decision = interceptFor(command, args);
    if (decision.kind === 'passThrough') return next(command, args);
    try {
      if (decision.kind === 'askInstruction') {
        const instruction = await ui.askInstruction();
        if (!instruction) return undefined; // cancelled: nothing is sent
        const result = await ui.progress('rewriting selection',
          async () => next(command, withInstruction(args, instruction)));
        ui.rewritten(result);
        return result;
      }
      const result = await ui.progress('explaining', async () => next(command, args));
      if (result !== undefined && result !== null) await ui.showExplanation(markdownOf(result, 'explanation'));
      return result;
    } catch (error) {
      ui.failed(command, error);
      return undefined;
    }
  };
}
