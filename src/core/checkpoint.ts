/**
 * A checkpoint, where work stopped, as the product holds it, and the values that writing and reading its file share.
 */
import { oneLine, splitAnyLines } from './escaping';

/** One checkpoint: where work stopped. */
export interface Checkpoint {
  name: string;
  /** First line of Left Off: the one-line summary in the index. */
  description: string;
  /** Branch when saved; '' when the folder is not a git repository. */
  branch: string;
  /** ISO 8601 UTC. */
  saved: string;
  plan?: string;
  planStep?: number;
  planSteps?: number;
  leftOff: string;
  done: string[];
  failed: string[];
  decisions: string[];
  questions: string[];
  /** What blocks the work (`save --blocker`; a JSON checkpoint's `blockers`): the `## Blockers` section. */
  blockers?: string[];
  modifiedFiles: string[];
  /** The checkpoints this one was combined from (front matter `sources`, the `## Sources` table). */
  sources?: CheckpointSource[];
  /** Saved by a hook (before Claude Code compacted its context), not by a person or an agent's request. */
  auto?: boolean;
  /** The agent session an automatic checkpoint belongs to (its older automatic ones are replaced). */
  session?: string;
  /**
   * Why the file's front matter was skipped (it does not parse, or holds a binary byte): the checkpoint was then read
   * by its Markdown body alone. Never written.
   */
  frontMatterSkipped?: string;
  /** HEAD's commit when saved (full object id); absent before the first commit or without a snapshot. */
  head?: string;
  /** The code snapshot's commit (refs/checkpoints/snapshots/<name>); absent when none was taken. */
  snapshot?: string;
  /** Why no code snapshot was taken when one was due (too large, took too long). */
  snapshotSkipped?: string;
  /** Files left out of the code snapshot as larger than the per-file cap. */
  snapshotLeftOut?: string[];
}

/** One checkpoint a combined checkpoint was made from: a row of its `## Sources` table. */
export interface CheckpointSource {
  name: string;
  /** ISO 8601 UTC (minute precision once read back from the table); '' when unknown. */
  saved: string;
  /** '' when unknown or not a git repository. */
  branch: string;
  planStep?: number;
  planSteps?: number;
}

/** True for a full git object id (SHA-1 or SHA-256): the only form `head` and `snapshot` take. */
export const isObjectId = (s: unknown): s is string => typeof s === 'string' && (s.length === 40 || s.length === 64) && /^[0-9a-f]+$/.test(s);

export const NONE = 'None';
export const NO_BRANCH = '(none)';

export { oneLine };

/** The description of a checkpoint: the first non-empty line of Left Off (any kind of line break ends it). */
export function describe(leftOff: string): string {
  const first = splitAnyLines(leftOff).find((l) => l.trim() !== '');
  return first ? oneLine(first) : NONE;
}

/** What a listing shows of a checkpoint. */
export type CheckpointHeader = Pick<Checkpoint, 'name' | 'description' | 'branch' | 'saved' | 'plan' | 'planStep' | 'planSteps' | 'auto' | 'frontMatterSkipped'>;
