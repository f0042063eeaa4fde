/** VS Code entry point: start flashls, wire its commands, status bar and settings. */
import * as os from 'os';
import * as readline from 'readline';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import {
  CLIENT_COMMANDS,
  ExecuteCommandParams,
  explainParams,
  formatContext,
  markdownOf,
  normalizeInstruction,
  rewriteOutcome,
  rewriteParams,
  serverSettings,
  showContextParams,
  showUsageParams,
  toggleTarget,
  validateInstruction,
} from './commands';
import { codeActionMiddleware } from './codeActions';
import { commandLine, discoverServer, Discovery, INSTALL_HINT } from './discovery';
import { escapeHtml, markdownPage } from './html';
import { registerNextEdit } from './nextEdit';
import { nodeProbe } from './probe';
import { activeInterpreter } from './python';
import { stderrRouter } from './serverLog';
import { formatStatus, parseStatus, StatusParams } from './status';
import { SettingTraceChannel } from './trace';
import { TOGGLE_LANGUAGE_COMMAND } from './languages';
import { activeLanguage, activeLanguageEnabled, toggleCompletionsForLanguage } from './languageToggle';

const SECTION = 'flashls';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
let lastStatus: StatusParams | { state: 'starting' | 'stopped'; message?: string } = { state: 'starting' };
let lastFailure: string | undefined;
let markdownPanel: vscode.WebviewPanel | undefined;
let traceChannel: SettingTraceChannel;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('flashls', { log: true });
  statusItem = vscode.window.createStatusBarItem('flashls.status', vscode.StatusBarAlignment.Right, 100);
  statusItem.name = 'flashls';
  statusItem.command = CLIENT_COMMANDS.statusMenu;
  traceChannel = new SettingTraceChannel(
    () => vscode.window.createOutputChannel('flashls Trace'),
    () => vscode.workspace.getConfiguration(SECTION).get('trace.server'));
  context.subscriptions.push(output, statusItem, traceChannel);
  renderStatus();
  statusItem.show();

  const register = (id: string, run: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  register(CLIENT_COMMANDS.rewriteSelection, rewriteSelection);
  register(CLIENT_COMMANDS.explainSelection, explainSelection);
  register(CLIENT_COMMANDS.toggleCompletions, toggleCompletions);
  register(CLIENT_COMMANDS.showContext, showContext);
  register(CLIENT_COMMANDS.showUsage, showUsage);
  register(CLIENT_COMMANDS.restartServer, () => restart());
  register(CLIENT_COMMANDS.statusMenu, statusMenu);
  register(TOGGLE_LANGUAGE_COMMAND, toggleCompletionsForLanguage);
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(() => renderStatus()));
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(onConfigurationChanged));
  // Next edit suggestions: decorations + accept / jump / dismiss commands.
  context.subscriptions.push(...registerNextEdit(vscode, () => client));

  // Finding the server may ask a Python interpreter: do not hold up activation.
  void startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

// -- server lifecycle -------------------------------------------------------

async function findServer(): Promise<Discovery> {
  const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
  const interpreter = await activeInterpreter(resource);
  const config = vscode.workspace.getConfiguration(SECTION);
  return discoverServer(
    {
      serverPath: config.get<string>('serverPath', ''),
      serverPathOrigin: settingOrigin(config.inspect<string>('serverPath')),
      remoteName: vscode.env.remoteName,
      pythonInterpreter: interpreter?.path,
      pythonSource: interpreter?.source,
      pathEnv: process.env.PATH ?? '',
      pathExt: process.env.PATHEXT,
      platform: process.platform,
      home: os.homedir(),
    },
    nodeProbe,
  );
}

/** Which settings file the effective value comes from, for error messages. */
function settingOrigin(inspected: { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown } | undefined): string | undefined {
  if (inspected?.workspaceFolderValue !== undefined) return 'Workspace Folder settings';
  if (inspected?.workspaceValue !== undefined) return 'Workspace settings';
  if (inspected?.globalValue !== undefined) return vscode.env.remoteName ? 'Remote settings' : 'User settings';
  return undefined;
}

