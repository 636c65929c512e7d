import type { CheckpointSummary } from './store';

/**
 * A folder's active checkpoint: the one last saved or resumed in this window while it is still the newest, else the
 * newest readable checkpoint file of the folder's memory directory.
 */
export interface ActiveCheckpoint {
  name: string;
  /** Branch it was saved on ('' when unknown). */
  branch: string;
  saved: string;
  /** Where the file is now (its trash path once consumed). */
  path: string;
  /**
   * When it became the active one (ISO): when it was saved or resumed in this window, or its `saved` time when it
   * is the newest file. Records written before this field existed lack it: their `saved` time counts.
   */
  at?: string;
}

export interface ActivePick {
  /** The active checkpoint, Dismiss aside; undefined when there is none. */
  active?: ActiveCheckpoint;
  /** The active checkpoint is hidden by a Dismiss. */
  dismissed: boolean;
  /** A checkpoint became active after the Dismiss: the Dismiss is over (forget it). */
  dismissalOver: boolean;
  /** What a Dismiss now records: hides the active checkpoint and everything saved up to now. */
  dismissUntil: string;
}

/** Milliseconds of an ISO time; -Infinity when it is not a date (never newer than anything). */
function timeOf(iso: string | undefined): number {
  const t = iso === undefined ? NaN : Date.parse(iso);
  return Number.isNaN(t) ? -Infinity : t;
}

/** When a checkpoint became the active one: saved or resumed in this window, else its `saved` time. */
function activeSince(a: ActiveCheckpoint): number {
  return timeOf(a.at ?? a.saved);
}

/**
 * The active-checkpoint rule. `own`: the one saved or resumed in this window (its record); `files`: the folder's
 * checkpoint files as last read (undefined until listed: then `own` is the answer); `dismissedUntil`: the status bar's
 * Dismiss (ISO), hiding checkpoints that became active up to then. `own` wins while its file is still there and no
 * file was saved after it became active; otherwise the newest readable Markdown file (by `saved`, then by name).
 */
export function pickActive(
  own: ActiveCheckpoint | undefined,
  files: Iterable<CheckpointSummary> | undefined,
  dismissedUntil: string | undefined,
  now: number = Date.now(),
): ActivePick {
  const active = activeOf(own, files);
  const dismissalOver = active !== undefined && dismissedUntil !== undefined && activeSince(active) > timeOf(dismissedUntil);
  return {
    active,
    dismissed: dismissedUntil !== undefined && !dismissalOver,
    dismissalOver,
    // A `saved` time ahead of the clock still counts as dismissed.
    dismissUntil: new Date(Math.max(now, active ? activeSince(active) : -Infinity)).toISOString(),
  };
}

function activeOf(own: ActiveCheckpoint | undefined, files: Iterable<CheckpointSummary> | undefined): ActiveCheckpoint | undefined {
  if (!files) return own;
  let newest: CheckpointSummary | undefined;
  let ownFile: CheckpointSummary | undefined;
  for (const f of files) {
    if (f.unreadable || f.source !== 'markdown') continue;
    if (own && f.path === own.path) ownFile = f;
    const d = newest ? timeOf(f.saved) - timeOf(newest.saved) : 1;
    if (d > 0 || (d === 0 && newest && f.name < newest.name)) newest = f;
  }
  if (own && ownFile && !(newest && timeOf(newest.saved) > activeSince(own))) {
    return { name: ownFile.name, branch: ownFile.branch, saved: ownFile.saved, path: ownFile.path, at: own.at ?? own.saved };
  }
  return newest && { name: newest.name, branch: newest.branch, saved: newest.saved, path: newest.path, at: newest.saved };
}
