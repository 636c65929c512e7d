import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isObjectId, type Checkpoint } from './checkpoint';
import { CheckpointError, errorMessage } from './errors';
import { oneLine } from './escaping';
import { GIT_TIMEOUT_MS, NO_HOOKS, runGit as runAnyGit, runGitBytes, type GitRunOptions } from './git';

// A code snapshot per checkpoint, with git's own plumbing: the work tree (tracked changes and untracked files that
// are not ignored) is written as a commit object through a temporary index file, so the user's index, work tree,
// stash list and HEAD are never touched. Blobs are shared with the repository: a snapshot costs the changed files.

/** git for the product's own plumbing: no hook a repository names ever runs. */
export function runGit(cwd: string, args: string[], opts: GitRunOptions = {}): Promise<string> {
  return runAnyGit(cwd, [...NO_HOOKS, ...args], opts);
}

/** Keeps the snapshot of the live checkpoint `<name>`. */
export const SNAPSHOT_REFS = 'refs/checkpoints/snapshots/';
/** Keeps a snapshot whose name ref moved on while a trashed checkpoint may still name it (`kept/<sha>`). */
export const KEPT_REFS = 'refs/checkpoints/kept/';
/** A checkpoint file as a commit, for the hand-off through a remote (`files/<name>`). */
export const FILES_REFS = 'refs/checkpoints/files/';
/** New blobs above this many bytes: the snapshot is skipped with a warning. */
export const DEFAULT_SNAPSHOT_LIMIT_BYTES = 50 * 1024 * 1024;
/** The whole snapshot gives up (with a warning, the save goes on) after this long: one git call's limit. */
export const SNAPSHOT_TIME_LIMIT_MS = GIT_TIMEOUT_MS;
/** Commands that read only a little (rev-parse, update-ref…). */
export const GIT_QUICK_MS = GIT_TIMEOUT_MS;


/** An identity for snapshot commits when the repository has none configured (git refuses to commit without). */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: 'Checkpoint',
  GIT_AUTHOR_EMAIL: 'checkpoint@localhost',
  GIT_COMMITTER_NAME: 'Checkpoint',
  GIT_COMMITTER_EMAIL: 'checkpoint@localhost',
};

export interface SnapshotOptions {
  /** Off: no snapshot. Default on. */
  enabled?: boolean;
  /** Bytes of new content (changed and untracked files) above which the snapshot is skipped. */
  limitBytes?: number;
  /** Total time for the snapshot's git calls. */
  timeLimitMs?: number;
}

/** A snapshot commit and the HEAD it was taken on ('' before the first commit). */
export interface Snapshot {
  head: string;
  commit: string;
}

export interface SnapshotOutcome {
  snapshot?: Snapshot;
  /** Why no snapshot was taken, or what it left out: shown to the user. */
  warnings: string[];
  /** Informational (submodules recorded at their commit). */
  notes: string[];
}

/** The ref that keeps the snapshot of checkpoint `name`; throws when git would not accept it as a ref name. */
export async function snapshotRef(cwd: string, name: string, timeoutMs = GIT_QUICK_MS): Promise<string> {
  return checkedRef(cwd, SNAPSHOT_REFS, name, timeoutMs);
}

/** Ref names git accepted in this process (its rules do not change between calls). */
const acceptedRefs = new Set<string>();

/** `prefix + name` after `git check-ref-format` accepted it. A name is never read as an option. */
export async function checkedRef(cwd: string, prefix: string, name: string, timeoutMs = GIT_QUICK_MS): Promise<string> {
  const ref = prefix + name;
  if (acceptedRefs.has(ref)) return ref;
  if (!name || name.startsWith('-') || /[\0-\x20\x7f]/.test(name)) throw new CheckpointError(`"${name}" cannot be part of a git ref name.`);
  // check-ref-format exits 1 without a word on stderr (the runner would count that as success): --normalize
  // prints the name only when git accepts it.
  const out = await runGit(cwd, ['check-ref-format', '--normalize', ref], { timeoutMs }).catch(() => '');
  if (out.trim() !== ref) throw new CheckpointError(`"${name}" cannot be part of a git ref name (git check-ref-format refuses ${ref}).`);
  acceptedRefs.add(ref);
  return ref;
}

/** The repository's top folder and the path of its index file; undefined outside a work tree (or in a bare one). */
async function repoPaths(cwd: string, timeoutMs: number): Promise<{ top: string; index: string } | undefined> {
  const out = await runGit(cwd, ['rev-parse', '--show-toplevel', '--git-path', 'index'], { timeoutMs }).catch(() => '');
  const [top, index] = out.split('\n');
  if (!top || !index) return undefined;
  return { top, index: path.resolve(cwd, index) };
}

