import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { NONE, oneLine, type Checkpoint } from './checkpoint';
import { CheckpointError, errorMessage } from './errors';
import { insideAny, readBounded, removeFile, writeFileAtomic } from './files';
import { git, readCommitState, type CommitState, type GitOptions } from './git';
import { GIT_LONG_TIMEOUT_MS, GitTimeoutError } from './gitProcess';
import { isLikelySecret } from './secrets';
import { GIT_INDEX_MAX_BYTES } from './snapshot/indexNote';
import type { CheckpointStore, SaveInput, SaveResult } from './store';

// The end of a session: after saving, commit the work with a conventional message. Every git call goes through
// git.ts's `git()`, which stops git and the hooks it started at the time limit; only the commit and the push run the
// repository's hooks.

/** Longest subject line of the commit message. */
export const SUBJECT_MAX = 72;

/** Why a commit did not happen; `output` carries what git (or its hook) said. */
export type CommitProblem = 'not-a-repository' | 'detached' | 'in-progress' | 'no-email' | 'staged-secret' | 'nothing' | 'hook' | 'timeout' | 'failed';

export class CommitError extends CheckpointError {
  constructor(
    readonly problem: CommitProblem,
    message: string,
    readonly output = '',
  ) {
    super(output ? `${message}\n${output.trimEnd()}` : message);
    this.name = 'CommitError';
  }
}

export interface CommitOptions {
  /** The workspace folder: git finds the repository from here. */
  cwd: string;
  /** The memory directory: when it lies inside the repository, nothing in it is committed. */
  memoryDir: string;
  /** Push once committed (to the upstream, else `origin` or the only remote, setting the upstream). */
  push?: boolean;
  /** Cancels a running stage, commit or push (the editor's Cancel). */
  signal?: AbortSignal;
  /** Environment to take git's from (default: this process's); tests point HOME at a temp folder. */
  env?: NodeJS.ProcessEnv;
  /** Time limit of each git call (default GIT_LONG_TIMEOUT_MS: a pre-commit hook or a push may take a while). */
  timeoutMs?: number;
  /** The Conventional Commits type of the subject (default `chore`; see {@link COMMIT_TYPE}). */
  type?: string;
}

export interface CommitResult {
  /** The new commit's full hash. */
  hash: string;
  branch: string;
  /** The commit message's first line. */
  subject: string;
  /** Paths left out because they look like secrets, relative to the repository root. */
  leftOut: string[];
  /** Paths committed, relative to the repository root. */
  committed: string[];
  pushed: boolean;
  /** Why the push failed (the commit stays). */
  pushError?: string;
  /** What went wrong after the commit was made (a post-commit hook stopped at the time limit); the commit stands. */
  warnings: string[];
}

/** A Conventional Commits type: a lowercase word (`chore`, `feat`, `fix`, …). */
const COMMIT_TYPE = /^[a-z][a-z0-9-]*$/;
/** The type of a commit's subject unless one is chosen. */
export const DEFAULT_COMMIT_TYPE = 'chore';

/** Throws unless `type` can be a Conventional Commits type. */
export function assertCommitType(type: string): void {
  if (type.length > 20 || !COMMIT_TYPE.test(type)) throw new CheckpointError(`Invalid commit type ${JSON.stringify(type)}: use a lowercase word such as chore, feat, fix, docs, refactor or test.`);
}

/**
 * The commit message: a Conventional Commits subject, `<type>(<name>): <first line of Left Off>` (≤ 72 characters;
 * type `chore` unless given), and the Done list as body. The summary is written as commitlint's conventional rules
 * want it: its first letter lowercase when it starts a lowercase word (`Wiring` → `wiring`, `OAuth` kept), no final
 * full stop.
 */