async function startClient(): Promise<void> {
  lastStatus = { state: 'starting' };
  renderStatus();
  const found = await findServer();
  if (!found.ok) {
    lastFailure = found.message;
    output.error(found.message);
    output.info(`Looked for the server in:\n  ${found.tried.join('\n  ')}`);
    lastStatus = { state: 'stopped', message: found.message };
    renderStatus();
    void showMissingServer(found.message);
    return;
  }
  lastFailure = undefined;
  output.info(`Starting ${commandLine(found.command, found.args)} (from ${found.source})`);
  const serverOptions: ServerOptions = {
    command: found.command,
    args: found.args,
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    outputChannel: output,
    // flashls.trace.server alone turns tracing on (see trace.ts).
    traceOutputChannel: traceChannel as unknown as vscode.LogOutputChannel,
    // stderr lines at the level they were logged at, not all as [error] (see serverLog.ts).
    stdioOptions: {
      stdout: (input, channel) => eachLine(input, (line) => channel.info(line)),
      stderr: (input, channel) => eachLine(input, stderrRouter({
        trace: (line) => channel.trace(line),
        debug: (line) => channel.debug(line),
        info: (line) => channel.info(line),
        warn: (line) => channel.warn(line),
        error: (line) => channel.error(line),
      })),
    },
    middleware: {
      // The code actions' own commands: "Rewrite…" needs an instruction, "Explain" a view.
      executeCommand: codeActionCommand,
      workspace: {
        // The server sees only its own settings, never client-only ones like serverPath.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          if (!Array.isArray(result)) return result;
          return result.map((value, index) =>
            params.items[index]?.section === SECTION ? serverSettings(value) : value);
        },
      },
    },
  };
  const next = new LanguageClient(SECTION, 'flashls', serverOptions, clientOptions);
  next.onNotification('flashls/status', (raw: unknown) => {
    lastStatus = parseStatus(raw);
    renderStatus();
  });
  next.onDidChangeState((event) => {
    if (event.newState === State.Stopped) {
      lastStatus = { state: 'stopped' };
    } else if (event.newState === State.Running && lastStatus.state !== 'thinking') {
      lastStatus = { state: 'ready' };
    }
    renderStatus();
  });
  client = next;
  try {
    await next.start();
  } catch (error) {
    const message = `flashls failed to start: ${errorText(error)}`;
    lastFailure = message;
    lastStatus = { state: 'error', message };
    renderStatus();
    void vscode.window.showErrorMessage(message, 'Show Output').then((choice) => {
      if (choice) output.show();
    });
  }
}

function eachLine(input: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', onLine);
}

async function stopClient(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (error) {
      output.warn(`Stopping flashls: ${errorText(error)}`);
    }
  }
}

async function restart(): Promise<void> {
  await stopClient();
  await startClient();
}

async function showMissingServer(message: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(
    message, 'Copy Install Command', 'Open Settings', 'Show Details');
  if (choice === 'Copy Install Command') {
    await vscode.env.clipboard.writeText(INSTALL_HINT);
    vscode.window.setStatusBarMessage(`Copied "${INSTALL_HINT}"`, 3000);
  } else if (choice === 'Open Settings') {
    await vscode.commands.executeCommand('workbench.action.openSettings', 'flashls.serverPath');
  } else if (choice === 'Show Details') {
    output.show();
  }
}

function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
  if (event.affectsConfiguration('flashls.serverPath')) {
    void restart();
    return;
  }
  if (!event.affectsConfiguration(SECTION)) return;
  if (event.affectsConfiguration('flashls.trace.server')) traceChannel.settingChanged();
  renderStatus();
  if (client?.isRunning()) {
    const settings = serverSettings(vscode.workspace.getConfiguration(SECTION));
    void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { [SECTION]: settings } });
  }
}

// -- status bar -------------------------------------------------------------

function completionsEnabled(): boolean {
  const resource = vscode.window.activeTextEditor?.document.uri;
  return vscode.workspace.getConfiguration(SECTION, resource).get<boolean>('completion.enable', true);
}

function renderStatus(): void {
  const view = formatStatus(lastStatus, completionsEnabled(), vscode.window.activeTextEditor?.document.uri.toString());
  statusItem.text = view.text;
  statusItem.tooltip = view.tooltip;
  statusItem.backgroundColor = view.isError ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
}

async function statusMenu(): Promise<void> {
  const items: (vscode.QuickPickItem & { run: () => unknown })[] = [
    { label: completionsEnabled() ? 'Turn inline completions off' : 'Turn inline completions on', run: toggleCompletions },
    ...(activeLanguage() ? [{
      label: `Turn inline completions ${activeLanguageEnabled() ? 'off' : 'on'} for ${activeLanguage()}`,
      run: () => toggleCompletionsForLanguage(),
    }] : []),
    { label: 'Show usage', run: showUsage },
    { label: 'Show context for cursor', run: showContext },
    { label: 'Restart server', run: restart },
    { label: 'Open settings', run: () => vscode.commands.executeCommand('workbench.action.openSettings', SECTION) },
    { label: 'Show output', run: () => output.show() },
  ];
  const picked = await vscode.window.showQuickPick(items, { title: formatStatus(lastStatus, completionsEnabled()).tooltip.split('\n')[0] });
  if (picked) await picked.run();
}

// -- commands ---------------------------------------------------------------

function runningClient(): LanguageClient | undefined {
  if (client?.isRunning()) return client;
  const why = lastFailure ?? 'the flashls server is not running.';
  void vscode.window.showErrorMessage(`flashls: ${why}`, 'Restart Server', 'Show Output').then((choice) => {
    if (choice === 'Restart Server') void restart();
    else if (choice === 'Show Output') output.show();
  });
  return undefined;
}

