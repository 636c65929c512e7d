/**
 * What a folder's checkpoints need from the workspace model (`FolderHost`), and what they hand it: change events
 * and the entry Undo puts back.
 */
import type * as vscode from 'vscode';
import type { CheckpointState } from './checkpointState';
import type { IndexReadStats } from '../core/checkpointIndex';
import type { ResolvedMemoryDir } from '../core/memoryDir';

/** A consumed or deleted checkpoint that Undo can put back. */
export interface UndoEntry {
  /** `folder.uri.toString()`. */
  folder: string;
  name: string;
  trashPath: string;
  /** The trashed file is the version a save overwrote: Undo puts it back over the newer one, which goes to the trash. */
  overwrite?: boolean;
}

/** The writes a folder's checkpoints go through (see `FolderCheckpoints.run`). */
export type WriteOperation = 'save' | 'resume' | 'delete' | 'deleteAll' | 'restore' | 'branch' | 'push' | 'pull' | 'combine';

export type ModelChangeKind =
  | 'memoryDir'
  | 'plansDir'
  | 'branch'
  /** The listing changed (a file event). */
  | 'checkpoints'
  /** A write of this extension ended: listing, active checkpoint and Undo are updated. */
  | 'write'
  /** The checkpoint recorded in this window or the Dismiss changed. */
  | 'active'
  | 'undo'
  | 'trust'
  | 'folders'
  | 'currentFolder';

export interface ModelChange {
  kind: ModelChangeKind;
  /** The folder concerned; undefined for workspace-wide changes. */
  folder?: vscode.WorkspaceFolder;
  operation?: WriteOperation;
}

/** A checkpoint file in a folder's memory directory was created, changed or deleted. */
export interface FileChange {
  folder: vscode.WorkspaceFolder;
  path: string;
  deleted: boolean;
}

/** What a folder's object needs from the workspace model. */
export interface FolderHost {
  readonly log: vscode.LogOutputChannel;
  readonly state: CheckpointState;
  readonly stats: IndexReadStats;
  readonly trusted: boolean;
  fire(change: ModelChange): void;
  fireFile(change: FileChange): void;
  /** Sets the workspace's Undo without an event (the write's one event follows). */
  setUndo(entry: UndoEntry | undefined): void;
  readonly lastUndo: UndoEntry | undefined;
  /** Marks the folder as the one worked in. */
  useFolder(folder: vscode.WorkspaceFolder): void;
  /** The folder's memory directory was resolved (once per resolution). */
  memoryDirResolved(resolved: ResolvedMemoryDir): void;
}