export function commitMessage(cp: Pick<Checkpoint, 'name' | 'description' | 'done'>, type = DEFAULT_COMMIT_TYPE): string {
  // eslint-disable-next-line no-control-regex
  const clean = (s: string): string => oneLine(s).replace(/[\u0000-\u001f\u007f]/g, ' ');
  const prefix = `${type}(${clean(cp.name)}): `;
  const summary = conventionalSummary(cp.description && cp.description !== NONE ? clean(cp.description) : 'checkpoint saved');
  let subject = prefix + summary;
  const chars = Array.from(subject);
  if (chars.length > SUBJECT_MAX) subject = `${chars.slice(0, SUBJECT_MAX - 1).join('').trimEnd()}…`;
  const body = cp.done.map(clean).filter((d) => d !== '').map((d) => `- ${d}`);
  return body.length ? `${subject}\n\n${body.join('\n')}\n` : `${subject}\n`;
}

function conventionalSummary(text: string): string {
  let end = text.trimEnd().length;
  while (end > 0 && text[end - 1] === '.') end--;
  const trimmed = text.slice(0, end).trim();
  const [first, second] = Array.from(trimmed);
  if (first && second && first !== first.toLowerCase() && second === second.toLowerCase() && second !== second.toUpperCase()) return first.toLowerCase() + trimmed.slice(first.length);
  return trimmed || 'checkpoint saved';
}

/** Variables a push needs to authenticate, beside those git always sees (git.ts's ENV_KEEP). */
const PUSH_ENV_KEEP = ['SSH_AUTH_SOCK', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy'];

/** A git call of a commit, in its repository; `hooks` only for the user's commit and push. */
type CommitGit = (args: string[], more?: Pick<GitOptions, 'env' | 'hooks'>) => Promise<string>;

/** Runs git in `root` for a commit: each call with the time limit and `signal`, any non-zero exit an error. */
function writer(root: string, opts: CommitOptions): CommitGit {
  const envFrom = opts.env ?? process.env;
  const env: Record<string, string> = { GIT_LITERAL_PATHSPECS: '1' };
  for (const k of PUSH_ENV_KEEP) {
    const v = envFrom[k];
    if (v !== undefined) env[k] = v;
  }
  const timeoutMs = opts.timeoutMs ?? GIT_LONG_TIMEOUT_MS;
  return (args, more = {}) => git(root, args, { env: { ...env, ...more.env }, envFrom, timeoutMs, signal: opts.signal, failOnExitCode: true, hooks: more.hooks });
}

/** What this commit stages: changed paths except the memory folder and likely secrets, which are listed. */
export function planStaging(state: Pick<CommitState, 'root' | 'entries'>, memoryDir: string): { stage: string[]; leftOut: string[] } {
  const inMemory = insideAny(state.root, [resolve(memoryDir)]);
  const stage = new Set<string>();
  const leftOut: string[] = [];
  for (const e of state.entries) {
    for (const p of e.origPath ? [e.path, e.origPath] : [e.path]) {
      if (inMemory(p)) continue;
      if (isLikelySecret(p)) {
        if (!leftOut.includes(p)) leftOut.push(p);
        continue;
      }
      stage.add(p);
    }
  }
  return { stage: [...stage], leftOut };
}

function refuseState(state: CommitState, memoryDir: string): void {
  if (!state.branch) {
    throw new CommitError('detached', 'Not committed: HEAD is detached (no branch). Switch to a branch (git switch <branch>) and commit again.');
  }
  if (state.operation) {
    throw new CommitError('in-progress', `Not committed: ${state.operation} is in progress in ${state.root}. Finish or abort it first.`);
  }
  if (!state.email) {
    throw new CommitError('no-email', 'Not committed: git has no user.email. Set it with: git config user.email "you@example.com"');
  }
  const inMemory = insideAny(state.root, [resolve(memoryDir)]);
  const held = state.entries.filter((e) => e.staged && (isLikelySecret(e.path) || inMemory(e.path)));
  if (held.length) {
    throw new CommitError(
      'staged-secret',
      `Not committed: ${held.map((e) => e.path).join(', ')} ${held.length > 1 ? 'are' : 'is'} already staged and ${held.length > 1 ? 'look' : 'looks'} like a secret or a checkpoint. Unstage (git restore --staged -- <path>) or commit it yourself.`,
    );
  }
}

/** A git call (and the hook or filter it ran) stopped at its time limit. */
function timeLimitReached(err: GitTimeoutError, what: string): CommitError {
  return new CommitError(
    'timeout',
    `Not committed: the time limit of ${Math.round(err.ms / 1000)} s was reached while ${what} ran; it was stopped with every process it started, and nothing was staged or committed.`,
  );
}

/**
 * The folder as the file system knows it (symlinks resolved), so that it compares with git's top folder; a folder
 * not made yet is resolved through the nearest one that exists.
 */
async function realFolder(dir: string): Promise<string> {
  const abs = resolve(dir);
  const real = await fs.realpath(abs).catch(() => undefined);
  if (real) return real;
  const parent = dirname(abs);
  return parent === abs ? abs : join(await realFolder(parent), basename(abs));
}

/**
 * The index file as it is now, to put back byte for byte when a commit fails: intent-to-add entries, the
 * assume-unchanged and skip-worktree bits and a sparse checkout survive, which a `read-tree` of the staged tree loses.
 */
async function saveIndex(inRepo: CommitGit, root: string): Promise<{ restore: () => Promise<void>; dropLock: () => Promise<void> }> {
  const [indexPath] = (await inRepo(['rev-parse', '--git-path', 'index'])).split('\n');
  const file = resolve(root, indexPath);
  const lock = `${file}.lock`;
  // No index file: put back as none. One that cannot be read (a FIFO, too large) is left as it is.
  const bytes = await readBounded(file, GIT_INDEX_MAX_BYTES).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : null));
  const lockedBefore = await fs.stat(lock).then(() => true, () => false);
  // git killed at the time limit (or canceled) leaves its lock behind: the lock is this commit's own.
  const dropLock = async (): Promise<void> => {
    if (!lockedBefore) await removeFile(lock);
  };
  return {
    restore: async () => {
      if (bytes) await writeFileAtomic(file, bytes);
      else if (bytes === undefined) await removeFile(file);
      await dropLock();
    },
    dropLock,
  };
}

