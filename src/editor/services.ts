import type * as vscode from 'vscode';
import type { TerminalCommand } from './terminalCommand';
import type { ContextKeys } from './contextKeys';
import type { CheckpointStatusBar } from './statusBar';
import type { CheckpointView } from './views/checkpointView';
import type { WorkspaceModel } from './workspaceModel';

/** What commands work with; built once in `activate`. */
export interface Services {
  readonly log: vscode.LogOutputChannel;
  readonly model: WorkspaceModel;
  readonly statusBar: CheckpointStatusBar;
  readonly contextKeys: ContextKeys;
  /** The `checkpoint` command on the integrated terminals' PATH. */
  readonly terminalCommand: TerminalCommand;
  /** Shows a checkpoint rendered (the Markdown preview of a resumed one). */
  readonly checkpointView: CheckpointView;
}
