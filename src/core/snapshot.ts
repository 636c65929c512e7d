import { lstatSync, promises as fs, realpathSync, type Stats } from 'node:fs';
import path = require('node:path');
import { isObjectId } from './checkpoint';
import { isLikelySecret } from './secrets';
import { CheckpointError, errorMessage } from './errors';
import { oneLine } from './escaping';
import { insideAny, readBounded, readTail, removeFile } from './files';
import { NO_HOOKS, readGitState, runGit as runAnyGit, startGitScript, type ScriptStarted, type ScriptWaiting, type GitState } from './git';
import { GIT_TIMEOUT_MS, GitTimeoutError, NO_FSMONITOR, type GitRunOptions } from './gitProcess';

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
/** A changed or untracked file above this many bytes is left out of the snapshot (and listed). */
export const DEFAULT_FILE_LIMIT_BYTES = 10 * 1024 * 1024;
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
  /** A changed or untracked file above this many bytes is left out (listed in `skipped`). */
  fileLimitBytes?: number;
  /** Total time for the snapshot's git calls: a snapshot that would take longer is skipped. */
  timeLimitMs?: number;
  /** The memory folder: nothing in it enters a snapshot. */
  memoryDir?: string;
  /** The status scan the save runs anyway for Modified Files (run here when not given). */
  scan?: Promise<GitState>;
  /** What the snapshot reads beside that scan, started with it ({@link groundSnapshot}; read here when not given). */
  ground?: Promise<SnapshotGround | undefined>;
  /** Read with synchronous I/O (a one-shot process, as a store's `syncReads`; never in the extension host). */
  syncReads?: boolean;
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
  /** Informational (submodules recorded at their commit, files left out). */
  notes: string[];
  /** Files left out of the snapshot as larger than the per-file cap. */
  skipped: string[];
  /** Why no snapshot was taken, when one was due. */
  reason?: string;
  /**
   * Settles once the snapshot index's note is written (while the checkpoint is: a save waits for it before it returns;
   * one that fails does not). Never rejects: a note that could not be written only makes the next snapshot rebuild
   * the snapshot index.
   */
  noted?: Promise<void>;
  /**
   * The git process that made the snapshot, waiting to move its ref: {@link keepSnapshot} gives it the update once
   * the checkpoint is written; whoever does not must `finish('')` it (it then ends with nothing updated).
   */
  keeper?: ScriptStarted;
}

/** The ref that keeps the snapshot of checkpoint `name`; throws when git would not accept it as a ref name. */
export async function snapshotRef(cwd: string, name: string, timeoutMs = GIT_QUICK_MS): Promise<string> {
  return checkedRef(cwd, SNAPSHOT_REFS, name, timeoutMs);
}

/** The snapshot index's file inside the git folder (per worktree); `<it>.json` notes what it was built from. */
const SNAPSHOT_INDEX = 'checkpoint-snapshot-index';
/** Bounds of the reads of files in `.git` (anything larger is not taken as what git or a save wrote there). */
const NOTE_MAX_BYTES = 64 * 1024 * 1024;
export const GIT_INDEX_MAX_BYTES = 1024 * 1024 * 1024;

/** A name part that every git accepts in a ref (see {@link checkedRef}). */
const PLAIN_REF_PART = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

/** Ref names git accepted in this process (its rules do not change between calls). */
const acceptedRefs = new Set<string>();

/** `prefix + name` after `git check-ref-format` accepted it. A name is never read as an option. */
export async function checkedRef(cwd: string, prefix: string, name: string, timeoutMs = GIT_QUICK_MS): Promise<string> {
  const ref = prefix + name;
  if (acceptedRefs.has(ref)) return ref;
  if (!name || name.startsWith('-') || /[\0-\x20\x7f]/.test(name)) throw new CheckpointError(`"${name}" cannot be part of a git ref name.`);
  // Letters, digits, `_`, `-` in dot-separated parts (none empty, none ending in .lock) are a ref name for git
  // (git check-ref-format's rules allow much more): no process is needed for the common case.
  if (PLAIN_REF_PART.test(name) && !name.endsWith('.lock') && /^refs\/[a-z]+\/(?:[a-z]+\/)?$/.test(prefix)) {
    acceptedRefs.add(ref);
    return ref;
  }
  // check-ref-format exits 1 without a word on stderr (the runner would count that as success): --normalize
  // prints the name only when git accepts it.
  const out = await runGit(cwd, ['check-ref-format', '--normalize', ref], { timeoutMs }).catch(() => '');
  if (out.trim() !== ref) throw new CheckpointError(`"${name}" cannot be part of a git ref name (git check-ref-format refuses ${ref}).`);
  acceptedRefs.add(ref);
  return ref;
}

