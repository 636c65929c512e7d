// `promises` is taken from node:fs when used: a one-shot process that reads inline never loads node:fs/promises.
import { promises as fs, type Stats } from 'node:fs';
import { isObjectId } from '../checkpoint';
import { CheckpointError } from '../errors';
import { oneLine } from '../escaping';
import { removeFile } from '../files';
import { git, readGitState, type GitOptions, type GitState } from '../git';
import { GIT_TIMEOUT_MS, GitTimeoutError } from '../gitProcess';
import { isLikelySecret } from '../secrets';
import { grownPastCap, mb, scannedPaths, sortCandidates, statPaths, type Candidates } from './candidates';
import { asideName, builtFromTheseIndexes, copyIndex, indexChecksum, readIndexState, removeStaleLock, repoPaths, writeNote, type IndexState, type RepoPaths } from './indexNote';
import { splitZ } from '../git';
import { threadPoolReads, type Reads } from '../reads';
import { headCommit } from './refs';

// The work tree as a tree object, written through the snapshot index (never the user's index): the status scan says
// what changed, the snapshot index (the user's index plus the files the previous snapshot took) takes those files,
// and git writes its tree. The user's index, work tree, stash and HEAD are never touched.

/** New blobs above this many bytes: the snapshot is skipped with a warning. */
export const DEFAULT_SNAPSHOT_LIMIT_BYTES = 50 * 1024 * 1024;
/** A changed or untracked file above this many bytes is left out of the snapshot (and listed). */
export const DEFAULT_FILE_LIMIT_BYTES = 10 * 1024 * 1024;

/** Options for the index the snapshot writes: never a split index (a shared part would be left in `.git`). */
const WHOLE_INDEX = ['-c', 'core.splitIndex=false'];
/**
 * Brings an index up to date with the paths on stdin: paths through stdin, never as options; --remove drops what is
 * gone, as `add -A` does; skip-worktree entries stay, as they do for `add -A`.
 */
const UPDATE_FROM_STDIN = ['update-index', '--add', '--remove', '--replace', '--ignore-skip-worktree-entries', '-z', '--stdin'];

export interface TreeOptions {
  /** Bytes of new content (changed and untracked files) above which no tree is written (`tooLarge` says why). */
  limitBytes: number;
  /** A changed or untracked file above this many bytes is left out. */
  fileLimitBytes: number;
  /** Total time for the git calls of the tree (each call's limit is what is left of it). */
  timeLimitMs: number;
  /** The memory folder: nothing in it enters the tree. */
  memoryDir?: string;
  reads: Reads;
  /** Stops every git call still running. */
  signal?: AbortSignal;
}

/**
 * What a snapshot reads beside git's status scan, none of which depends on it: where the repository keeps its files,
 * what the snapshot index was built from (a scan that refreshes the user's index changes its stat data, not what it
 * records), and the files the previous snapshot took, stat'ed (most of them are taken again).
 */
export interface Ground extends RepoPaths, IndexState {
  /** The previous snapshot's paths that are not likely secrets, with their lstat. */
  seen: ReadonlyMap<string, Stats | undefined>;
  /** The work tree has a `.gitmodules`. */
  modules: boolean;
}

/** Reads a snapshot's ground (undefined outside a work tree). */
export async function readGround(cwd: string, opts: Pick<TreeOptions, 'timeLimitMs' | 'reads' | 'signal'>): Promise<Ground | undefined> {
  const paths = await repoPaths(cwd, opts.timeLimitMs, opts.signal);
  if (!paths) return undefined;
  const built = { ...paths, ...(await readIndexState(paths, opts.reads)) };
  const taken = (built.note?.paths ?? []).filter((p) => !isLikelySecret(p));
  const [stats, modules] = await Promise.all([statPaths(paths.top, taken, opts.reads), statPaths(paths.top, ['.gitmodules'], opts.reads)]);
  return { ...built, seen: new Map(taken.map((p, k) => [p, stats[k]])), modules: modules[0] !== undefined };
}

