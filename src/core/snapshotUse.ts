// Using a code snapshot: compare it with now or with its HEAD, read a file of it, restore it to a branch, and drop
// the refs of snapshots no checkpoint names any more. Taking one is snapshot.ts's.
import { isObjectId, type Checkpoint } from './checkpoint';
import { CheckpointError, errorMessage } from './errors';
import { oneLine, shellQuote } from './escaping';
import { printable } from './names';
import { readPrefix } from './files';
import { NO_HOOKS, runGitBytes } from './git';
import { checkedRef, DEFAULT_FILE_LIMIT_BYTES, GIT_QUICK_MS, hasCommit, KEPT_REFS, repoPaths, runGit, SNAPSHOT_REFS, SNAPSHOT_TIME_LIMIT_MS, splitZ, workTreeNow } from './snapshot';

/**
 * What the snapshot code asks of a store (the store, store.ts, calls this module: it is named by its shape, so the
 * two modules do not import each other).
 */
interface SnapshotStore {
  readonly cwd: string;
  show(name: string): Promise<Checkpoint>;
  purgeTrash(olderThanDays: number, opts?: { dryRun?: boolean }): Promise<{ purged: { file: string; snapshot?: string }[]; stillNamed: Set<string> }>;
  list(opts: { includeJson?: boolean }): Promise<{ name: string; path: string; unreadable?: string }[]>;
}

/** The snapshot commit a checkpoint names; throws when it has none or the repository lacks it. */
export async function checkpointSnapshot(store: SnapshotStore, name: string): Promise<{ checkpoint: Checkpoint; commit: string }> {
  const checkpoint = await store.show(name);
  if (!checkpoint.snapshot) throw new CheckpointError(noSnapshotReason(checkpoint));
  if (!(await hasCommit(store.cwd, checkpoint.snapshot))) {
    throw new CheckpointError(
      `The snapshot of "${checkpoint.name}" (${checkpoint.snapshot.slice(0, 12)}) is not in the repository at ${store.cwd}; if it was saved on another machine, run checkpoint pull.`,
    );
  }
  return { checkpoint, commit: checkpoint.snapshot };
}

/** Why a checkpoint has no code snapshot, from what it records: combined, skipped (with the reason), or not taken. */
function noSnapshotReason(cp: Checkpoint): string {
  const name = `"${printable(cp.name, 64)}"`;
  if (cp.sources?.length) {
    const first = printable(cp.sources[0].name, 64);
    return `Checkpoint ${name} was combined from ${cp.sources.map((s) => `"${printable(s.name, 64)}"`).join(', ')}: a combined checkpoint has no code snapshot of its own. Each source may have one (e.g. checkpoint diff ${shellQuote(first)}), until it is trashed and purged.`;
  }
  if (cp.snapshotSkipped) return `Checkpoint ${name} has no code snapshot: ${printable(cp.snapshotSkipped, 200)}.`;
  return `Checkpoint ${name} has no code snapshot (it was saved outside git, with --no-snapshot, or by a version without snapshots).`;
}

/** One file that differs between a snapshot and now: Added, Modified, Deleted since the snapshot, or Type changed. */
export interface SnapshotChange {
  status: 'A' | 'M' | 'D' | 'T';
  /** Relative to the repository's top folder, `/`-separated. */
  path: string;
}

/** The files that differ between two commits or trees (`from` '': the empty tree), paths relative to the top. */
export async function changesBetween(top: string, from: string, to: string): Promise<SnapshotChange[]> {
  const args = from ? ['diff-tree', '-r', '--no-renames', '--name-status', '-z', from, to] : ['ls-tree', '-r', '-z', '--name-only', to];
  const parts = splitZ(await runGit(top, args, { timeoutMs: SNAPSHOT_TIME_LIMIT_MS }));
  if (!from) return parts.map((p) => ({ status: 'A', path: p }));
  const changes: SnapshotChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i][0];
    if (status === 'A' || status === 'M' || status === 'D' || status === 'T') changes.push({ status, path: parts[i + 1] });
  }
  return changes;
}

/** The files that differ between a snapshot and the work tree now (untracked files included, ignored ones not). */
export async function changesSince(cwd: string, commit: string, opts: { memoryDir?: string } = {}): Promise<{ top: string; tree: string; changes: SnapshotChange[]; skipped: string[] }> {
  const { top, tree, skipped } = await workTreeNow(cwd, opts);
  return { top, tree, skipped, changes: await changesBetween(top, commit, tree) };
}

/**
 * What a comparison with the work tree now says of the files it left out as too large (`skipped` of
 * {@link changesSince} and {@link diffSince}): the work tree's side lacks them, so one the snapshot holds shows as
 * deleted. Undefined when none.
 */
