import { isObjectId } from '../checkpoint';
import { errorMessage } from '../errors';
import { GIT_TIMEOUT_MS } from '../gitProcess';
import { git } from '../git';
import { threadPoolReads } from '../reads';
import { KEPT_REFS, SNAPSHOT_REFS } from './refs';

// Trash older than a month goes, with the snapshot refs only it named: a snapshot goes only when no live or trashed
// checkpoint names it any more.

/**
 * What the garbage collection asks of a store (the store calls this module: it is named by its shape, so the two
 * modules do not import each other).
 */
interface SnapshotStore {
  readonly cwd: string;
  purgeTrash(olderThanDays: number, opts?: { dryRun?: boolean }): Promise<{ purged: { file: string; snapshot?: string }[]; stillNamed: Set<string> }>;
  list(opts: { includeJson?: boolean }): Promise<{ name: string; path: string; unreadable?: string }[]>;
}

/** Trashed checkpoints older than this many days are purged on save, with the snapshot refs only they named. */
export const TRASH_PURGE_DAYS = 30;

/**
 * Deletes the refs under refs/checkpoints/snapshots/ and refs/checkpoints/kept/ that point at one of `shas`.
 * Returns the refs deleted (`dryRun`: those it would delete). A ref moved meanwhile is left alone (the deletion checks its old value).
 */
export async function removeSnapshotRefs(
  cwd: string,
  shas: ReadonlySet<string>,
  timeoutMs = GIT_TIMEOUT_MS,
  keepNames: ReadonlySet<string> = new Set(),
  dryRun = false,
): Promise<string[]> {
  if (shas.size === 0) return [];
  const out = await git(cwd, ['for-each-ref', '--format=%(objectname) %(refname)', SNAPSHOT_REFS, KEPT_REFS], { timeoutMs });
  const doomed = out
    .split('\n')
    .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const)
    .filter(([sha, ref]) => shas.has(sha) && ref.startsWith('refs/checkpoints/') && !(ref.startsWith(SNAPSHOT_REFS) && keepNames.has(ref.slice(SNAPSHOT_REFS.length))));
  if (doomed.length === 0 || dryRun) return doomed.map(([, ref]) => ref);
  await git(cwd, ['update-ref', '-z', '--stdin'], { input: doomed.map(([sha, ref]) => `delete ${ref}\0${sha}\0`).join(''), timeoutMs });
  return doomed.map(([, ref]) => ref);
}

/**
 * Purges trashed checkpoints dated `olderThanDays` days ago or earlier (0: the whole trash), and the snapshot refs
 * that only they named: a snapshot goes only when no live or trashed checkpoint names it any more, so Undo and
 * restore never find a checkpoint without its snapshot. `git: false` (Restricted Mode) leaves refs alone. `dryRun`:
 * nothing is removed; the result says what would be.
 */
export async function collectGarbage(
  store: SnapshotStore,
  olderThanDays: number,
  opts: { git?: boolean; dryRun?: boolean } = {},
): Promise<{ purged: string[]; refsRemoved: string[]; warnings: string[] }> {
  const { purged, stillNamed } = await store.purgeTrash(olderThanDays, { dryRun: opts.dryRun });
  const gone = new Set(purged.map((p) => p.snapshot).filter((s): s is string => isObjectId(s) && !stillNamed.has(s)));
  const warnings: string[] = [];
  let refsRemoved: string[] = [];
  // A live checkpoint that cannot be parsed may still name a snapshot: its name's ref, and any object id in its
  // text, stay (the file may be fixed by hand).
  const unreadable = gone.size ? (await store.list({ includeJson: false })).filter((c) => c.unreadable !== undefined) : [];
  for (const c of unreadable) {
    const text = await threadPoolReads.readPrefix(c.path, 1024 * 1024, { noFollow: true }).then(
      (r) => r.text,
      () => '',
    );
    for (const id of text.match(/[0-9a-f]+/g) ?? []) if (isObjectId(id)) gone.delete(id);
  }
  if (gone.size && opts.git !== false) {
    refsRemoved = await removeSnapshotRefs(store.cwd, gone, GIT_TIMEOUT_MS, new Set(unreadable.map((c) => c.name)), opts.dryRun).catch((err: unknown) => {
      warnings.push(`The snapshot refs of purged checkpoints were not removed: ${errorMessage(err).trim().split('\n')[0]}`);
      return [];
    });
  }
  return { purged: purged.map((p) => p.file), refsRemoved, warnings };
}