export interface WorkTree {
  top: string;
  /** HEAD's commit ('' before the first commit). */
  head: string;
  tree?: string;
  /** Gitlinks (submodules, nested repositories) in the tree, recorded at their commit. */
  gitlinks: string[];
  /** Why no tree was written: more new content than the limit. */
  tooLarge?: string;
  candidates?: Candidates;
  /** Settles once the snapshot index's note is written; never rejects. */
  noted?: Promise<void>;
}

/**
 * Writes the work tree as a tree object through the product's own snapshot index (`.git/checkpoint-snapshot-index`),
 * from one status scan of the work tree (the one a save runs for Modified Files). The snapshot index is trusted only
 * when both index files are still what it was built from (their checksums) and every path it took is taken again;
 * otherwise it is rebuilt from the user's index. The result is always what `git add -A` into a copy of the user's
 * index records, minus likely secrets, the memory folder and files over the per-file cap (they keep the index's
 * version, or are absent when untracked). Throws 'not a git work tree' outside one.
 */
export async function writeWorkTree(cwd: string, grounding: Promise<Ground | undefined>, scanning: Promise<GitState>, opts: TreeOptions): Promise<WorkTree> {
  const [ground, scan] = await Promise.all([grounding, scanning]);
  const deadline = Date.now() + opts.timeLimitMs;
  const left = (): number => Math.max(1000, deadline - Date.now());
  /** git in `dir`, on the tree's one deadline. */
  const inTime = (dir: string, args: string[], more: GitOptions = {}): Promise<string> => git(dir, args, { ...more, timeoutMs: left(), signal: opts.signal });
  if (!ground) throw new CheckpointError('not a git work tree');
  // A repository git refuses (another user's, a bare one) has no ground (rev-parse found no work tree): in one it
  // accepts, the scan's failure is the reason.
  if (scan.problem) throw new CheckpointError(scan.problem);
  const head = scan.head ?? (await headCommit(cwd, left()));
  const { top, own } = ground;
  const candidates = await sortCandidates(top, await scannedPaths(top, scan, inTime), opts, ground.seen);
  if (candidates.total > opts.limitBytes) {
    const largest = [...candidates.sizes]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([p, size]) => `${oneLine(p)} (${mb(size)})`)
      .join(', ');
    return { top, head, gitlinks: [], candidates, tooLarge: `the changed and untracked files hold more than ${mb(opts.limitBytes)} of new content (largest: ${largest})` };
  }
  const checksum = (file: string): Promise<string> => indexChecksum(file, opts.reads);
  const taking = new Set(candidates.take);
  // Read while git scanned: the snapshot index is trusted only if it is still the one read (another save may have
  // rebuilt it meanwhile).
  const trusted = builtFromTheseIndexes(ground) && ground.note!.paths.every((p) => taking.has(p)) && (await checksum(own)) === ground.ownSum;
  const pathsInput = candidates.take.map((p) => `${p}\0`).join('');
  /** Brings `index` up to date with the work tree (git writes it through a lock file and a rename) and writes its tree. */
  const update = async (index: string): Promise<string> => {
    const env = { GIT_INDEX_FILE: index };
    if (candidates.take.length) await inTime(top, [...WHOLE_INDEX, ...UPDATE_FROM_STDIN], { env, input: pathsInput });
    const tree = (await inTime(top, [...WHOLE_INDEX, 'write-tree'], { env })).trim();
    if (!isObjectId(tree)) throw new CheckpointError(`git write-tree gave no tree (${String(tree).slice(0, 80)})`);
    return tree;
  };
  /** The checksum of the snapshot index this save wrote by a rename (read before it: another save may replace it). */
  let renamedSum: string | undefined;
  /** A new snapshot index from the user's index (or HEAD), built aside and renamed into place. */
  const rebuild = async (): Promise<string> => {
    const tmp = asideName(own);
    try {
      const seeded = await copyIndex(ground.index, tmp, opts.reads);
      if (!seeded && head) await inTime(top, [...WHOLE_INDEX, 'read-tree', head], { env: { GIT_INDEX_FILE: tmp } });
      const tree = await update(tmp);
      renamedSum = await checksum(tmp);
      await fs.rename(tmp, own);
      // A lock left by a git stopped at its time limit would keep the snapshot index from being updated in place.
      await removeStaleLock(`${own}.lock`, opts.timeLimitMs, opts.reads);
      return tree;
    } finally {
      await removeFile(tmp);
    }
  };
  let tree: string;
  try {
    tree = trusted ? await update(own) : await rebuild();
  } catch (err) {
    // A snapshot index git cannot read (corrupt, truncated) or cannot lock is rebuilt from the user's index; one whose
    // git was stopped at the time limit is not (its git would hang again).
    if (!trusted || err instanceof GitTimeoutError || opts.signal?.aborted) throw err;
    tree = await rebuild();
  }
  // A file that grew past the per-file cap between its lstat and git's read of it is in the tree at its new size:
  // no tree then (the snapshot index now differs from its note, so the next save rebuilds it).
  const grown = await grownPastCap(top, tree, candidates, opts, inTime);
  if (grown.length) throw new CheckpointError(`${grown.map(oneLine).join(', ')} grew past ${mb(opts.fileLimitBytes)} while the snapshot was taken`);
  // Gitlinks (submodules, nested repositories) are recorded at their commit; their own changes are not included.
  const mayHaveLinks = (scan.entries ?? []).some((e) => e.path.endsWith('/')) || ground.modules;
  const gitlinks = mayHaveLinks
    ? splitZ(await inTime(top, ['ls-tree', '-r', '-z', tree]))
        .filter((r) => r.startsWith('160000 '))
        .map((r) => r.slice(r.indexOf('\t') + 1))
    : [];
  // The note of what the snapshot index was built from, for the next snapshot (written while the caller goes on).
  const noted = (renamedSum !== undefined ? Promise.resolve(renamedSum) : checksum(own))
    .then((sum) => writeNote(own, { user: ground.userSum, own: sum, paths: candidates.take }, opts.timeLimitMs, opts.reads))
    .catch(() => undefined);
  return { top, head, tree, gitlinks, candidates, noted };
}

