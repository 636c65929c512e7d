import { statSync } from 'node:fs';
import { devNull } from 'node:os';
import { resolve } from 'node:path';
import { CheckpointError, errorMessage } from './errors';
import { GitTimeoutError, NO_FSMONITOR, spawnInGroup, STATUS_ARGS, type GitRunOptions } from './gitProcess';
import { printable } from './names';

// One way to run git: `git()` below (and `gitBytes()`, its raw-stdout twin) spawns git in a process group of its own,
// with a time limit after which the whole group (git and any hook or filter it started) is killed. Reads (status, branch, the state a commit checks
// first), the code snapshot's and the hand-off's plumbing, and the writes of Save and Commit (stage, commit, push,
// the index rollback) all go through it. Every argument is built by the product: user text reaches git only through
// a file, stdin or after `--`, a checkpoint name enters a ref only after `git check-ref-format`.

export interface GitState {
  /** Current branch; `HEAD (detached at <sha>)` when detached; '' when not a repository or git is unusable. */
  branch: string;
  /** Modified, added, deleted, renamed and untracked paths, relative to the repository root. */
  modifiedFiles: string[];
  /** Why git gave nothing (not a repository, git missing), for the log; undefined when it worked. */
  problem?: string;
  /** Set when git was stopped at its time limit: the caller should say that the git data is missing. */
  timedOut?: boolean;
  /** The same scan's entries (untracked folders as `dir/`), for the code snapshot: one scan serves both. */
  entries?: StatusEntry[];
  /** HEAD's full commit id from the same scan ('' before the first commit). */
  head?: string;
}

/** A detached HEAD as saved; the commit is 4 to 40 hex digits (the length is checked apart: see {@link isCommitHex}). */
const DETACHED = /^HEAD \(detached at ([0-9a-f]{4,})\)$/;
const isCommitHex = (s: string): boolean => s.length >= 4 && s.length <= 40 && /^[0-9a-f]+$/.test(s);

/**
 * Arguments that keep git from running any hook a repository names (`core.hooksPath` set to an empty device, which
 * overrides the config and `.git/hooks`): {@link git} puts them before every call unless `hooks` is set.
 */
const NO_HOOKS = ['-c', `core.hooksPath=${devNull}`];

/** How one {@link git} call runs. */
export interface GitOptions extends GitRunOptions {
  /**
   * Whether git may run the hooks a repository names (`.git/hooks`, `core.hooksPath`): off unless set. The product's
   * own reads and plumbing never run them (updating a ref would run `reference-transaction`, for one). On only for a
   * command the user asked for by its name, which their hooks are there to guard: Save and Commit's `git commit`
   * (pre-commit, commit-msg…) and `git push` (pre-push), and Switch Branch's `git checkout` (post-checkout).
   */
  hooks?: boolean;
}

/**
 * Runs git once in `cwd` and resolves with its stdout (UTF-8). Never runs a repository's fsmonitor hook (a
 * `.git/config` could name any command there), nor its other hooks unless `hooks` is set; never prompts, and does
 * not inherit variables such as EDITOR or GIT_PAGER.
 *
 * A folder that does not exist fails at once; a command fails when git exits non-zero *and* wrote to stderr (the
 * error's message is that stderr; `failOnExitCode`: any non-zero exit), otherwise it resolves with stdout; it
 * completes on 'close', or 50 ms after 'exit' when a grandchild (a hook) keeps the pipes open.
 *
 * Every call has a time limit (`timeoutMs`, default {@link GIT_TIMEOUT_MS}): git runs in a process group of its own,
 * and the whole group (git and whatever filter or hook it started) is killed when the limit passes; the call then
 * fails with GitTimeoutError. The same happens on `signal`'s abort (failing with "canceled"), and to every call still
 * running when this process exits. Callers pass arguments they built themselves: user text goes after `--`, through
 * stdin, or is checked first.
 */
export async function git(cwd: string, args: string[], opts: GitOptions = {}): Promise<string> {
  return (await gitBytes(cwd, args, opts)).toString('utf8');
}

/** {@link git} with stdout as it came (a blob's bytes). */
export function gitBytes(cwd: string, args: string[], opts: GitOptions = {}): Promise<Buffer> {
  const argv = opts.hooks ? [...NO_FSMONITOR, ...args] : [...NO_FSMONITOR, ...NO_HOOKS, ...args];
  return runInGroup(cwd, 'git', argv, opts).then((r) => gitOutput(r, opts.failOnExitCode));
}

