import { describe, oneLine, type Checkpoint, type CheckpointSource } from './checkpoint';
import { CheckpointError } from './errors';
import type { FileIdentity } from './files';
import { isLookupName, printable, validateName } from './names';
import type { CheckpointStore } from './store';

// Several checkpoints synthesized into one hand-off, made deterministic: the same sources give the same
// checkpoint, byte for byte, except its saved time. Nothing is judged or rewritten; lists are merged, not summarized.

/** The line a capped Modified Files list ends with (`… and 3 more`): not a path, so never merged as one. */
const MORE_LINE = /^(?:…|\.\.\.) and \d+ more$/;

/**
 * The items of several lists, each once (compared as one trimmed line), in the order met: the first list first.
 * `skip` leaves out items that are not entries.
 */
export function mergeLists(lists: string[][], skip?: RegExp): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of lists) {
    for (const item of list) {
      const key = oneLine(item);
      if (key === '' || seen.has(key) || skip?.test(key)) continue;
      seen.add(key);
      out.push(key);
    }
  }
  return out;
}

/** The sources newest first; equal times keep the order given (a stable sort). */
export function newestFirst(sources: Checkpoint[]): Checkpoint[] {
  const time = (c: Checkpoint): number => {
    const t = Date.parse(c.saved);
    return Number.isNaN(t) ? -Infinity : t;
  };
  return sources
    .map((c, i) => ({ c, i }))
    .sort((a, b) => time(b.c) - time(a.c) || a.i - b.i)
    .map(({ c }) => c);
}

function sourceRow(cp: Checkpoint): CheckpointSource {
  const row: CheckpointSource = { name: cp.name, saved: cp.saved, branch: cp.branch };
  if (cp.planStep !== undefined && cp.planSteps !== undefined) {
    row.planStep = cp.planStep;
    row.planSteps = cp.planSteps;
  }
  return row;
}

/**
 * One checkpoint from several (`sources` in the order the user named them): Left Off lists where each source left off,
 * newest first, one line each under its name; branch and plan from the newest source (the plan from the newest one
 * that has a plan); Done This Session, Decisions, Open Questions and Modified
 * Files merged without duplicates, newest source first, each source's order kept; every source's Failed Approaches;
 * `sources` lists them all with their saved time, branch and plan step, so a source on another branch shows there.
 */
export function combineCheckpoints(name: string, sources: Checkpoint[], saved: string): Checkpoint {
  if (sources.length < 2) throw new CheckpointError('Combining needs at least two checkpoints.');
  const ordered = newestFirst(sources);
  const newest = ordered[0];
  const lists = (key: 'done' | 'failed' | 'decisions' | 'questions' | 'modifiedFiles'): string[][] => ordered.map((c) => c[key]);
  // Where each source left off, newest first, under its name: no source's next step is lost.
  const leftOff = ordered
    .map((c) => ({ name: oneLine(c.name), text: oneLine(c.leftOff) }))
    .filter((c) => c.text !== '')
    .map((c) => `${c.name}: ${c.text}`)
    .join('\n');
  const cp: Checkpoint = {
    name,
    description: describe(leftOff),
    branch: newest.branch,
    saved,
    leftOff,
    done: mergeLists(lists('done')),
    failed: mergeLists(lists('failed')),
    decisions: mergeLists(lists('decisions')),
    questions: mergeLists(lists('questions')),
    modifiedFiles: mergeLists(lists('modifiedFiles'), MORE_LINE),
    sources: sources.map(sourceRow),
  };
  const withPlan = ordered.find((c) => c.plan);
  if (withPlan?.plan) {
    cp.plan = withPlan.plan;
    if (withPlan.planStep !== undefined && withPlan.planSteps !== undefined) {
      cp.planStep = withPlan.planStep;
      cp.planSteps = withPlan.planSteps;
    }
  }
  return cp;
}

export interface CombineOptions {
  /** Move the sources to the trash once the combined checkpoint is written. */
  trashSources?: boolean;
}

export interface CombineResult {
  checkpoint: Checkpoint;
  path: string;
  /** Where the previous checkpoint of the new name went, when there was one. */
  replaced?: string;
  /** The sources' files, in the order named. */
  sourcePaths: string[];
  /** Where the trashed sources went. */
  trashedSources: string[];
  warnings: string[];
}

/** "a, b, c", or a note that there are none. */
function nameList(names: string[]): string {
  return names.length ? names.map((n) => printable(n, 64)).join(', ') : '(none saved)';
}

/**
 * Combines saved checkpoints of a store into a new one (see {@link combineCheckpoints}) and writes it with its index
 * bullet; an existing checkpoint of the new name goes to the trash first, the sources too with `trashSources`.
 * Unknown or unreadable names, or fewer than two distinct sources: a CheckpointError naming the valid checkpoints,
 * and nothing is written.
 */
export async function combine(store: CheckpointStore, newName: string, names: string[], opts: CombineOptions = {}): Promise<CombineResult> {
  const name = validateName(newName);
  const valid = async (): Promise<string[]> =>
    (await store.list({ includeJson: false, details: false }))
      .filter((c) => !c.unreadable)
      .map((c) => c.name)
      .sort();
  const found: { name: string; path: string }[] = [];
  const unknown: string[] = [];
  for (const raw of names) {
    // A name with a path separator, `..` or a control character is never looked up: the core's one rule.
    const hit = isLookupName(raw) ? await store.find(raw).catch(() => undefined) : undefined;
    if (!hit || hit.source !== 'markdown') unknown.push(raw);
    else if (!found.some((f) => f.path === hit.path)) found.push({ name: raw, path: hit.path });
  }
  if (unknown.length) {
    throw new CheckpointError(
      `No checkpoint named ${unknown.map((n) => `"${printable(n, 64)}"`).join(', ')} in ${store.memoryDir}. Checkpoints you can combine: ${nameList(await valid())}.`,
    );
  }
  if (found.length < 2) {
    throw new CheckpointError(
      `Combining needs at least two different checkpoints (got ${found.length}). Checkpoints you can combine: ${nameList(await valid())}.`,
    );
  }
  // Each source whole, as show and resume read it: one over their size limit is refused, never merged in part.
  const versions: { path: string; identity: FileIdentity; checkpoint: Checkpoint }[] = [];
  for (const f of found) {
    try {
      versions.push({ path: f.path, ...(await store.readVersion(f.path)) });
    } catch (err) {
      throw new CheckpointError(`Cannot combine: ${err instanceof Error ? err.message : String(err)}. Nothing was written.`);
    }
  }
  const cp = combineCheckpoints(name, versions.map((v) => v.checkpoint), store.now().toISOString());
  const written = await store.saveCombined(cp, { trash: opts.trashSources ? versions.map(({ path, identity }) => ({ path, identity })) : [] });
  return {
    checkpoint: cp,
    path: written.path,
    replaced: written.replaced,
    sourcePaths: found.map((f) => f.path),
    trashedSources: written.trashed,
    warnings: written.warnings,
  };
}
