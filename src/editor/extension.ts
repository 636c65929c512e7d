import { join } from 'node:path';
import vscode = require('vscode');
import { registerCommands } from './commands/registerCommands';
import { TerminalCommand } from './terminalCommand';
import { folderToolTarget, toolFolder } from './commands/toolTarget';
import { registerLanguageModelTools, registerMcpServerDefinition, toolNames, type LmApi } from '../agent/lmTools';
import { ContextKeys } from './contextKeys';
import type { Services } from './services';
import { CheckpointStatusBar } from './statusBar';
import { CheckpointTreeProvider } from './views/checkpointTree';
import { CheckpointView } from './views/checkpointView';
import { ResumeOffer } from './resumeOffer';
import { WorkspaceModel } from './workspaceModel';

/** What `activate` returns: the extension's parts, for integration tests (`getExtension(…).exports`). */
export interface CheckpointApi {
  readonly model: WorkspaceModel;
  /** The Checkpoints view's provider (it renders the model; `model.stats` counts the files read). */
  readonly tree: CheckpointTreeProvider;
  readonly statusBar: CheckpointStatusBar;
  readonly log: vscode.LogOutputChannel;
  /** The context keys as last set (VS Code cannot read them back). */
  readonly contextKeys: ContextKeys;
  /** The `checkpoint` command on the integrated terminals' PATH. */
  readonly terminalCommand: TerminalCommand;
  /** The start-up offer to resume a pending checkpoint. */
  readonly resumeOffer: ResumeOffer;
}

/**
 * Registers the view, the status bar item and the commands, and returns. No file or git I/O happens here:
 * the tree scans when VS Code first asks for its children, and the status bar's first update (which may
 * read the branch, and asks the tree for its listing) is deferred to after activation.
 */
export function activate(context: vscode.ExtensionContext): CheckpointApi {
  const log = vscode.window.createOutputChannel('Checkpoint', { log: true });
  const contextKeys = new ContextKeys();
  const model = new WorkspaceModel(context.workspaceState, log, contextKeys);
  const tree = new CheckpointTreeProvider(model, log);
  const view = vscode.window.createTreeView('checkpoint.checkpoints', { treeDataProvider: tree, showCollapseAll: true, canSelectMany: true });
  tree.bindView(view);
  const statusBar = new CheckpointStatusBar(model, contextKeys);
  const checkpointView = new CheckpointView(model, log);
  const terminalCommand = new TerminalCommand(context, log);
  const services: Services = { log, model, statusBar, contextKeys, checkpointView, terminalCommand };
  const resumeOffer = new ResumeOffer(services, context.globalState);
  context.subscriptions.push(log, model, tree, view, statusBar, checkpointView, terminalCommand, ...registerCommands(services));
  // Guarded inside: VS Code versions or hosts without the language-model or MCP APIs activate without them.
  const lmApi = vscode as unknown as LmApi;
  context.subscriptions.push(
    ...registerLanguageModelTools(
      lmApi,
      {
        target: (cwd) => folderToolTarget(services, cwd),
        memoryDir: async (cwd) => (await model.folder(toolFolder(services, cwd)).memoryDir()).dir,
        log: (message) => log.info(message),
      },
      toolNames(context.extension.packageJSON),
    ),
    ...registerMcpServerDefinition(lmApi, {
      cliPath: join(context.extensionPath, 'dist', 'cli.js'),
      nodePath: process.execPath,
      version: String((context.extension.packageJSON as { version?: unknown }).version ?? ''),
      log: (message) => log.info(message),
    }),
  );

  const timer = setTimeout(() => {
    log.info(`Activated (${vscode.workspace.isTrusted ? 'trusted' : 'Restricted Mode: git does not run'})`);
    statusBar.start();
    // The launcher is rewritten at every start (it names this version's dist/cli.js).
    void terminalCommand.launchers().catch(() => undefined);
    void resumeOffer.run();
  }, 0);
  context.subscriptions.push({ dispose: () => clearTimeout(timer) });
  return { model, tree, statusBar, log, contextKeys, terminalCommand, resumeOffer };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
