// The entries of a listing: a checkpoint file's header or whole checkpoint, a file that cannot be read, a JSON
// checkpoint; and the pool the listing reads its files with.
import type { Stats } from 'node:fs';
import type { CheckpointHeader } from './checkpoint';
import { parseCheckpoint, parseCheckpointHeader } from './checkpointParse';
import { errorMessage } from './errors';
import type { JsonCheckpointFile } from './jsonCheckpoints';
import type { CheckpointSummary } from './storeTypes';

/** Runs `fn` over `items` with at most `limit` at once (listing thousands of files must not exhaust descriptors). */
export async function mapPool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The date a listing entry is given until the file's mtime stands for the date it does not carry (no date is ''). */
export const UNDATED = '';

export function datedBy(entry: CheckpointSummary, mtime: Date): void {
  entry.saved = mtime.toISOString();
  if (entry.checkpoint) entry.checkpoint.saved = entry.saved;
}

/** The listing entry of a readable file: the header only (`details: false`), else with the parsed checkpoint. */
export function listEntry(file: string, name: string, text: string, mtime: () => string, details: boolean | undefined): CheckpointSummary {
  if (details === false) {
    // The same keys in the same order as the spread below, without copying the object.
    const entry = pickSummary(parseCheckpointHeader(text, name, mtime)) as CheckpointSummary;
    entry.path = file;
    entry.source = 'markdown';
    return entry;
  }
  const cp = parseCheckpoint(text, name, mtime());
  return { ...pickSummary(cp), path: file, source: 'markdown', checkpoint: cp };
}

/** The listing entry of a file that could not be read or parsed. */
export function unreadableEntry(file: string, name: string, err: unknown, st: Stats | undefined): CheckpointSummary {
  return {
    name,
    path: file,
    branch: '',
    saved: (st?.mtime ?? new Date(0)).toISOString(),
    description: '',
    unreadable: errorMessage(err),
    source: 'markdown',
  };
}

function pickSummary(cp: CheckpointHeader): Omit<CheckpointSummary, 'path' | 'source'> {
  const s: Omit<CheckpointSummary, 'path' | 'source'> = {
    name: cp.name,
    branch: cp.branch,
    saved: cp.saved,
    description: cp.description,
  };
  if (cp.plan) s.plan = cp.plan;
  if (cp.planStep !== undefined) s.planStep = cp.planStep;
  if (cp.planSteps !== undefined) s.planSteps = cp.planSteps;
  if (cp.auto) s.auto = true;
  if (cp.frontMatterSkipped) s.frontMatterSkipped = cp.frontMatterSkipped;
  return s;
}

export function jsonSummary(j: JsonCheckpointFile): CheckpointSummary {
  if (!j.checkpoint) {
    return { name: j.name, path: j.path, branch: '', saved: new Date(0).toISOString(), description: '', unreadable: j.unreadable, source: 'json', plan: j.planName };
  }
  return { ...pickSummary(j.checkpoint), path: j.path, source: 'json', checkpoint: j.checkpoint };
}
