import * as path from 'node:path';
import { errorMessage } from './errors';
import { readSmallFile, writeFileAtomic } from './files';
import type { CheckpointStore, CheckpointSummary } from './store';

/**
 * Pending restore (seed 000): the checkpoint a new session should offer to resume is the newest one saved since
 * the last resume in this memory directory. When that resume was is kept in a small state file of the product's own
 * in the memory directory, written atomically.
 */
export const STATE_FILE = '.checkpoint-state.json';
const STATE_MAX_BYTES = 64 * 1024;

export interface PendingState {
  /** ISO time of the last resume (editor or CLI). */
  lastResume?: string;
  /** The name resumed then. */
  lastResumed?: string;
}

type StateRead = { state: PendingState; problem?: undefined } | { state: PendingState; problem: string };

/** The state file's content; a missing file is an empty state, an unreadable one an empty state and the reason. */
export async function readPendingState(memoryDir: string): Promise<StateRead> {
  const file = path.join(memoryDir, STATE_FILE);
  let text: string;
  try {
    text = await readSmallFile(file, STATE_MAX_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: {} };
    return { state: {}, problem: `${file} could not be read (${errorMessage(err)})` };
  }
  try {
    const data = JSON.parse(text) as unknown;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new Error('not a JSON object');
    const o = data as Record<string, unknown>;
    const state: PendingState = {};
    if (typeof o.lastResume === 'string' && !Number.isNaN(Date.parse(o.lastResume))) state.lastResume = new Date(o.lastResume).toISOString();
    if (typeof o.lastResumed === 'string') state.lastResumed = o.lastResumed;
    return { state };
  } catch (err) {
    return { state: {}, problem: `${file} is not valid JSON (${errorMessage(err)})` };
  }
}

/**
 * Records a resume, so that checkpoints saved before it are no longer pending. Returns a warning instead of
 * throwing: the resume itself has happened. A state file that cannot be parsed is left as it is (never rewritten).
 */
export async function recordResume(memoryDir: string, name: string, when: Date): Promise<string | undefined> {
  const { problem } = await readPendingState(memoryDir);
  if (problem) return `The resume was not recorded: ${problem}; it is left as it is. Delete it to record resumes again.`;
  const state: PendingState = { lastResume: when.toISOString(), lastResumed: name };
  try {
    await writeFileAtomic(path.join(memoryDir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
    return undefined;
  } catch (err) {
    return `The resume was not recorded in ${path.join(memoryDir, STATE_FILE)}: ${errorMessage(err)}`;
  }
}

export interface Pending {
  checkpoint: CheckpointSummary;
  /** When the last resume was, if known. */
  since?: string;
  /** Why the state could not be read (the answer then ignores it). */
  problem?: string;
}

/** The newest readable Markdown checkpoint saved after the last resume; undefined when there is none. */
export async function findPending(store: CheckpointStore): Promise<Pending | undefined> {
  const [{ state, problem }, items] = await Promise.all([readPendingState(store.memoryDir), store.list({ includeJson: false, details: false })]);
  const since = state.lastResume;
  const newest = items.find((c) => !c.unreadable && c.source === 'markdown' && (since === undefined || Date.parse(c.saved) > Date.parse(since)));
  if (!newest) return undefined;
  return { checkpoint: newest, since, problem };
}
