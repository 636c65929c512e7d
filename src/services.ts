import type * as vscode from 'vscode';
import type { ContextKeys } from './contextKeys';
import type { CheckpointStatusBar } from './statusBar';
import type { WorkspaceModel } from './workspaceModel';

/** What commands work with; built once in `activate`. */
export interface Services {
  readonly log: vscode.LogOutputChannel;
  readonly model: WorkspaceModel;
  readonly statusBar: CheckpointStatusBar;
  readonly contextKeys: ContextKeys;
}
