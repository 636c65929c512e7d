// The store's shapes: what a listing holds, what a save takes and returns, and the errors a caller tells apart.
import { CheckpointError } from './errors';
import type { Checkpoint } from './checkpoint';
import { formatLocalDateTime } from './dates';
import { printable } from './names';
import { didYouMean, nearest } from './suggest';
import { oneLine } from './escaping';
import type { SnapshotOptions } from './snapshot/codeSnapshot';
import type { GitState } from './git';
import type { Reads } from './reads';

/** Listing reads only this much of each file: front matter and the first sections are at the top. */
export const LIST_READ_BYTES = 64 * 1024;
/** MEMORY.md is read whole up to this size; a larger one is refused (nothing is changed). */
export const MEMORY_INDEX_MAX_BYTES = 64 * 1024 * 1024;
/** `show` and `resume` read at most this much. */
export const SHOW_READ_BYTES = 4 * 1024 * 1024;
export const TRASH_DIR = '.trash';

export interface CheckpointSummary {
  name: string;
  path: string;
  branch: string;
  saved: string;
  description: string;
  plan?: string;
  planStep?: number;
  planSteps?: number;
  /** Saved by a hook (front matter `auto: true`); a name alone never makes a checkpoint automatic. */
  auto?: boolean;
  /** Why the file's front matter was skipped: it was read by its body (see Checkpoint.frontMatterSkipped). */
  frontMatterSkipped?: string;
  /** Why the file could not be read; the other fields are then best effort. */
  unreadable?: string;
  /** `json` for the read-only JSON checkpoints of plan-scoped procedures. */
  source: 'markdown' | 'json';
  /** The parsed checkpoint (from the first {@link LIST_READ_BYTES}), for tooltips. */
  checkpoint?: Checkpoint;
}

export interface SaveInput {
  name: string;
  leftOff?: string;
  done?: string[];
  failed?: string[];
  decisions?: string[];
  questions?: string[];
  /** What blocks the work (`blockers` in JSON checkpoints): the `## Blockers` section. */
  blockers?: string[];
  /** Plan file path (absolute, or relative to the workspace folder). */
  plan?: string;
  force?: boolean;
  /**
   * The branch and the modified files, given instead of asking git (a hook that read them already); no code snapshot
   * is taken then. Without it the save runs git's status scan itself (unless the store may not run git).
   */
  git?: SaveGit | Promise<SaveGit>;
  /** Saved by a hook: marked `auto: true`, with the agent session it belongs to. */
  auto?: { session?: string };
  /**
   * Asked under the memory folder's lock, right before anything is written: a reason refuses the save
   * ({@link SaveSkippedError}; nothing written). What decides between concurrent writers is decided here.
   */
  unless?: () => Promise<string | undefined>;
  /** The code snapshot (default: on in a git work tree; never without git or with `git` given). */
  snapshot?: Pick<SnapshotOptions, 'enabled' | 'limitBytes' | 'fileLimitBytes' | 'timeLimitMs'>;
}

/** What a checkpoint records of git: its branch and modified files. */
export type SaveGit = Pick<GitState, 'branch' | 'modifiedFiles'>;

export interface SaveResult {
  checkpoint: Checkpoint;
  path: string;
  overwritten: boolean;
  /** Where the previous version went when this save overwrote one (its trash path, for Undo and `restore`). */
  replaced?: string;
  warnings: string[];
}

export interface ResumeResult {
  checkpoint: Checkpoint;
  path: string;
  currentBranch: string;
  branchMismatch: boolean;
  consumed: boolean;
  /** Where the consumed file went (for Undo). */
  trashPath?: string;
  source: 'markdown' | 'json';
  /** Problems that did not stop the resume (its record for `pending` could not be written). */
  warnings?: string[];
}

/** A checkpoint put back from the trash: from where, and where the live one it replaced went. */
export interface RestoredCheckpoint {
  checkpoint: Checkpoint;
  path: string;
  restoredFrom: string;
  replaced?: string;
}