/**
 * The repository's top folder, the path of its index file and of the snapshot index; undefined outside a work tree
 * (or in a bare one).
 */
export async function repoPaths(cwd: string, timeoutMs: number): Promise<{ top: string; index: string; own: string } | undefined> {
  const out = await runGit(cwd, ['rev-parse', '--show-toplevel', '--git-path', 'index', '--git-path', SNAPSHOT_INDEX], { timeoutMs }).catch(() => '');
  const [top, index, own] = out.split('\n');
  if (!top || !index || !own) return undefined;
  return { top, index: path.resolve(cwd, index), own: path.resolve(cwd, own) };
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

export function splitZ(out: string): string[] {
  return out.split('\0').filter((p) => p !== '');
}

function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** A runner whose calls share one deadline (`left()`: the time limit for the next call). */
function budgeted(cwd: string, ms: number): ((args: string[], opts?: GitRunOptions) => Promise<string>) & { left(): number } {
  const deadline = Date.now() + ms;
  const left = (): number => Math.max(1000, deadline - Date.now());
  return Object.assign((args: string[], opts: GitRunOptions = {}) => runGit(cwd, args, { ...opts, timeoutMs: left() }), { left });
}

/** What the snapshot index was last written from: both index files' checksums and the paths it took from the work tree. */
interface SnapshotIndexNote {
  user: string;
  own: string;
  paths: string[];
}

/** An index file's trailing checksum (hex), or '' when there is no such file (or it is no regular file). */
async function indexChecksum(file: string, sync: boolean | undefined): Promise<string> {
  // An index is at least a 12-byte header and a 32-byte checksum; one of fewer than 64 bytes is taken as none.
  return readTail(file, 64, { sync }).then(
    (tail) => (tail.length < 64 ? '' : tail.toString('hex', 32)),
    () => '',
  );
}

function parseNote(text: string): SnapshotIndexNote | undefined {
  try {
    const note = JSON.parse(text) as Partial<SnapshotIndexNote>;
    if (typeof note.user !== 'string' || typeof note.own !== 'string' || !Array.isArray(note.paths) || !note.paths.every((p) => typeof p === 'string')) return undefined;
    return note as SnapshotIndexNote;
  } catch {
    return undefined;
  }
}

/** What the snapshot index was built from, as its note (`<own>.json`) says, and both index files' checksums now. */
async function readBuilt(index: string, own: string, sync: boolean | undefined): Promise<{ note?: SnapshotIndexNote; userSum: string; ownSum: string }> {
  const [text, userSum, ownSum] = await Promise.all([
    readBounded(`${own}.json`, NOTE_MAX_BYTES, { sync }).then(
      (b) => b.toString('utf8'),
      () => '',
    ),
    indexChecksum(index, sync),
    indexChecksum(own, sync),
  ]);
  return { note: parseNote(text), userSum, ownSum };
}

/**
 * Copies an index file keeping its time a little earlier than it was: git takes a file changed at or after its
 * index's time as possibly changed and reads it again ("racy git"), so a copy with a later time would let a file
 * edited in the same instant as the last snapshot pass as unchanged. False when there is no such file.
 */
async function copyIndex(from: string, to: string): Promise<boolean> {
  try {
    // Read through a descriptor checked to be a regular file: a FIFO in its place is refused, never waited on.
    const bytes = await readBounded(from, GIT_INDEX_MAX_BYTES);
    await fs.writeFile(to, bytes);
    const st = await fs.stat(from);
    await fs.utimes(to, st.atime, new Date(Math.floor(st.mtimeMs) - 1));
    return true;
  } catch {
    return false;
  }
}

/**
 * A test for paths relative to the repository's top `top`: true inside the memory folder (compared by real path too:
 * the top is a real path).
 */
export function memoryTest(top: string, memoryDir: string | undefined): (p: string) => boolean {
  if (!memoryDir) return () => false;
  const dirs = [path.resolve(memoryDir)];
  try {
    dirs.push(realpathSync(memoryDir));
  } catch {
    // not there yet: nothing of it can be in the work tree either, but its lexical path is still compared
  }
  return insideAny(top, dirs);
}

/** What the work tree holds beyond the index, as the snapshot takes it. */
interface Candidates {
  /** Paths taken from the work tree (changed, deleted, untracked), relative to the top. */
  take: string[];
  /** Left out: larger than the per-file cap. */
  tooLarge: { path: string; size: number }[];
  /** Left out: likely secrets (the rule save-and-commit applies). */
  secrets: string[];
  /** Bytes of new content in `take`. */
  total: number;
  /** The size of each file in `take` (not of what is gone, links or gitlinks). */
  sizes: Map<string, number>;
}

/** Files stat'ed at once. */
const STAT_CHUNK = 64;

function lstatOrNone(file: string): Stats | undefined {
  try {
    return lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** lstat of each path under `top` (undefined: not there, or not readable), in batches of promises or synchronously. */
async function statPaths(top: string, paths: readonly string[], syncReads: boolean | undefined): Promise<(Stats | undefined)[]> {
  // A one-shot process stats synchronously: a few microseconds a file, where a promise each goes through the thread
  // pool (ten times as long for a few hundred files). The extension host never blocks on a slow file system.
  // git's paths are already normal (relative, `/`-separated, no `.` or `..`): joined as strings, not by path.join,
  // whose normalizing of each one costs more than its lstat.
  const base = top.endsWith('/') || top.endsWith(path.sep) ? top : `${top}/`;
  if (syncReads) return paths.map((p) => lstatOrNone(base + p));
  const out: (Stats | undefined)[] = [];
  for (let i = 0; i < paths.length; i += STAT_CHUNK) {
    out.push(...(await Promise.all(paths.slice(i, i + STAT_CHUNK).map((p) => fs.lstat(base + p).catch(() => undefined)))));
  }
  return out;
}

/**
 * Sorts the scanned paths into what the snapshot takes and what it leaves out, with their sizes. `seen`: paths
 * already looked at (while git scanned): not likely secrets, and stat'ed.
 */
async function sortCandidates(
  top: string,
  paths: string[],
  opts: { fileLimitBytes: number; memoryDir?: string; syncReads?: boolean },
  seen: ReadonlyMap<string, Stats | undefined>,
): Promise<Candidates> {
  const inMemory = memoryTest(top, opts.memoryDir);
  const out: Candidates = { take: [], tooLarge: [], secrets: [], total: 0, sizes: new Map() };
  const kept = paths.filter((p) => {
    if (inMemory(p)) return false;
    if (!seen.has(p) && isLikelySecret(p)) {
      out.secrets.push(p);
      return false;
    }
    return true;
  });
  const unseen = kept.filter((p) => !seen.has(p));
  const stats = await statPaths(top, unseen, opts.syncReads);
  const fresh = new Map(unseen.map((p, k) => [p, stats[k]]));
  for (const p of kept) {
    const st = seen.has(p) ? seen.get(p) : fresh.get(p);
    if (st?.isFile() && st.size > opts.fileLimitBytes) out.tooLarge.push({ path: p, size: st.size });
    else {
      if (st?.isFile()) {
        out.total += st.size;
        out.sizes.set(p, st.size);
      }
      out.take.push(p);
    }
  }
  return out;
}

/** The status scan's paths, untracked folders expanded to their files (what `git add -A` would add). */
async function scannedPaths(top: string, scan: GitState, git: (args: string[], opts?: GitRunOptions) => Promise<string>): Promise<string[]> {
  const entries = scan.entries ?? [];
  const paths = entries.filter((e) => !(e.untracked && e.path.endsWith('/'))).map((e) => e.path);
  const folders = entries.filter((e) => e.untracked && e.path.endsWith('/')).map((e) => e.path);
  for (let i = 0; i < folders.length; i += 500) {
    const out = await git(['ls-files', '-z', '--others', '--exclude-standard', '--', ...folders.slice(i, i + 500)], { env: { GIT_LITERAL_PATHSPECS: '1' } });
    // A nested repository is listed as `dir/`: it is recorded as a gitlink, as `git add -A` would.
    paths.push(...splitZ(out).map((p) => (p.endsWith('/') ? p.slice(0, -1) : p)));
  }
  return paths;
}

/**
 * What a snapshot reads beside git's status scan, none of which depends on it: where the repository keeps its files,
 * what the snapshot index was built from (a scan that refreshes the user's index changes its stat data, not what it
 * records), and the files the previous snapshot took, stat'ed (most of them are taken again). A save starts it with
 * the scan (`SnapshotOptions.ground`).
 */
export interface SnapshotGround {
  top: string;
  /** The user's index file and the snapshot index. */
  index: string;
  own: string;
  note?: SnapshotIndexNote;
  /** The two index files' checksums as read. */
  userSum: string;
  ownSum: string;
  /** The previous snapshot's paths that are not likely secrets, with their lstat. */
  seen: ReadonlyMap<string, Stats | undefined>;
  /** The work tree has a `.gitmodules`. */
  modules: boolean;
  /**
   * The snapshot's script, started with the ground when asked and the snapshot index is still what it was built from
   * (see SNAPSHOT_SCRIPT): a save that takes no snapshot with this ground must cancel it.
   */
  script?: ScriptWaiting;
}

/** Reads a snapshot's ground (undefined outside a work tree). */
export async function groundSnapshot(cwd: string, opts: { timeLimitMs?: number; syncReads?: boolean; startScript?: boolean }): Promise<SnapshotGround | undefined> {
  const timeLimitMs = opts.timeLimitMs ?? SNAPSHOT_TIME_LIMIT_MS;
  const paths = await repoPaths(cwd, timeLimitMs);
  return paths && lookAround(paths, opts.syncReads, opts.startScript ? timeLimitMs : undefined);
}

/** The ground for a repository whose files are where `paths` says. */
async function lookAround(paths: { top: string; index: string; own: string }, sync: boolean | undefined, scriptLimitMs?: number): Promise<SnapshotGround> {
  const built = { ...paths, ...(await readBuilt(paths.index, paths.own, sync)) };
  // The snapshot's script starts before the files are stat'ed: git's start-up runs beside the rest.
  const script = scriptLimitMs !== undefined ? startSnapshotScript(built, scriptLimitMs) : undefined;
  const taken = (built.note?.paths ?? []).filter((p) => !isLikelySecret(p));
  const [stats, modules] = await Promise.all([statPaths(paths.top, taken, sync), statPaths(paths.top, ['.gitmodules'], sync)]);
  return { ...built, seen: new Map(taken.map((p, k) => [p, stats[k]])), modules: modules[0] !== undefined, script };
}

/** SNAPSHOT_SCRIPT, started on the snapshot index when it is still what it was built from (POSIX). */
function startSnapshotScript(ground: Pick<SnapshotGround, 'top' | 'own' | 'note' | 'ownSum' | 'userSum'>, timeoutMs: number): ScriptWaiting | undefined {
  if (process.platform === 'win32' || !builtFromTheseIndexes(ground)) return undefined;
  return startGitScript(ground.top, SNAPSHOT_SCRIPT, { env: { GIT_INDEX_FILE: ground.own }, lines: 2, timeoutMs });
}

/** Options for the index the snapshot writes: never a split index (a shared part would be left in `.git`). */
const WHOLE_INDEX = ['-c', 'core.splitIndex=false'];
/**
 * Brings an index up to date with the paths on stdin: paths through stdin, never as options; --remove drops what is
 * gone, as `add -A` does; skip-worktree entries stay, as they do for `add -A`.
 */
const UPDATE_FROM_STDIN = ['update-index', '--add', '--remove', '--replace', '--ignore-skip-worktree-entries', '-z', '--stdin'];

/**
 * A snapshot on a trusted snapshot index, in one shell, started while git scans the work tree: update it from the
 * paths on file descriptor 3 (none: it is left as it is), then, given the parent and the message on the first two
 * lines of stdin (parent '': none; stdin closed instead: stop there), write its tree, print it, commit it and print the
 * commit; then wait on stdin for the ref update that keeps it (`update-ref -z --stdin`: nothing on stdin, nothing
 * updated). Exit 90: the update failed; 91: no tree; 92: no commit; 93: stopped.
 */
const SNAPSHOT_SCRIPT = (() => {
  const git = ['git', ...NO_FSMONITOR, ...NO_HOOKS, ...WHOLE_INDEX].join(' ');
  return [
    `${git} ${UPDATE_FROM_STDIN.join(' ')} <&3 3<&- || exit 90`,
    'exec 3<&-',
    'IFS= read -r parent || exit 93',
    'IFS= read -r message || exit 93',
    `tree=$(${git} write-tree) || exit 91`,
    `printf '%s\\n' "$tree"`,
    `if [ -n "$parent" ]; then set -- -p "$parent" -m "$message"; else set -- -m "$message"; fi`,
    `commit=$(${git} commit-tree --no-gpg-sign "$tree" "$@") || exit 92`,
    `printf '%s\\n' "$commit"`,
    `exec ${git} update-ref -z --stdin`,
  ].join('\n');
})();

/**
 * Writes the work tree as a tree object through the product's own snapshot index (`.git/checkpoint-snapshot-index`,
 * never the user's index), from one status scan of the work tree (the one the save runs for Modified Files). The
 * snapshot index is the user's index plus the files taken from the work tree, so git re-hashes only files changed
 * since the previous snapshot. It is trusted only when both index files are still what it was built from (their
 * checksums) and every path it took is taken again; otherwise it is rebuilt from the user's index. The result is
 * always what `git add -A` into a copy of the user's index records, minus likely secrets, the memory folder and files
 * over the per-file cap (they keep the index's version, or are absent when untracked). The user's index is only read.
 */
async function writeWorkTree(
  cwd: string,
  opts: {
    limitBytes: number;
    fileLimitBytes: number;
    timeLimitMs: number;
    memoryDir?: string;
    scan?: Promise<GitState>;
    ground?: Promise<SnapshotGround | undefined>;
    syncReads?: boolean;
    /** Commit the tree too, with this message (`commit` in the result; when it is missing, commit it apart). */
    message?: string;
  },
): Promise<{
  top: string;
  head: string;
  tree?: string;
  commit?: string;
  /** The script that made `commit`, waiting to move its ref (see {@link SnapshotOutcome.keeper}). */
  keeper?: ScriptStarted;
  gitlinks: string[];
  tooLarge?: string;
  candidates?: Candidates;
  noted?: Promise<void>;
}> {
  const git = budgeted(cwd, opts.timeLimitMs);
  const scanning = opts.scan ?? readGitState(cwd, { timeoutMs: opts.timeLimitMs });
  const ground = await (opts.ground ?? groundSnapshot(cwd, opts));
  if (!ground) throw new CheckpointError('not a git work tree');
  // When the snapshot index is still what it was built from, its script starts now (POSIX): git's start-up and its
  // read of the snapshot index happen while the scan runs. It waits for the paths; whatever ends this function before
  // it has them lets it end with nothing done.
  const early = opts.message === undefined ? undefined : (ground.script ?? startSnapshotScript(ground, git.left()));
  if (early !== ground.script) await ground.script?.cancel();
  try {
    return await writeFromScan(ground, await scanning);
  } finally {
    await early?.cancel();
  }

  async function writeFromScan(ground: SnapshotGround, scan: GitState): Promise<Awaited<ReturnType<typeof writeWorkTree>>> {
    if (scan.problem) {
      // A repository git refuses (another user's, a bare one) is no work tree, as rev-parse would have said before the
      // scan; in one it accepts, the scan's failure is the reason.
      if (!(await repoPaths(cwd, git.left()))) throw new CheckpointError('not a git work tree');
      throw new CheckpointError(scan.problem);
    }
    const head = scan.head ?? (await headCommit(cwd, opts.timeLimitMs));
    const { top, own } = ground;
    const inTop = budgeted(top, opts.timeLimitMs);
    const candidates = await sortCandidates(top, await scannedPaths(top, scan, inTop), opts, ground.seen);
    if (candidates.total > opts.limitBytes) {
      const largest = [...candidates.sizes]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([p, size]) => `${oneLine(p)} (${mb(size)})`)
        .join(', ');
      return {
        top,
        head,
        gitlinks: [],
        candidates,
        tooLarge: `the changed and untracked files hold more than ${mb(opts.limitBytes)} of new content (largest: ${largest})`,
      };
    }
    const noteFile = `${own}.json`;
    const { note, userSum, ownSum } = ground;
    const checksum = (file: string): Promise<string> => indexChecksum(file, opts.syncReads);
    const taking = new Set(candidates.take);
    // Read while git scanned: the snapshot index is trusted only if it is still the one read (another save may have
    // rebuilt it meanwhile).
    const trusted = note !== undefined && builtFromTheseIndexes(ground) && note.paths.every((p) => taking.has(p)) && (await checksum(own)) === ownSum;
    const pathsInput = candidates.take.map((p) => `${p}\0`).join('');
    /** Brings `index` up to date with the work tree (git writes it through a lock file and a rename) and writes its tree. */
    const update = async (index: string): Promise<string> => {
      const env = { GIT_INDEX_FILE: index };
      if (candidates.take.length) await inTop([...WHOLE_INDEX, ...UPDATE_FROM_STDIN], { env, input: pathsInput });
      const tree = (await inTop([...WHOLE_INDEX, 'write-tree'], { env })).trim();
      if (!isObjectId(tree)) throw new CheckpointError(`git write-tree gave no tree (${String(tree).slice(0, 80)})`);
      return tree;
    };
    /**
     * {@link update} on the snapshot index and the commit, one process of this one's (POSIX; see SNAPSHOT_SCRIPT), left
     * waiting to move the ref once the checkpoint is written (`keeper`).
     */
    const updateAndCommit = async (script: ScriptWaiting, message: string): Promise<{ tree: string; commit?: string; keeper?: ScriptStarted }> => {
      // The message is one line (a checkpoint name has none of its own).
      const r = await script.begin(pathsInput, `${head}\n${message.replace(/[\r\n]/g, ' ')}`, inTop.left());
      // Stopped at the time limit: the snapshot is skipped, not rebuilt.
      if (r.ended?.timedOutMs !== undefined) throw new GitTimeoutError(r.ended.timedOutMs);
      const [tree, commit] = r.out.split('\n');
      if (r.ended?.code === 90 || r.ended?.code === 91 || !isObjectId(tree)) {
        await r.finish('');
        throw new CheckpointError(r.ended?.err.trim() || `git wrote no tree (exit ${r.ended?.code})`);
      }
      if (!r.ended && isObjectId(commit)) return { tree, commit, keeper: r };
      await r.finish('');
      return { tree };
    };
    /** The checksum of the snapshot index this save wrote by a rename (read before it: another save may replace it). */
    let renamedSum: string | undefined;
    /** A new snapshot index from the user's index (or HEAD), built aside and renamed into place. */
    const rebuild = async (): Promise<string> => {
      const tmp = `${own}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
      try {
        const seeded = await copyIndex(ground.index, tmp);
        if (!seeded && head) await git([...WHOLE_INDEX, 'read-tree', head], { env: { GIT_INDEX_FILE: tmp } });
        const tree = await update(tmp);
        renamedSum = await checksum(tmp);
        await fs.rename(tmp, own);
        // A lock left by a git stopped at its time limit would keep the snapshot index from being updated in place.
        await removeStaleLock(`${own}.lock`, opts.timeLimitMs);
        return tree;
      } finally {
        await removeFile(tmp);
      }
    };
    let tree: string;
    let commit: string | undefined;
    let keeper: ScriptStarted | undefined;
    if (trusted) {
      try {
        if (early && opts.message !== undefined) ({ tree, commit, keeper } = await updateAndCommit(early, opts.message));
        else tree = await update(own);
      } catch (err) {
        // A snapshot index git cannot read (corrupt, truncated) or cannot lock is rebuilt from the user's index.
        if (err instanceof GitTimeoutError) throw err;
        tree = await rebuild();
      }
    } else {
      // The script started for the snapshot index ends first: its git holds the index's lock.
      await early?.cancel();
      tree = await rebuild();
    }
    // A file that grew past the per-file cap between its lstat and git's read of it is in the tree at its new size:
    // no snapshot then (the snapshot index now differs from its note, so the next save rebuilds it).
    const grown = await grownPastCap(top, tree, candidates, opts, inTop).catch((err: unknown) => {
      void keeper?.finish('');
      throw err;
    });
    if (grown.length) {
      void keeper?.finish('');
      throw new CheckpointError(`${grown.map(oneLine).join(', ')} grew past ${mb(opts.fileLimitBytes)} while the snapshot was taken`);
    }
    // Gitlinks (submodules, nested repositories) are recorded at their commit; their own changes are not included.
    const mayHaveLinks = (scan.entries ?? []).some((e) => e.path.endsWith('/')) || ground.modules;
    const gitlinks = mayHaveLinks
      ? splitZ(
          await inTop(['ls-tree', '-r', '-z', tree]).catch((err: unknown) => {
            void keeper?.finish('');
            throw err;
          }),
        )
          .filter((r) => r.startsWith('160000 '))
          .map((r) => r.slice(r.indexOf('\t') + 1))
      : [];
    // The note of what the snapshot index was built from, for the next snapshot (written atomically, while the caller
    // goes on; it waits for `noted` before it is done).
    const noted = (renamedSum !== undefined ? Promise.resolve(renamedSum) : checksum(own)).then(async (sum) => {
      const written: SnapshotIndexNote = { user: userSum, own: sum, paths: candidates.take };
      const noteTmp = `${noteFile}.${process.pid}.tmp`;
      await fs.writeFile(noteTmp, JSON.stringify(written));
      await fs.rename(noteTmp, noteFile);
      await removeLeftovers(path.dirname(own), opts.timeLimitMs);
    });
    return { top, head, tree, commit, keeper, gitlinks, candidates, noted };
  }
}

/**
 * Taken paths whose file is larger than `fileLimitBytes` in `tree`: only those whose size changed since their lstat
 * are looked at (one git process, and only when one changed).
 */
async function grownPastCap(
  top: string,
  tree: string,
  c: Candidates,
  opts: { fileLimitBytes: number; syncReads?: boolean },
  git: (args: string[], opts?: GitRunOptions) => Promise<string>,
): Promise<string[]> {
  const fileLimitBytes = opts.fileLimitBytes;
  const paths = [...c.sizes.keys()];
  const now = await statPaths(top, paths, opts.syncReads);
  const changed = paths.filter((p, k) => now[k] !== undefined && now[k]!.size !== c.sizes.get(p));
  if (changed.length === 0) return [];
  // A path with a line break cannot be asked about on cat-file's line input: it is taken as grown.
  const asked = changed.filter((p) => !p.includes('\n'));
  const out = asked.length ? await git(['cat-file', '--batch-check=%(objectsize)'], { input: asked.map((p) => `${tree}:${p}\n`).join('') }) : '';
  const sizes = out.split('\n');
  return [...asked.filter((_, k) => Number(sizes[k]) > fileLimitBytes), ...changed.filter((p) => p.includes('\n'))];
}

/**
 * Removes what a save killed mid-snapshot (SIGKILL) left in `.git`: copies of the index it was building aside and
 * notes not yet renamed into place, named with that save's process id. One of a process still running is left, unless
 * older than `ms` ten times over (its id may be another process's now).
 */
async function removeLeftovers(gitDir: string, ms: number): Promise<void> {
  const entries = await fs.readdir(gitDir).catch(() => [] as string[]);
  const now = Date.now();
  for (const e of entries) {
    if (!e.startsWith(`${SNAPSHOT_INDEX}.`) || !e.endsWith('.tmp')) continue;
    const rest = e.slice(SNAPSHOT_INDEX.length + 1);
    const pid = Number.parseInt(rest.startsWith('json.') ? rest.slice(5) : rest, 10);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const file = path.join(gitDir, e);
    const st = await fs.lstat(file).catch(() => undefined);
    if (!st?.isFile()) continue;
    if (processAlive(pid) && now - st.mtimeMs < 10 * ms) continue;
    await removeFile(file).catch(() => undefined);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The snapshot index is still what it was built from: both index files are as its note says (see writeWorkTree). */
function builtFromTheseIndexes(ground: Pick<SnapshotGround, 'note' | 'ownSum' | 'userSum'>): boolean {
  const { note, ownSum, userSum } = ground;
  return note !== undefined && ownSum !== '' && note.own === ownSum && note.user === userSum;
}

/** Removes a lock file older than `ms` (its git was stopped); a younger one belongs to a git still running. */
async function removeStaleLock(lock: string, ms: number): Promise<void> {
  const st = await fs.lstat(lock).catch(() => undefined);
  if (st?.isFile() && Date.now() - st.mtimeMs > ms) await removeFile(lock);
}

/** What a snapshot left out, for the user: secrets and files over the per-file cap. */
function leftOutNotes(c: Candidates | undefined, fileLimitBytes: number): string[] {
  if (!c) return [];
  const notes: string[] = [];
  if (c.secrets.length) notes.push(`Left out of the code snapshot as likely secrets: ${c.secrets.map(oneLine).join(', ')}.`);
  if (c.tooLarge.length) {
    notes.push(`Left out of the code snapshot as larger than ${mb(fileLimitBytes)}: ${c.tooLarge.map((f) => `${oneLine(f.path)} (${mb(f.size)})`).join(', ')}.`);
  }
  return notes;
}

/**
 * Takes a snapshot of the work tree at `cwd` as a commit object (HEAD as its parent; none before the first
 * commit). Creates no ref: {@link keepSnapshot} does, once the checkpoint that names it is written. Never throws:
 * outside a git work tree it returns nothing; when it cannot (too large, git failed or ran too long) it says why.
 */
export async function takeSnapshot(cwd: string, name: string, opts: SnapshotOptions = {}): Promise<SnapshotOutcome> {
  const outcome: SnapshotOutcome = { warnings: [], notes: [], skipped: [] };
  if (opts.enabled === false) return outcome;
  const timeLimitMs = opts.timeLimitMs ?? SNAPSHOT_TIME_LIMIT_MS;
  const limitBytes = opts.limitBytes ?? DEFAULT_SNAPSHOT_LIMIT_BYTES;
  const fileLimitBytes = opts.fileLimitBytes ?? DEFAULT_FILE_LIMIT_BYTES;
  const skip = (reason: string): SnapshotOutcome => {
    outcome.reason = reason;
    outcome.warnings.push(`Code snapshot skipped: ${reason}`);
    return outcome;
  };
  try {
    // A name git would not take as a ref gets no snapshot (keepSnapshot could not keep it).
    const refused = await snapshotRef(cwd, name, timeLimitMs).then(() => undefined, (err: unknown) => err as Error);
    if (refused) {
      // Outside a work tree there is no snapshot to skip.
      if (!(await repoPaths(cwd, timeLimitMs))) return outcome;
      return skip(errorMessage(refused));
    }
    const message = `checkpoint: ${name}`;
    const wt = await writeWorkTree(cwd, { limitBytes, fileLimitBytes, timeLimitMs, memoryDir: opts.memoryDir, scan: opts.scan, ground: opts.ground, syncReads: opts.syncReads, message });
    if (wt.tooLarge || !wt.tree) return skip(`${wt.tooLarge ?? 'no tree'}. Ignore such files in .gitignore, or raise the snapshot size limit.`);
    outcome.skipped = (wt.candidates?.tooLarge ?? []).map((f) => f.path);
    outcome.notes.push(...leftOutNotes(wt.candidates, fileLimitBytes));
    for (const link of wt.gitlinks) outcome.notes.push(`Submodule ${oneLine(link)} is recorded at its commit; its own uncommitted changes are not in the snapshot.`);
    outcome.noted = wt.noted?.catch(() => undefined);
    const commit = wt.commit ?? (await commitTree(wt.top, wt.tree, wt.head, message, timeLimitMs));
    outcome.snapshot = { head: wt.head, commit };
    outcome.keeper = wt.keeper;
  } catch (err) {
    if (errorMessage(err) === 'not a git work tree' || /not a git repository/.test(errorMessage(err))) return outcome;
    if (err instanceof GitTimeoutError) return skip(`${err.message}: it would take longer than its time limit, so the checkpoint is saved without it`);
    return skip(errorMessage(err).trim().split('\n')[0]);
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
export async function keepSnapshot(cwd: string, name: string, commit: string, timeoutMs = GIT_QUICK_MS, previous?: string, keeper?: ScriptStarted): Promise<void> {
  try {
    if (!isObjectId(commit)) throw new CheckpointError(`"${commit}" is not a commit id.`);
    const ref = await snapshotRef(cwd, name, timeoutMs);
    // A value read earlier is only a guess: update-ref checks it, and on a mismatch the ref is read again. A guess that
    // is this very commit proves nothing (the ref may never have been set to it): the ref is read.
    if (previous !== undefined && previous !== commit) {
      const update = keepUpdate(ref, commit, previous);
      // The snapshot's own git process, waiting, takes it (update-ref is already running); otherwise a new one.
      const ok = keeper
        ? (await keeper.finish(update, timeoutMs)).code === 0
        : await runGit(cwd, ['update-ref', '-z', '--stdin'], { input: update, timeoutMs }).then(() => true, () => false);
      if (ok) return;
    }
    const old = await refCommit(cwd, ref, timeoutMs);
    if (old !== commit) await runGit(cwd, ['update-ref', '-z', '--stdin'], { input: keepUpdate(ref, commit, old), timeoutMs });
  } finally {
    void keeper?.finish('');
  }
}

/** The update-ref transaction that points `ref` at `commit` if it is still at `old` ('' none), and keeps `old`. */
function keepUpdate(ref: string, commit: string, old: string): string {
  // With no old value `update` would not check (an empty old value means "any"): `create` refuses a ref another
  // writer made meanwhile, whose snapshot would otherwise be overwritten without its kept/ ref.
  const lines = [old ? `update ${ref}\0${commit}\0${old}\0` : `create ${ref}\0${commit}\0`];
  if (old) lines.push(`update ${KEPT_REFS}${old}\0${old}\0\0`);
  return lines.join('');
}

/**
 * Writes the current work tree as a tree object (no commit, no ref), for comparing a snapshot with now.
 * Returns it with the repository's top folder (the diff's paths are relative to it). Throws when it cannot.
 */
export async function workTreeNow(
  cwd: string,
  opts: { limitBytes?: number; fileLimitBytes?: number; timeLimitMs?: number; memoryDir?: string } = {},
): Promise<{ top: string; tree: string; skipped: string[] }> {
  // The save's limits: what a save would refuse never enters the repository through a compare either.
  const wt = await writeWorkTree(cwd, {
    limitBytes: opts.limitBytes ?? DEFAULT_SNAPSHOT_LIMIT_BYTES,
    fileLimitBytes: opts.fileLimitBytes ?? DEFAULT_FILE_LIMIT_BYTES,
    timeLimitMs: opts.timeLimitMs ?? SNAPSHOT_TIME_LIMIT_MS,
    memoryDir: opts.memoryDir,
  });
  if (!wt.tree) throw new CheckpointError(`Cannot compare with the work tree now: ${wt.tooLarge ?? 'git wrote no tree of it'}`);
  await wt.noted;
  return { top: wt.top, tree: wt.tree, skipped: (wt.candidates?.tooLarge ?? []).map((f) => f.path) };
}

