import type * as vscode from 'vscode';
import type { CheckpointSummary } from '../../core/store';

// The Checkpoints view's nodes: what a command gets when run from the tree (commands import these types only).

export interface FolderNode {
  readonly kind: 'folder';
  readonly folder: vscode.WorkspaceFolder;
}

export interface PlanNode {
  readonly kind: 'plan';
  readonly folder: vscode.WorkspaceFolder;
  /** The plan as the checkpoints name it (an absolute path, or a plan folder name for JSON checkpoints). */
  readonly plan: string;
  /** "fix-auth-race · step 3 of 7". */
  readonly label: string;
  /** "step 3 of 7" (the plan file's progress now, else as its newest checkpoint recorded it). */
  readonly step?: string;
  readonly children: ItemNode[];
}

export interface ItemNode {
  readonly kind: 'checkpoint';
  readonly folder: vscode.WorkspaceFolder;
  readonly summary: CheckpointSummary;
  /** Saved on another branch than the folder's current one. */
  readonly branchMismatch: boolean;
  readonly currentBranch: string | undefined;
  readonly restricted: boolean;
}

/** A line of text in the tree: an error listing a folder, or "no checkpoints" under a folder node. */
export interface MessageNode {
  readonly kind: 'message';
  readonly folder?: vscode.WorkspaceFolder;
  readonly message: string;
  readonly isError: boolean;
}

export type CheckpointNode = FolderNode | PlanNode | ItemNode | MessageNode;