export interface StoreOptions {
  memoryDir: string;
  /** Workspace folder: git runs here; relative plan paths resolve against it. */
  cwd: string;
  /** False in an untrusted workspace: git never runs and the branch is unknown. */
  allowGit?: boolean;
  now?: () => Date;
  /**
   * The memory directory is `<folder>/.claude/memory` inside a git repository: when this store creates it, it
   * writes a `.gitignore` of `*` in it first, so that checkpoints are never committed by accident.
   */
  ignoreInGit?: boolean;
  /** The home folder `~/` plan paths expand to (default: HOME). */
  home?: string;
  /**
   * How the store reads (default: through the thread pool). The CLI reads inline: a one-shot process where nothing
   * else waits on the thread, and where thousands of small reads are several times faster so. See {@link Reads}.
   */
  reads?: Reads;
  /** Time limit of each git call (default GIT_TIMEOUT_MS); the save goes on without git data after it. */
  gitTimeoutMs?: number;
}

/** Raised when saving would overwrite a checkpoint; carries the existing one. */
/** A save that {@link SaveInput.unless} refused under the lock: nothing was written. */
export class SaveSkippedError extends CheckpointError {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SaveSkippedError';
  }
}

export class CheckpointExistsError extends CheckpointError {
  constructor(
    readonly existing: Checkpoint | undefined,
    readonly existingPath: string,
    name: string,
  ) {
    const detail = existing
      ? ` (saved ${formatLocalDateTime(new Date(existing.saved))}, left off: "${printable(existing.description, 120)}")`
      : '';
    super(`A checkpoint named "${name}" already exists${detail}.`);
    this.name = 'CheckpointExistsError';
  }
}

/**
 * Raised by resume when the file is gone but its index bullet was still there: the orphan bullet has been
 * removed. Not a failure of the user's: the CLI reports it and exits 0.
 */
export class OrphanRemovedError extends CheckpointError {
  constructor(readonly checkpointName: string) {
    super(`Checkpoint file missing (cleaned up stale entry "${checkpointName}").`);
    this.name = 'OrphanRemovedError';
  }
}

/** Raised when no checkpoint has the name asked for; says which names are near it ("did you mean"). */
export class CheckpointNotFoundError extends CheckpointError {
  /** The names nearest the one asked for, nearest first. */
  readonly suggestions: string[];
  constructor(asked: string, where: string, candidates: Iterable<string>, what = 'checkpoint') {
    super(`No ${what} named "${printable(asked)}" in ${where}.${didYouMean(asked, candidates, (n) => `"${printable(n, 64)}"`)}`);
    this.name = 'CheckpointNotFoundError';
    this.suggestions = nearest(asked, candidates);
  }
}

/**
 * A checkpoint file that was read but is no checkpoint (neither its front matter nor its body can be read): `raw` is
 * what could be read of it, for the person to recover by hand. The file is left as it is.
 */
export class UnreadableCheckpointError extends CheckpointError {
  constructor(
    message: string,
    readonly file: string,
    readonly raw: string,
  ) {
    super(message);
    this.name = 'UnreadableCheckpointError';
  }
}

/** The line that goes with a checkpoint file shown raw: how to recover it by hand. */
export const manualRecovery = (file: string): string =>
  `Manual recovery: the text above is what could be read of ${oneLine(file)}; copy what you need from it (the file is left as it is).`;

/**
 * Raised under the lock when the lookup of the name a save, combine or pull asked for now leads to another checkpoint
 * (`other`), written meanwhile by another writer: writing `name` would make twins. Nothing was written.
 */
export class TwinNameError extends CheckpointError {
  constructor(
    readonly other: string,
    readonly written: string,
  ) {
    super(`Checkpoint "${printable(other, 64)}" was written meanwhile, and "${printable(written, 64)}" would be read as the same name; nothing was written. Save as "${printable(other, 64)}" (to overwrite it) or choose another name.`);
    this.name = 'TwinNameError';
  }
}

/** Raised by resume without a name when there are several checkpoints. */
export class AmbiguousCheckpointError extends CheckpointError {
  constructor(readonly candidates: CheckpointSummary[]) {
    super(`There is no single checkpoint to resume (${candidates.length} found); name one: ${candidates.map((c) => c.name).join(', ')}.`);
    this.name = 'AmbiguousCheckpointError';
  }
}