/** git's stdout, or the error its exit code and stderr say (see {@link git}). */
function gitOutput({ code, out, err }: { code: number; out: Buffer; err: Buffer }, failOnExitCode?: boolean): Buffer {
  if (code && failOnExitCode) throw new Error(Buffer.concat([out, err]).toString('utf8') || `git exited with code ${code}`);
  if (code && err.length) throw new Error(err.toString('utf8'));
  return out;
}

/** Spawns `file` in a process group of its own with git's environment and time limit; resolves when it is done. */
function runInGroup(cwd: string, file: string, argv: string[], opts: GitRunOptions): Promise<{ code: number; out: Buffer; err: Buffer }> {
  const run = spawnInGroup(cwd, file, argv, opts);
  run.child?.stdin?.end(opts.input);
  return run.done;
}

/** What a read of the repository's state may be given: its time limit and a way to stop it. */
export type GitReadOptions = Pick<GitOptions, 'timeoutMs' | 'signal'>;

/** Parses `git status --porcelain=v2 --branch -z` into branch and changed paths. */
export function parseStatusV2(out: string): Omit<GitState, 'problem'> {
  const { branch, modifiedFiles } = parseStatus(out);
  return { branch, modifiedFiles };
}

/** The whole of a status scan's output, split once: branch, changed paths, entries, HEAD's full id ('' none). */
function parseStatus(out: string): { branch: string; modifiedFiles: string[]; entries: StatusEntry[]; head: string } {
  const records = out.split('\0');
  let head = '';
  let oid = '';
  for (const r of records) {
    if (r.charAt(0) !== '#') break; // the headers come first
    if (r.startsWith('# branch.head ')) head = r.slice('# branch.head '.length);
    else if (r.startsWith('# branch.oid ')) oid = r.slice('# branch.oid '.length);
  }
  let branch = head;
  if (head === '(detached)') branch = oid && oid !== '(initial)' ? `HEAD (detached at ${oid.slice(0, 7)})` : 'HEAD';
  const entries = entriesOf(records);
  const full = (oid.length === 40 || oid.length === 64) && /^[0-9a-f]+$/.test(oid) ? oid : '';
  return { branch, modifiedFiles: entries.map((e) => e.path), entries, head: full };
}

function fieldsAfter(record: string, n: number): string {
  let idx = 0;
  for (let k = 0; k < n; k++) idx = record.indexOf(' ', idx) + 1;
  return record.slice(idx);
}

/** Branch and changed files in one git call. Not a repository, or no git at all, is not an error. */
export async function readGitState(cwd: string, opts: GitReadOptions = {}): Promise<GitState> {
  try {
    return parseStatus(await git(cwd, STATUS_ARGS, opts));
  } catch (err) {
    const state: GitState = { branch: '', modifiedFiles: [], problem: gitProblem(err) };
    if (err instanceof GitTimeoutError) state.timedOut = true;
    return state;
  }
}

/** The current branch only (cheap: no work-tree scan). */
export async function readBranch(cwd: string, opts: GitReadOptions = {}): Promise<string> {
  // `symbolic-ref -q` prints nothing (status 1) when HEAD is detached; it works before the first commit.
  const branch = await git(cwd, ['symbolic-ref', '--short', '-q', 'HEAD'], opts).then((s) => s.trim(), () => '');
  if (branch) return branch;
  const sha = await git(cwd, ['rev-parse', '--short=7', 'HEAD'], opts).then((s) => s.trim(), () => '');
  return isCommitHex(sha) ? `HEAD (detached at ${sha})` : '';
}

function gitProblem(err: unknown): string {
  if (err instanceof GitTimeoutError) return err.message;
  const msg = errorMessage(err);
  if (/ENOENT|spawn git/i.test(msg)) return 'git was not found on PATH';
  if (/not a git repository/i.test(msg)) return 'not a git repository';
  return msg.split('\n')[0];
}

/**
 * Switches to a branch (or back to a detached commit). The name is checked with `git check-ref-format`
 * and can never be read as an option. Throws with git's own reason when git refuses.
 */