async function execute(c: LanguageClient, params: ExecuteCommandParams, title: string): Promise<unknown> {
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: `flashls: ${title}` },
      () => c.sendRequest(ExecuteCommandRequest.type, params),
    );
  } catch (error) {
    void vscode.window.showErrorMessage(`flashls: ${title} failed: ${errorText(error)}`);
    return undefined;
  }
}

/** The selection, or the cursor's whole line when nothing is selected. */
function selectionRange(editor: vscode.TextEditor): vscode.Range {
  const selection = editor.selection;
  return selection.isEmpty ? editor.document.lineAt(selection.active.line).range : selection;
}

function activeEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) void vscode.window.showInformationMessage('flashls: open a file and select some code first.');
  return editor;
}

/** The rewrite instruction from an input box; undefined when cancelled or empty. */
async function askInstruction(): Promise<string | undefined> {
  return normalizeInstruction(await vscode.window.showInputBox({
    title: 'flashls: Rewrite Selection',
    prompt: 'How should the selected code change?',
    placeHolder: 'e.g. use a dataclass; add type hints; handle the empty list',
    validateInput: validateInstruction,
  }));
}

function reportRewrite(result: unknown): void {
  const outcome = rewriteOutcome(result);
  if (outcome) vscode.window.setStatusBarMessage(`flashls: ${outcome}`, 4000);
}

async function rewriteSelection(): Promise<void> {
  const editor = activeEditor();
  const c = editor && runningClient();
  if (!editor || !c) return;
  const range = selectionRange(editor);
  const instruction = await askInstruction();
  if (!instruction) return;
  const conv = c.code2ProtocolConverter;
  reportRewrite(await execute(
    c, rewriteParams(conv.asUri(editor.document.uri), conv.asRange(range), instruction), 'rewriting selection'));
}

/** `middleware.executeCommand`: "Rewrite…" asks for its instruction, "Explain" shows its answer. */
const codeActionCommand = codeActionMiddleware({
  askInstruction,
  progress: (title, work) => Promise.resolve(vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `flashls: ${title}` }, work)),
  showExplanation: (markdown) => showMarkdown('flashls: Explain', markdown),
  rewritten: reportRewrite,
  failed: (command, error) => output.warn(`${command}: ${errorText(error)}`),
});

async function explainSelection(): Promise<void> {
  const editor = activeEditor();
  const c = editor && runningClient();
  if (!editor || !c) return;
  const conv = c.code2ProtocolConverter;
  const range = selectionRange(editor);
  const result = await execute(c, explainParams(conv.asUri(editor.document.uri), conv.asRange(range)), 'explaining');
  if (result !== undefined) await showMarkdown('flashls: Explain', markdownOf(result, 'explanation'));
}

async function showContext(): Promise<void> {
  const editor = activeEditor();
  const c = editor && runningClient();
  if (!editor || !c) return;
  const conv = c.code2ProtocolConverter;
  const position = editor.selection.active;
  const result = await execute(
    c, showContextParams(conv.asUri(editor.document.uri), conv.asPosition(position)), 'assembling context');
  if (result === undefined) return;
  const where = `${vscode.workspace.asRelativePath(editor.document.uri)}:${position.line + 1}:${position.character + 1}`;
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: formatContext(result, where) });
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true });
}

async function showUsage(): Promise<void> {
  const c = runningClient();
  if (!c) return;
  const result = await execute(c, showUsageParams(), 'reading usage');
  if (result !== undefined) await showMarkdown('flashls: Usage', markdownOf(result, 'usage report'));
}

async function toggleCompletions(): Promise<void> {
  const resource = vscode.window.activeTextEditor?.document.uri;
  const config = vscode.workspace.getConfiguration(SECTION, resource);
  const enabled = !config.get<boolean>('completion.enable', true);
  const target = {
    global: vscode.ConfigurationTarget.Global,
    workspace: vscode.ConfigurationTarget.Workspace,
    workspaceFolder: vscode.ConfigurationTarget.WorkspaceFolder,
  }[toggleTarget(config.inspect('completion.enable'))];
  await config.update('completion.enable', enabled, target);
  vscode.window.setStatusBarMessage(`flashls: inline completions ${enabled ? 'on' : 'off'}`, 3000);
}

async function showMarkdown(title: string, markdown: string): Promise<void> {
  let body: string;
  try {
    body = await vscode.commands.executeCommand<string>('markdown.api.render', markdown);
  } catch {
    body = `<pre>${escapeHtml(markdown)}</pre>`;
  }
  if (!markdownPanel) {
    markdownPanel = vscode.window.createWebviewPanel(
      'flashls.markdown', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: false, enableFindWidget: true });
    markdownPanel.onDidDispose(() => { markdownPanel = undefined; });
  }
  markdownPanel.title = title;
  markdownPanel.webview.html = markdownPage(body, markdownPanel.webview.cspSource, title);
  markdownPanel.reveal(vscode.ViewColumn.Beside, true);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