/** HEAD's commit, or '' before the first commit. */
export async function headCommit(cwd: string, timeoutMs = GIT_QUICK_MS): Promise<string> {
  const sha = (await runGit(cwd, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { timeoutMs }).catch(() => '')).trim();
  return isObjectId(sha) ? sha : '';
}

/** A ref's commit, or '' when there is no such ref. */
export async function refCommit(cwd: string, ref: string, timeoutMs = GIT_QUICK_MS): Promise<string> {
  const sha = (await runGit(cwd, ['rev-parse', '-q', '--verify', `${ref}^{commit}`], { timeoutMs }).catch(() => '')).trim();
  return isObjectId(sha) ? sha : '';
}

/** True when the repository has this commit. */
export async function hasCommit(cwd: string, sha: string, timeoutMs = GIT_QUICK_MS): Promise<boolean> {
  if (!isObjectId(sha)) return false;
  return runGit(cwd, ['cat-file', '-t', sha], { timeoutMs }).then((t) => t.trim() === 'commit', () => false);
}

function splitZ(out: string): string[] {
  return out.split('\0').filter((p) => p !== '');
}

function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** Sizes of the files that would become new blobs, until `limit` is passed; the largest first. */
async function newContentSize(top: string, paths: string[], limit: number): Promise<{ total: number; largest: { path: string; size: number }[] }> {
  let total = 0;
  const sizes: { path: string; size: number }[] = [];
  for (let i = 0; i < paths.length && total <= limit; i += 64) {
    const batch = paths.slice(i, i + 64);
    const stats = await Promise.all(batch.map((p) => fs.lstat(path.join(top, p)).catch(() => undefined)));
    stats.forEach((st, k) => {
      if (st?.isFile()) {
        total += st.size;
        sizes.push({ path: batch[k], size: st.size });
      }
    });
  }
  return { total, largest: sizes.sort((a, b) => b.size - a.size).slice(0, 3) };
}

/** A runner whose calls share one deadline. */
function budgeted(cwd: string, ms: number): (args: string[], opts?: GitRunOptions) => Promise<string> {
  const deadline = Date.now() + ms;
  return (args, opts = {}) => runGit(cwd, args, { ...opts, timeoutMs: Math.max(1000, deadline - Date.now()) });
}

/**
 * Writes the work tree as a tree object through a temporary index seeded from the repository's own index (HEAD
 * plus what is staged, with git's file-status cache, so unchanged files are not read again), or from HEAD when
 * there is no index file. The user's index file is only read. Returns the tree, the temporary index's gitlinks
 * (submodules and nested repositories), and what was too large.
 */