export async function switchBranch(cwd: string, branch: string): Promise<void> {
  const match = DETACHED.exec(branch);
  const detached = match && isCommitHex(match[1]) ? match : null;
  if (!detached) {
    const invalid = new CheckpointError(`"${printable(branch)}" is not a valid branch name.`);
    // `@` is HEAD and `@{-N}` the N-th previous branch: check-ref-format --branch accepts (and expands) them, and
    // checking them out detaches HEAD or goes elsewhere. A saved branch is a name, never a revision expression.
    if (!branch || branch.startsWith('-') || branch === '@' || branch.includes('@{')) throw invalid;
    let normalized: string;
    try {
      normalized = (await git(cwd, ['check-ref-format', '--branch', branch])).replace(/\n$/, '');
    } catch (err) {
      if (err instanceof GitTimeoutError) throw new CheckpointError(`git could not check the branch name: ${err.message}`);
      // git could not run there at all (the folder is gone): that, not the name, is what went wrong.
      if (err instanceof CheckpointError) throw err;
      throw invalid;
    }
    if (normalized !== branch) throw invalid;
  }
  try {
    // The user's own command: their post-checkout hook runs, as it would for the same `git checkout` typed.
    if (detached) await git(cwd, ['checkout', '--detach', detached[1], '--'], { hooks: true });
    else await git(cwd, ['checkout', branch, '--'], { hooks: true });
  } catch (err) {
    throw new CheckpointError(`git could not switch to ${branch}: ${errorMessage(err).trim()}`);
  }
}

/** One changed path of `git status --porcelain=v2 -z`, relative to the repository root. */
export interface StatusEntry {
  path: string;
  /** The path before a rename or copy. */
  origPath?: string;
  /** The index holds a change of it (staged), or it is unmerged. */
  staged: boolean;
  untracked: boolean;
}

/** Every changed path of `git status --porcelain=v2 -z` output, with whether it is staged. */
export function statusEntries(out: string): StatusEntry[] {
  return entriesOf(out.split('\0'));
}

function entriesOf(records: string[]): StatusEntry[] {
  const entries: StatusEntry[] = [];
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const kind = r.charAt(0);
    if (kind === '1') entries.push({ path: fieldsAfter(r, 8), staged: r.charAt(2) !== '.', untracked: false });
    else if (kind === '2') entries.push({ path: fieldsAfter(r, 9), origPath: records[++i], staged: r.charAt(2) !== '.', untracked: false });
    else if (kind === 'u') entries.push({ path: fieldsAfter(r, 10), staged: true, untracked: false });
    else if (kind === '?') entries.push({ path: r.slice(2), staged: false, untracked: true });
  }
  return entries;
}

/** What committing the work tree must know first; read without changing anything. */
export interface CommitState {
  /** The repository's top folder. */
  root: string;
  /** The current branch, or '' when HEAD is detached. */
  branch: string;
  /** A merge, rebase, cherry-pick or revert in progress (or unmerged paths), else undefined. */
  operation?: string;
  /** `user.email` as git would use it; '' when unset. */
  email: string;
  /** Changed paths, untracked files listed one by one. */
  entries: StatusEntry[];
}

/** Reads {@link CommitState}. Throws CheckpointError when `cwd` is not in a git repository or git is missing. */
export async function readCommitState(cwd: string): Promise<CommitState> {
  let top: string[];
  try {
    top = (await git(cwd, ['rev-parse', '--show-toplevel', '--absolute-git-dir'])).split('\n');
  } catch (err) {
    throw new CheckpointError(`Cannot commit: ${gitProblem(err)} (${cwd}).`);
  }
  const [root, gitDir] = top;
  if (!root) throw new CheckpointError(`Cannot commit: ${cwd} is not inside a work tree.`);
  const inGit = (p: string): boolean => statSync(resolve(gitDir, p), { throwIfNoEntry: false }) !== undefined;
  const operation = inGit('MERGE_HEAD')
    ? 'a merge'
    : inGit('rebase-merge') || inGit('rebase-apply')
      ? 'a rebase'
      : inGit('CHERRY_PICK_HEAD')
        ? 'a cherry-pick'
        : inGit('REVERT_HEAD')
          ? 'a revert'
          : undefined;
  const [branch, email, status] = await Promise.all([
    git(cwd, ['symbolic-ref', '--short', '-q', 'HEAD']).then((s) => s.trim(), () => ''),
    git(cwd, ['config', '--get', 'user.email']).then((s) => s.trim(), () => ''),
    git(root, ['status', '--porcelain=v2', '-z', '--untracked-files=all']),
  ]);
  const entries = statusEntries(status);
  const state: CommitState = { root, branch, email, entries, operation };
  if (!operation && status.split('\0').some((r) => r.startsWith('u '))) state.operation = 'a merge (unmerged paths)';
  return state;
}

/** True when a saved branch and the current one are both known and differ. */
export function branchDiffers(saved: string, current: string): boolean {
  return saved !== '' && current !== '' && saved !== current;
}

/** git's NUL-separated output as its parts. */
export function splitZ(out: string): string[] {
  return out.split('\0').filter((p) => p !== '');
}
