import { join } from 'node:path';
import { errorMessage } from './errors';
import { formatLocalDate } from './dates';
import { writeFileAtomic } from './files';
import { threadPoolReads, type Reads } from './reads';
import type { CheckpointReader } from './storeReader';
import type { CheckpointSummary } from './storeTypes';

/**
 * Pending restore (a sentinel per save, consumed only by restoring that checkpoint): a live checkpoint is
 * pending until it is resumed after it was last saved. When each checkpoint was last resumed is kept in a small state
 * file of the product's own in the memory directory, written atomically; resuming one never hides another.
 */
export const STATE_FILE = '.checkpoint-state.json';
const STATE_MAX_BYTES = 64 * 1024;
/** The state file remembers at most this many resumes (the oldest go first). */
const MAX_RESUMES = 500;
/** A saved time this far past now is another machine's clock, not a time: it is never trusted. */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;

export interface PendingState {
  /** ISO time of each checkpoint's last resume, by name. */
  resumed: Record<string, string>;
}

type StateRead = { state: PendingState; problem?: undefined } | { state: PendingState; problem: string };

const isTime = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));

/** The state file's content; a missing file is an empty state, an unreadable one an empty state and the reason. */
export async function readPendingState(memoryDir: string, reads: Reads = threadPoolReads): Promise<StateRead> {
  const file = join(memoryDir, STATE_FILE);
  let text: string;
  try {
    text = await reads.readSmallFile(file, STATE_MAX_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: { resumed: {} } };
    return { state: { resumed: {} }, problem: `${file} could not be read (${errorMessage(err)})` };
  }
  try {
    const data = JSON.parse(text) as unknown;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new Error('not a JSON object');
    const o = data as Record<string, unknown>;
    const resumed: Record<string, string> = Object.create(null) as Record<string, string>;
    // Checkpoint 0.1.x kept only the last resume: it stands for that one checkpoint.
    if (isTime(o.lastResume) && typeof o.lastResumed === 'string') resumed[o.lastResumed] = new Date(o.lastResume).toISOString();
    if (o.resumed !== null && typeof o.resumed === 'object' && !Array.isArray(o.resumed)) {
      for (const [name, when] of Object.entries(o.resumed as Record<string, unknown>)) if (isTime(when)) resumed[name] = new Date(when).toISOString();
    }
    return { state: { resumed } };
  } catch (err) {
    return { state: { resumed: {} }, problem: `${file} is not valid JSON (${errorMessage(err)})` };
  }
}

/**
 * Records the resume of one checkpoint, so that it is no longer pending until it is saved again. Returns a warning
 * instead of throwing: the resume itself has happened. A state file that cannot be parsed is left as it is.
 */
export async function recordResume(memoryDir: string, name: string, when: Date): Promise<string | undefined> {
  const { state, problem } = await readPendingState(memoryDir);
  if (problem) return `The resume was not recorded: ${problem}; it is left as it is. Delete it to record resumes again.`;
  const entries = Object.entries(state.resumed).filter(([n]) => n !== name);
  entries.push([name, when.toISOString()]);
  const data = { resumed: Object.fromEntries(entries.slice(-MAX_RESUMES)) };
  try {
    await writeFileAtomic(join(memoryDir, STATE_FILE), `${JSON.stringify(data, null, 2)}\n`);
    return undefined;
  } catch (err) {
    return `The resume was not recorded in ${join(memoryDir, STATE_FILE)}: ${errorMessage(err)}`;
  }
}

export interface PendingList {
  /** What a new session should offer, first the one to name: see {@link findPending}. */
  checkpoints: CheckpointSummary[];
  /** Why the state could not be read (the answer then ignores it). */
  problem?: string;
}

/** The name prefix of the checkpoints the hooks save (`auto-<YYYY-MM-DD-HHMM>`). */
export const AUTO_PREFIX = 'auto-';

/**
 * Whether a checkpoint was written by a hook (its front matter's `auto: true`), not asked for by a person or an agent:
 * a name a person chose that starts with `auto-` is theirs.
 */
const isAutomatic = (c: CheckpointSummary): boolean => c.auto === true;

/** The time a saved date stands for: none when it is not a date or lies past now (another machine's clock). */
export function trustedTime(saved: string, now: Date): number | undefined {
  const t = Date.parse(saved);
  return Number.isNaN(t) || t > now.getTime() + CLOCK_SKEW_MS ? undefined : t;
}

/**
 * Every readable live Markdown checkpoint not resumed since it was last saved, in the order a new session offers
 * them: by the day it was saved (newest first), within a day the voluntary ones before the automatic ones
 * (`auto-…`), then newest first. A checkpoint dated in the future comes last: its time is not trusted.
 */
export async function findPending(store: CheckpointReader, now: Date = store.now()): Promise<PendingList> {
  const [{ state, problem }, items] = await Promise.all([readPendingState(store.memoryDir, store.reads), store.list({ includeJson: false, details: false })]);
  const live = items.filter((c) => !c.unreadable && c.source === 'markdown');
  const resumedAt = (c: CheckpointSummary): number | undefined => (Object.hasOwn(state.resumed, c.name) ? Date.parse(state.resumed[c.name]) : undefined);
  // A file changed after it was resumed (an agent edited its body) is pending again, whatever its saved time says.
  const changed = new Set<CheckpointSummary>();
  await Promise.all(
    live.map(async (c) => {
      const resumed = resumedAt(c);
      if (resumed === undefined || Date.parse(c.saved) > resumed) return;
      const st = await store.reads.stat(c.path).catch(() => undefined);
      // A time past now is another clock's, not a change: never trusted (as a saved time past now is not).
      if (st && st.mtimeMs > resumed && st.mtimeMs <= now.getTime() + CLOCK_SKEW_MS) changed.add(c);
    }),
  );
  const pending = live.filter((c) => {
    const resumed = resumedAt(c);
    // A date in the future (another machine's clock) says nothing of when it was saved: once resumed, it is not pending.
    return resumed === undefined || (trustedTime(c.saved, now) !== undefined && Date.parse(c.saved) > resumed) || changed.has(c);
  });
  const keyed = pending.map((c) => {
    const t = trustedTime(c.saved, now);
    return { c, t: t ?? -Infinity, day: t === undefined ? '' : formatLocalDate(new Date(t)), auto: isAutomatic(c) };
  });
  keyed.sort((a, b) => (a.day === b.day ? 0 : a.day < b.day ? 1 : -1) || Number(a.auto) - Number(b.auto) || b.t - a.t || a.c.name.localeCompare(b.c.name));
  const result: PendingList = { checkpoints: keyed.map((k) => k.c) };
  if (problem) result.problem = problem;
  return result;
}
