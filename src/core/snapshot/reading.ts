// Reading a code snapshot: the one a checkpoint names, what changed between it and now (or its HEAD), a file of it,
// and a branch at it. Taking one is codeSnapshot.ts's; dropping the refs no checkpoint names any more, garbage.ts's.
import { isObjectId, type Checkpoint } from '../checkpoint';
import { CheckpointError, errorMessage } from '../errors';
import { oneLine, shellQuote } from '../escaping';
import { GIT_TIMEOUT_MS } from '../gitProcess';
import { printable } from '../names';
import { repoPaths } from './indexNote';
import { git, gitBytes } from '../git';
import { splitZ } from '../git';
import { checkedRef, hasCommit } from './refs';
import { DEFAULT_FILE_LIMIT_BYTES, workTreeNow } from './workTree';

/** What reading a checkpoint's snapshot asks of a store. */
interface SnapshotStore {
  readonly cwd: string;
  show(name: string): Promise<Checkpoint>;
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
  const parts = splitZ(await git(top, args, { timeoutMs: GIT_TIMEOUT_MS }));
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
  return (await repoPaths(cwd, GIT_TIMEOUT_MS))?.top;
}

/**
 * A file's bytes in a commit (`file` relative to the top, `/`-separated), as `git show <commit>:<file>` gives them
 * but with no textconv filter (the repository's config could name any command); throws when the commit has none.
 */
export async function fileAt(top: string, commit: string, file: string): Promise<Buffer> {
  if (!isObjectId(commit)) throw new CheckpointError(`"${commit}" is not a commit id.`);
  // `<commit>:<path>` starts with the object id: it can never be read as an option.
  return gitBytes(top, ['cat-file', 'blob', `${commit}:${file}`], { timeoutMs: GIT_TIMEOUT_MS });
}

/** The patch (or with `stat`, the summary) from a snapshot to the work tree now; '' when nothing changed. */
export async function diffSince(cwd: string, commit: string, opts: { stat?: boolean; memoryDir?: string } = {}): Promise<{ text: string; skipped: string[] }> {
  const { top, tree, skipped } = await workTreeNow(cwd, { memoryDir: opts.memoryDir });
  // No external diff program and no textconv filter runs: the repository's config could name any command.
  const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color', ...(opts.stat ? ['--stat'] : []), commit, tree];
  return { text: await git(top, args, { timeoutMs: GIT_TIMEOUT_MS }), skipped };
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
    await git(cwd, ['update-ref', '-m', `checkpoint: branch from the snapshot of ${name}`, ref, commit, ''], { timeoutMs: GIT_TIMEOUT_MS });
  } catch (err) {
    if (/reference already exists/i.test(errorMessage(err))) {
      throw new CheckpointError(`A branch named ${branch} exists already; rename or delete it first (nothing was changed).`);
    }
    throw new CheckpointError(`git could not create ${branch}: ${errorMessage(err).trim().split('\n')[0]}`);
  }
  return branch;
}