/**
 * Writes the current work tree as a tree object (no commit, no ref), for comparing a snapshot with now.
 * Returns it with the repository's top folder (the diff's paths are relative to it). Throws when it cannot.
 */
export async function workTreeNow(
  cwd: string,
  opts: { limitBytes?: number; fileLimitBytes?: number; timeLimitMs?: number; memoryDir?: string } = {},
): Promise<{ top: string; tree: string; skipped: string[] }> {
  const timeLimitMs = opts.timeLimitMs ?? GIT_TIMEOUT_MS;
  const reads = threadPoolReads;
  // The save's limits: what a save would refuse never enters the repository through a compare either.
  const wt = await writeWorkTree(cwd, readGround(cwd, { timeLimitMs, reads }), readGitState(cwd, { timeoutMs: timeLimitMs }), {
    limitBytes: opts.limitBytes ?? DEFAULT_SNAPSHOT_LIMIT_BYTES,
    fileLimitBytes: opts.fileLimitBytes ?? DEFAULT_FILE_LIMIT_BYTES,
    timeLimitMs,
    memoryDir: opts.memoryDir,
    reads,
  });
  if (!wt.tree) throw new CheckpointError(`Cannot compare with the work tree now: ${wt.tooLarge ?? 'git wrote no tree of it'}`);
  await wt.noted;
  return { top: wt.top, tree: wt.tree, skipped: (wt.candidates?.tooLarge ?? []).map((f) => f.path) };
}
