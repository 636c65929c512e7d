import type { SnapshotChange } from '../core/snapshot/reading';

/** The command ids (as in package.json), shared by the commands, the views and the status bar. */
export const CommandId = {
  save: 'checkpoint.save',
  saveToPlan: 'checkpoint.saveToPlan',
  saveAndCommit: 'checkpoint.saveAndCommit',
  combine: 'checkpoint.combine',
  resume: 'checkpoint.resume',
  undo: 'checkpoint.undo',
  delete: 'checkpoint.delete',
  deleteAll: 'checkpoint.deleteAll',
  open: 'checkpoint.open',
  copyResumePrompt: 'checkpoint.copyResumePrompt',
  revealInExplorer: 'checkpoint.revealInExplorer',
  openMemoryFolder: 'checkpoint.openMemoryFolder',
  switchBranch: 'checkpoint.switchBranch',
  statusBarActions: 'checkpoint.statusBarActions',
  refresh: 'checkpoint.refresh',
  showLog: 'checkpoint.showLog',
  installCommandLine: 'checkpoint.installCommandLine',
  connectClaude: 'checkpoint.connectClaude',
  disconnectClaude: 'checkpoint.disconnectClaude',
  doctor: 'checkpoint.doctor',
  compareWithNow: 'checkpoint.compareWithNow',
  compareWithSavedHead: 'checkpoint.compareWithSavedHead',
  restoreToBranch: 'checkpoint.restoreToBranch',
  push: 'checkpoint.push',
  pull: 'checkpoint.pull',
} as const;

/** A command id of package.json's `contributes.commands` (a test keeps the two lists equal). */
export type CommandIdValue = (typeof CommandId)[keyof typeof CommandId];

/** The read-only documents of a snapshot's files: `checkpoint-snapshot:/<path>?{"top","commit"}`. */
export const SNAPSHOT_SCHEME = 'checkpoint-snapshot';

// ---- options objects: what a command gets from tests, other commands and other extensions ----------------------

/** The `{ folder?, name? }` part every command's options object may carry. */
export interface TargetOptions {
  /** Workspace folder path, name or URI; default: the current folder. */
  folder?: string;
  name?: string;
}

/** `checkpoint.save` / `checkpoint.saveToPlan` without any UI. */
export interface SaveOptions {
  folder?: string;
  name: string;
  leftOff: string;
  done?: string[];
  failed?: string[];
  /** Plan file (absolute, or relative to the folder). */
  plan?: string;
  /** Overwrite an existing checkpoint of that name. */
  force?: boolean;
}

/** `checkpoint.saveAndCommit` without any UI: the save's options, and `push` instead of `checkpoint.commit.push`. */
export interface SaveAndCommitOptions extends SaveOptions {
  push?: boolean;
}

/** `checkpoint.combine` without any UI. */
export interface CombineOptions {
  folder?: string;
  /** The new checkpoint's name. */
  name: string;
  /** The checkpoints to combine (at least two). */
  sources: string[];
  /** Move the sources to the trash once combined. */
  trashSources?: boolean;
}

/**
 * `checkpoint.resume` from tests and other commands: `{ name, folder?, keep?, onOtherBranch? }` (keep defaults to
 * `checkpoint.afterResume`; without `onOtherBranch`, a checkpoint of another branch asks first).
 */
export interface ResumeOptions extends TargetOptions {
  name: string;
  keep?: boolean;
  /** Saved on another branch than the current one: ask (default), or switch to it first, or resume here. */
  onOtherBranch?: 'ask' | 'switch' | 'here';
}

/** `checkpoint.deleteAll` without the modal confirmation: `{ folder?, confirm: false }`. */
export interface DeleteAllOptions extends TargetOptions {
  confirm?: boolean;
}

/** `checkpoint.undo` options: the trash path a resume or delete reported. */
export interface UndoOptions {
  folder?: string;
  name?: string;
  trashPath: string;
  /** The trashed file is the version an overwrite replaced: Undo puts it back over the newer one (which goes to the trash). */
  overwrite?: boolean;
}

/** `checkpoint.switchBranch` options; without `branch`, the active checkpoint's branch. */
export interface SwitchBranchOptions extends TargetOptions {
  branch?: string;
}

export type StatusBarAction = 'switch' | 'resume' | 'open' | 'dismiss';

/** `checkpoint.statusBarActions` without the pick: `{ action }` (one the pick would offer). */
export interface StatusBarActionsOptions {
  action: StatusBarAction;
}

/** `checkpoint.restoreToBranch` options: `checkout` decides without asking whether to check the new branch out. */
export interface RestoreToBranchOptions extends TargetOptions {
  checkout?: boolean;
}

/** `checkpoint.push` / `checkpoint.pull` options: `name` (push only; default: all) and a configured remote's name. */
export interface HandoffOptions extends TargetOptions {
  remote?: string;
}

/** What Compare with Now / with Saved HEAD showed: the diff editor's title and each file with its two sides' URIs. */
export interface CompareResult {
  title: string;
  files: (SnapshotChange & { original?: string; modified?: string })[];
  /** Files of the work tree left out of the comparison as too large (Compare with Now; a warning says so). */
  skipped: string[];
}