/** The hooks git ran, from its trace2 events: the one that failed (exit code not 0) and one it did not see end. */
async function hooksRan(trace: string): Promise<{ failed?: string; unfinished?: string }> {
  const text = await readBounded(trace, 16 * 1024 * 1024).then(
    (b) => b.toString('utf8'),
    () => '',
  );
  const names = new Map<number, string>();
  let failed: string | undefined;
  let own: string | undefined;
  for (const line of text.split('\n')) {
    let event: { event?: unknown; sid?: unknown; child_class?: unknown; hook_name?: unknown; child_id?: unknown; code?: unknown };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue;
    }
    // Only git commit's own children: a git that a hook runs writes here too, with a session id of its own (under
    // commit's: `a/b`). git commit's comes first.
    if (typeof event.sid !== 'string') continue;
    own ??= event.sid;
    if (typeof event.child_id !== 'number' || event.sid !== own) continue;
    if (event.event === 'child_start' && event.child_class === 'hook' && typeof event.hook_name === 'string') names.set(event.child_id, event.hook_name);
    if (event.event === 'child_exit' && names.has(event.child_id)) {
      if (event.code !== 0) failed = names.get(event.child_id);
      names.delete(event.child_id);
    }
  }
  return { failed, unfinished: [...names.values()].pop() };
}

/** The commit at HEAD when git made it over `parent` ('' for none): it moved HEAD on, with `parent` as first parent. */
async function madeOver(root: string, parent: string): Promise<string | undefined> {
  const line = await git(root, ['show', '-s', '--format=%H %P', 'HEAD']).catch(() => '');
  const [hash, first] = line.trim().split(' ');
  return hash && hash !== parent && (first ?? '') === parent ? hash : undefined;
}

/**
 * Commits the work tree of the repository holding `opts.cwd`: every changed path except likely secrets (listed in
 * `leftOut`) and the memory folder, with {@link commitMessage}. Refuses, changing nothing, on a detached HEAD, a
 * merge or rebase in progress, no user.email, or nothing to commit. When the commit fails (a pre-commit hook, the
 * time limit), the index file is put back byte for byte and the hook's output is in the error. A commit that holds a
 * likely secret or a checkpoint all the same (a pre-commit hook that stages everything) is undone. A failed push
 * keeps the commit (`pushError`).
 */