async function writeWorkTree(
  cwd: string,
  opts: { limitBytes: number; timeLimitMs: number; head?: string },
): Promise<{ top: string; head: string; tree?: string; gitlinks: string[]; tooLarge?: string }> {
  const git = budgeted(cwd, opts.timeLimitMs);
  const [paths, head, changed] = await Promise.all([
    repoPaths(cwd, opts.timeLimitMs),
    opts.head !== undefined ? Promise.resolve(opts.head) : headCommit(cwd, opts.timeLimitMs),
    // What add -A would read: modified tracked files (against the index) and untracked files that are not ignored.
    git(['ls-files', '-z', '--full-name', '--modified', '--others', '--exclude-standard', '--', ':/']).then(splitZ, () => undefined),
  ]);
  if (!paths) throw new CheckpointError('not a git work tree');
  const { top } = paths;
  const size = await newContentSize(top, changed ?? [], opts.limitBytes);
  if (size.total > opts.limitBytes) {
    const largest = size.largest.map((f) => `${oneLine(f.path)} (${mb(f.size)})`).join(', ');
    return {
      top,
      head,
      gitlinks: [],
      tooLarge: `the changed and untracked files hold more than ${mb(opts.limitBytes)} of new content (largest: ${largest})`,
    };
  }
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'checkpoint-index-'));
  try {
    const index = path.join(tmp, 'index');
    const env = { GIT_INDEX_FILE: index };
    const seeded = await fs.copyFile(paths.index, index).then(() => true, () => false);
    if (!seeded && head) await git(['read-tree', head], { env });
    const inTop = budgeted(top, opts.timeLimitMs);
    // A split index would write a shared part into the repository: the temporary index is always whole.
    await inTop(['-c', 'core.splitIndex=false', 'add', '-A'], { env });
    const tree = (await inTop(['write-tree'], { env })).trim();
    if (!isObjectId(tree)) throw new CheckpointError(`git write-tree gave no tree (${String(tree).slice(0, 80)})`);
    // Gitlinks (submodules, nested repositories) are recorded at their commit; their own changes are not included.
    const mayHaveLinks = (changed ?? []).some((p) => p.endsWith('/')) || (await fs.lstat(path.join(top, '.gitmodules')).then(() => true, () => false));
    const gitlinks = mayHaveLinks
      ? splitZ(await inTop(['ls-files', '-z', '--stage'], { env }))
          .filter((r) => r.startsWith('160000 '))
          .map((r) => r.slice(r.indexOf('\t') + 1))
      : [];
    return { top, head, tree, gitlinks };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Takes a snapshot of the work tree at `cwd` as a commit object (HEAD as its parent; none before the first
 * commit). Creates no ref: {@link keepSnapshot} does, once the checkpoint that names it is written. Never throws:
 * outside a git work tree it returns nothing; when it cannot (too large, git failed or ran too long) it says why.
 */
export async function takeSnapshot(cwd: string, name: string, opts: SnapshotOptions = {}): Promise<SnapshotOutcome> {
  const outcome: SnapshotOutcome = { warnings: [], notes: [] };
  if (opts.enabled === false) return outcome;
  const timeLimitMs = opts.timeLimitMs ?? SNAPSHOT_TIME_LIMIT_MS;
  const limitBytes = opts.limitBytes ?? DEFAULT_SNAPSHOT_LIMIT_BYTES;
  try {
    const [ref, wt] = await Promise.all([
      snapshotRef(cwd, name, timeLimitMs).then(
        (r) => r,
        (err: unknown) => err as Error,
      ),
      writeWorkTree(cwd, { limitBytes, timeLimitMs }),
    ]);
    if (ref instanceof Error) {
      outcome.warnings.push(`Code snapshot skipped: ${errorMessage(ref)}`);
      return outcome;
    }
    if (wt.tooLarge || !wt.tree) {
      outcome.warnings.push(`Code snapshot skipped: ${wt.tooLarge ?? 'no tree'}. Ignore such files in .gitignore, or raise the snapshot size limit.`);
      return outcome;
    }
    for (const link of wt.gitlinks) outcome.notes.push(`Submodule ${oneLine(link)} is recorded at its commit; its own uncommitted changes are not in the snapshot.`);
    const commit = await commitTree(wt.top, wt.tree, wt.head, `checkpoint: ${name}`, timeLimitMs);
    outcome.snapshot = { head: wt.head, commit };
  } catch (err) {
    if (errorMessage(err) === 'not a git work tree') return outcome;
    outcome.warnings.push(`Code snapshot skipped: ${errorMessage(err).trim().split('\n')[0]}`);
  }
  return outcome;
}

/** `git commit-tree`, unsigned, with the repository's identity or, when it has none, Checkpoint's. */
export async function commitTree(cwd: string, tree: string, parent: string, message: string, timeoutMs = GIT_QUICK_MS): Promise<string> {
  const args = ['commit-tree', '--no-gpg-sign', tree, ...(parent ? ['-p', parent] : []), '-m', message];
  let out: string;
  try {
    out = await runGit(cwd, args, { timeoutMs });
  } catch (err) {
    if (!/identity|tell me who you are|empty ident|name consists only/i.test(errorMessage(err))) throw err;
    out = await runGit(cwd, args, { timeoutMs, env: FALLBACK_IDENTITY });
  }
  const sha = out.trim();
  if (!isObjectId(sha)) throw new CheckpointError(`git commit-tree gave no commit (${String(sha).slice(0, 80)})`);
  return sha;
}

/**
 * Points `refs/checkpoints/snapshots/<name>` at `commit`. A different snapshot it pointed at stays reachable as
 * `refs/checkpoints/kept/<sha>`: a trashed checkpoint may still name it, and Undo or restore can bring that back.
 */
export async function keepSnapshot(cwd: string, name: string, commit: string, timeoutMs = GIT_QUICK_MS): Promise<void> {
  if (!isObjectId(commit)) throw new CheckpointError(`"${commit}" is not a commit id.`);
  const ref = await snapshotRef(cwd, name, timeoutMs);
  const old = await refCommit(cwd, ref, timeoutMs);
  if (old === commit) return;
  const lines = [`update ${ref}\0${commit}\0${old}\0`];
  if (old) lines.push(`update ${KEPT_REFS}${old}\0${old}\0\0`);
  await runGit(cwd, ['update-ref', '-z', '--stdin'], { input: lines.join(''), timeoutMs });
}

/**
 * Writes the current work tree as a tree object (no commit, no ref), for comparing a snapshot with now.
 * Returns it with the repository's top folder (the diff's paths are relative to it). Throws when it cannot.
 */
export async function workTreeNow(cwd: string, opts: { limitBytes?: number; timeLimitMs?: number } = {}): Promise<{ top: string; tree: string }> {
  const wt = await writeWorkTree(cwd, { limitBytes: opts.limitBytes ?? Number.MAX_SAFE_INTEGER, timeLimitMs: opts.timeLimitMs ?? SNAPSHOT_TIME_LIMIT_MS });
  if (!wt.tree) throw new CheckpointError(wt.tooLarge ?? 'git wrote no tree of the work tree');
  return { top: wt.top, tree: wt.tree };
}

/**
 * What the snapshot code asks of a store (the store, store.ts, calls this module: it is named by its shape, so the
 * two modules do not import each other).
 */
interface SnapshotStore {
  readonly cwd: string;
  show(name: string): Promise<Checkpoint>;
  purgeTrash(olderThanDays: number): Promise<{ purged: { file: string; snapshot?: string }[]; stillNamed: Set<string> }>;
}

/** The snapshot commit a checkpoint names; throws when it has none or the repository lacks it. */
export async function checkpointSnapshot(store: SnapshotStore, name: string): Promise<{ checkpoint: Checkpoint; commit: string }> {
  const checkpoint = await store.show(name);
  if (!checkpoint.snapshot) {
    throw new CheckpointError(`Checkpoint "${checkpoint.name}" has no code snapshot (it was saved outside git, with --no-snapshot, or over the size limit).`);
  }
  if (!(await hasCommit(store.cwd, checkpoint.snapshot))) {
    throw new CheckpointError(
      `The snapshot of "${checkpoint.name}" (${checkpoint.snapshot.slice(0, 12)}) is not in the repository at ${store.cwd}; if it was saved on another machine, run checkpoint pull.`,
    );
  }
  return { checkpoint, commit: checkpoint.snapshot };
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
export async function changesSince(cwd: string, commit: string): Promise<{ top: string; tree: string; changes: SnapshotChange[] }> {
  const { top, tree } = await workTreeNow(cwd);
  return { top, tree, changes: await changesBetween(top, commit, tree) };
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
export async function diffSince(cwd: string, commit: string, opts: { stat?: boolean } = {}): Promise<string> {
  const { top, tree } = await workTreeNow(cwd);
  // No external diff program and no textconv filter runs: the repository's config could name any command.
  const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color', ...(opts.stat ? ['--stat'] : []), commit, tree];
  return runGit(top, args, { timeoutMs: SNAPSHOT_TIME_LIMIT_MS });
}

/** Where `checkpoint branch` puts a snapshot: `checkpoint/<name>`. */
export const BRANCH_PREFIX = 'checkpoint/';

/**
 * Creates the branch `checkpoint/<name>` at a snapshot. Never moves an existing branch, never touches the work
 * tree, the index or HEAD. Returns the branch name.
 */
export async function branchFromSnapshot(cwd: string, name: string, commit: string): Promise<string> {
  const ref = await checkedRef(cwd, `refs/heads/${BRANCH_PREFIX}`, name);
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
 * Returns the refs deleted. A ref moved meanwhile is left alone (the deletion checks its old value).
 */
export async function removeSnapshotRefs(cwd: string, shas: ReadonlySet<string>, timeoutMs = GIT_QUICK_MS): Promise<string[]> {
  if (shas.size === 0) return [];
  const out = await runGit(cwd, ['for-each-ref', '--format=%(objectname) %(refname)', SNAPSHOT_REFS, KEPT_REFS], { timeoutMs });
  const doomed = out
    .split('\n')
    .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const)
    .filter(([sha, ref]) => shas.has(sha) && ref.startsWith('refs/checkpoints/'));
  if (doomed.length === 0) return [];
  await runGit(cwd, ['update-ref', '-z', '--stdin'], { input: doomed.map(([sha, ref]) => `delete ${ref}\0${sha}\0`).join(''), timeoutMs });
  return doomed.map(([, ref]) => ref);
}

/**
 * Purges trashed checkpoints dated `olderThanDays` days ago or earlier (0: the whole trash), and the snapshot refs
 * that only they named: a snapshot goes only when no live or trashed checkpoint names it any more, so Undo and
 * restore never find a checkpoint without its snapshot. `git: false` (Restricted Mode) leaves refs alone.
 */
export async function collectGarbage(
  store: SnapshotStore,
  olderThanDays: number,
  opts: { git?: boolean } = {},
): Promise<{ purged: string[]; refsRemoved: string[]; warnings: string[] }> {
  const { purged, stillNamed } = await store.purgeTrash(olderThanDays);
  const gone = new Set(purged.map((p) => p.snapshot).filter((s): s is string => isObjectId(s) && !stillNamed.has(s)));
  const warnings: string[] = [];
  let refsRemoved: string[] = [];
  if (gone.size && opts.git !== false) {
    refsRemoved = await removeSnapshotRefs(store.cwd, gone).catch((err: unknown) => {
      warnings.push(`The snapshot refs of purged checkpoints were not removed: ${errorMessage(err).trim().split('\n')[0]}`);
      return [];
    });
  }
  return { purged: purged.map((p) => p.file), refsRemoved, warnings };
}