export function leftOutAsLarge(skipped: readonly string[]): string | undefined {
  if (!skipped.length) return undefined;
  const shown = skipped.slice(0, 10).map((f) => oneLine(f));
  const more = skipped.length > shown.length ? ` and ${skipped.length - shown.length} more` : '';
  return `Left out as larger than ${DEFAULT_FILE_LIMIT_BYTES / (1024 * 1024)} MB, as a save leaves them out of its snapshot: ${shown.join(', ')}${more}. One the snapshot holds shows as deleted.`;
}

/** The repository's top folder (where snapshot paths start), or undefined outside a work tree. */
export async function repoTop(cwd: string): Promise<string | undefined> {
  return (await repoPaths(cwd, GIT_QUICK_MS))?.top;
}

/**
 * A file's bytes in a commit (`file` relative to the top, `/`-separated), as `git show <commit>:<file>` gives them
 * but with no textconv filter (the repository's config could name any command); throws when the commit has none.
 */
export async function fileAt(top: string, commit: string, file: string): Promise<Buffer> {
  if (!isObjectId(commit)) throw new CheckpointError(`"${commit}" is not a commit id.`);
  // `<commit>:<path>` starts with the object id: it can never be read as an option.
  return runGitBytes(top, [...NO_HOOKS, 'cat-file', 'blob', `${commit}:${file}`], { timeoutMs: SNAPSHOT_TIME_LIMIT_MS });
}

/** The patch (or with `stat`, the summary) from a snapshot to the work tree now; '' when nothing changed. */
export async function diffSince(cwd: string, commit: string, opts: { stat?: boolean; memoryDir?: string } = {}): Promise<{ text: string; skipped: string[] }> {
  const { top, tree, skipped } = await workTreeNow(cwd, { memoryDir: opts.memoryDir });
  // No external diff program and no textconv filter runs: the repository's config could name any command.
  const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color', ...(opts.stat ? ['--stat'] : []), commit, tree];
  return { text: await runGit(top, args, { timeoutMs: SNAPSHOT_TIME_LIMIT_MS }), skipped };
}

/** Where `checkpoint branch` puts a snapshot: `checkpoint/<name>`. */
export const BRANCH_PREFIX = 'checkpoint/';

/**
 * Creates the branch `checkpoint/<name>` (or `branchName`, as given) at a snapshot. Never moves an existing branch, never touches the work
 * tree, the index or HEAD. Returns the branch name.
 */
export async function branchFromSnapshot(cwd: string, name: string, commit: string, branchName?: string): Promise<string> {
  const ref = branchName === undefined ? await checkedRef(cwd, `refs/heads/${BRANCH_PREFIX}`, name) : await checkedRef(cwd, 'refs/heads/', branchName);
  const branch = ref.slice('refs/heads/'.length);
  try {
    // An empty old value: the ref must not exist yet.
    await runGit(cwd, ['update-ref', '-m', `checkpoint: branch from the snapshot of ${name}`, ref, commit, ''], { timeoutMs: GIT_QUICK_MS });
  } catch (err) {
    if (/reference already exists/i.test(errorMessage(err))) {
      throw new CheckpointError(`A branch named ${branch} exists already; rename or delete it first (nothing was changed).`);
    }
    throw new CheckpointError(`git could not create ${branch}: ${errorMessage(err).trim().split('\n')[0]}`);
  }
  return branch;
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
  timeoutMs = GIT_QUICK_MS,
  keepNames: ReadonlySet<string> = new Set(),
  dryRun = false,
): Promise<string[]> {
  if (shas.size === 0) return [];
  const out = await runGit(cwd, ['for-each-ref', '--format=%(objectname) %(refname)', SNAPSHOT_REFS, KEPT_REFS], { timeoutMs });
  const doomed = out
    .split('\n')
    .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const)
    .filter(([sha, ref]) => shas.has(sha) && ref.startsWith('refs/checkpoints/') && !(ref.startsWith(SNAPSHOT_REFS) && keepNames.has(ref.slice(SNAPSHOT_REFS.length))));
  if (doomed.length === 0 || dryRun) return doomed.map(([, ref]) => ref);
  await runGit(cwd, ['update-ref', '-z', '--stdin'], { input: doomed.map(([sha, ref]) => `delete ${ref}\0${sha}\0`).join(''), timeoutMs });
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
    const text = await readPrefix(c.path, 1024 * 1024, { noFollow: true }).then(
      (r) => r.text,
      () => '',
    );
    for (const id of text.match(/[0-9a-f]+/g) ?? []) if (isObjectId(id)) gone.delete(id);
  }
  if (gone.size && opts.git !== false) {
    refsRemoved = await removeSnapshotRefs(store.cwd, gone, GIT_QUICK_MS, new Set(unreadable.map((c) => c.name)), opts.dryRun).catch((err: unknown) => {
      warnings.push(`The snapshot refs of purged checkpoints were not removed: ${errorMessage(err).trim().split('\n')[0]}`);
      return [];
    });
  }
  return { purged: purged.map((p) => p.file), refsRemoved, warnings };
}