export async function commitWork(cp: Pick<Checkpoint, 'name' | 'description' | 'done'>, opts: CommitOptions): Promise<CommitResult> {
  const state = await readCommitState(opts.cwd).catch((err: unknown) => {
    throw new CommitError('not-a-repository', errorMessage(err));
  });
  // git names the top folder with symlinks resolved: so is the memory folder, or a link to it hides it.
  const resolved: CommitState = { ...state, root: await realFolder(state.root) };
  const memoryDir = await realFolder(opts.memoryDir);
  refuseState(resolved, memoryDir);
  const { stage, leftOut } = planStaging(resolved, memoryDir);
  const alreadyStaged = state.entries.some((e) => e.staged);
  const skipped = leftOut.length ? ` (left out as likely secrets: ${leftOut.join(', ')})` : '';
  if (stage.length === 0 && !alreadyStaged) throw new CommitError('nothing', `Nothing to commit${skipped}.`);

  const inRepo = writer(state.root, opts);
  const tmp = await fs.mkdtemp(join(tmpdir(), 'checkpoint-commit-'));
  try {
    const index = await saveIndex(inRepo, state.root);
    const undo = async (): Promise<void> => index.restore().catch(() => undefined);
    const warnings: string[] = [];
    const type = opts.type ?? DEFAULT_COMMIT_TYPE;
    assertCommitType(type);
    try {
      if (stage.length) {
        const list = join(tmp, 'pathspec');
        await fs.writeFile(list, `${stage.join('\0')}\0`);
        await inRepo(['add', '--all', `--pathspec-from-file=${list}`, '--pathspec-file-nul']);
      }
      const staged = (await inRepo(['diff', '--cached', '--no-renames', '--name-only', '-z'])).split('\0').filter((p) => p !== '');
      if (staged.length === 0) {
        await undo();
        throw new CommitError('nothing', `Nothing to commit${skipped}.`);
      }
      const parent = await inRepo(['rev-parse', '--verify', '-q', 'HEAD']).then((s) => s.trim(), () => '');
      const message = join(tmp, 'message');
      const text = commitMessage(cp, type);
      await fs.writeFile(message, text);
      // git's trace2 events say which hook ran and which failed (pre-commit, commit-msg, post-commit…).
      const trace = join(tmp, 'trace2');
      try {
        await inRepo(['commit', '--quiet', '--cleanup=whitespace', `--file=${message}`], { env: { GIT_TRACE2_EVENT: trace }, hooks: true });
      } catch (err) {
        const hooks = await hooksRan(trace);
        // Whether the commit exists is HEAD's to say, not git's exit: a post-commit or reference-transaction hook
        // stopped at the time limit (or failing) comes after it. Then it is reported, and the index is not put back
        // (the next commit would undo the work); only a lock git left is removed.
        const made = await madeOver(state.root, parent);
        if (made) {
          await index.dropLock().catch(() => undefined);
          const what = hooks.unfinished ? `the ${hooks.unfinished} hook` : hooks.failed ? `the ${hooks.failed} hook` : 'git commit';
          const timedOut = err instanceof GitTimeoutError;
          warnings.push(`Committed, but ${what} ${timedOut ? `was stopped at the time limit of ${Math.round(err.ms / 1000)} s` : 'failed'} after the commit was made${timedOut ? '' : `: ${oneLine(errorMessage(err)).slice(0, 500)}`}.`);
        } else {
          await undo();
          if (err instanceof GitTimeoutError) throw timeLimitReached(err, hooks.unfinished ? `the ${hooks.unfinished} hook` : 'git commit');
          const output = errorMessage(err);
          if (opts.signal?.aborted) throw new CommitError('failed', 'Not committed: canceled; nothing was staged or committed.');
          if (hooks.failed === 'commit-msg') {
            throw new CommitError('hook', `Not committed: the commit-msg hook refused the message "${text.split('\n')[0]}"; nothing was staged or committed. Its output:`, output);
          }
          if (hooks.failed) throw new CommitError('hook', `Not committed: the ${hooks.failed} hook failed; nothing was staged or committed. Its output:`, output);
          throw new CommitError('failed', 'Not committed: git commit failed; nothing was staged or committed.', output);
        }
      }
      // The commit exists from here on: no failure puts the index back any more (every error below is a CommitError).
      let hash: string;
      let committed: string[];
      try {
        hash = (await inRepo(['rev-parse', 'HEAD'])).trim();
        // What the commit holds, not what was staged before it: a pre-commit hook may have staged more.
        committed = (await inRepo(['diff-tree', '--root', '--no-commit-id', '--no-renames', '--name-only', '-r', '-z', hash])).split('\0').filter((p) => p !== '');
      } catch (err) {
        throw new CommitError('failed', 'Committed, but git could not say what the commit holds: check it with git show --stat HEAD.', errorMessage(err));
      }
      const inMemory = insideAny(resolved.root, [resolve(memoryDir)]);
      const held = committed.filter((p) => isLikelySecret(p) || inMemory(p));
      if (held.length) {
        const what = `the pre-commit hook staged ${held.join(', ')}, which ${held.length > 1 ? 'look' : 'looks'} like a secret or a checkpoint`;
        // Back to the commit before, only if the branch still points at this one; then the index as it was.
        const reason = 'checkpoint: undo a commit that held likely secrets';
        const undone = await inRepo(['update-ref', '-m', reason, ...(parent ? ['HEAD', parent, hash] : ['-d', 'HEAD', hash])]).then(
          () => true,
          () => false,
        );
        if (!undone) throw new CommitError('staged-secret', `Committed ${hash.slice(0, 7)}, but ${what}, and it could not be undone: undo it with git reset --soft HEAD~1.`);
        await undo();
        throw new CommitError('staged-secret', `Not committed: ${what}; the commit was undone and the index put back as it was.`);
      }
      const result: CommitResult = { hash, branch: state.branch, subject: text.split('\n')[0], leftOut, committed, pushed: false, warnings };
      if (opts.push) {
        try {
          await push(inRepo, state.branch);
          result.pushed = true;
        } catch (err) {
          result.pushError = opts.signal?.aborted ? 'canceled' : errorMessage(err).trim();
        }
      }
      return result;
    } catch (err) {
      if (err instanceof CommitError) throw err;
      await undo();
      if (err instanceof GitTimeoutError) throw timeLimitReached(err, 'git');
      throw new CommitError('failed', `Not committed: ${opts.signal?.aborted ? 'canceled' : 'git failed'}; nothing was staged or committed.`, errorMessage(err));
    }
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** Pushes the current branch: to its upstream, else to `origin` (or the only remote), setting the upstream. */
async function push(inRepo: CommitGit, branch: string): Promise<void> {
  const upstream = await inRepo(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']).then(
    (s) => s.trim(),
    () => '',
  );
  if (upstream) {
    await inRepo(['push', '--quiet'], { hooks: true });
    return;
  }
  const remotes = (await inRepo(['remote'])).split('\n').filter((r) => r !== '');
  const remote = remotes.includes('origin') ? 'origin' : remotes.length === 1 ? remotes[0] : undefined;
  if (!remote) throw new Error(remotes.length ? `no upstream and several remotes (${remotes.join(', ')}); push once with git push -u <remote> ${branch}` : 'no remote to push to');
  // The remote's name comes from the repository's config; after `--` it can only be read as the repository.
  await inRepo(['push', '--quiet', '--set-upstream', '--', remote, 'HEAD'], { hooks: true });
}

export interface SaveAndCommitResult {
  save: SaveResult;
  commit?: CommitResult;
  /** Why nothing was committed; the checkpoint stays saved. */
  commitError?: CommitError;
}

/** Saves a checkpoint, then commits the work tree (see {@link commitWork}); a refused commit keeps the checkpoint. */
export async function saveAndCommit(store: CheckpointStore, input: SaveInput, opts: Omit<CommitOptions, 'cwd' | 'memoryDir'> = {}): Promise<SaveAndCommitResult> {
  const save = await store.save(input);
  try {
    const commit = await commitWork(save.checkpoint, { ...opts, cwd: store.cwd, memoryDir: store.memoryDir });
    return { save, commit };
  } catch (err) {
    if (err instanceof CommitError) return { save, commitError: err };
    return { save, commitError: new CommitError('failed', `Not committed: ${errorMessage(err)}`) };
  }
}
