import { basename, dirname, join, resolve } from 'node:path';
import { threadPoolReads, type Reads } from './reads';

/** `.git` files and `commondir` are a line or two; anything larger is not one. */
const GIT_POINTER_MAX_BYTES = 64 * 1024;

/**
 * The folder holding `.git` (a folder or a worktree's file) at or above `start`; undefined when none. Each function
 * here reads through `reads` (see {@link Reads}): inline in a one-shot process.
 */
export async function findRepositoryTop(start: string, reads: Reads = threadPoolReads): Promise<string | undefined> {
  let dir = resolve(start);
  for (;;) {
    if (await reads.lstat(join(dir, '.git')).then(() => true, () => false)) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The git directory of the checkout whose top folder is `top`: `<top>/.git`, or the `gitdir:` of a `.git` file. */
async function gitDirOf(top: string, reads: Reads): Promise<string | undefined> {
  const dotGit = join(top, '.git');
  const st = await reads.stat(dotGit).catch(() => undefined);
  if (!st) return undefined;
  if (st.isDirectory()) return dotGit;
  const text = await reads.readSmallFile(dotGit, GIT_POINTER_MAX_BYTES).catch(() => '');
  const target = gitDirOfFile(text);
  return target ? resolve(top, target) : undefined;
}

/**
 * The path of the first `gitdir:` line of a `.git` file, trimmed; undefined when there is none. Plain string work:
 * `^gitdir:\s*(.+?)\s*$` is quadratic on a long run of spaces.
 */
export function gitDirOfFile(text: string): string | undefined {
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('gitdir:')) continue;
    const target = line.slice('gitdir:'.length).trim();
    if (target) return target;
  }
  return undefined;
}

/**
 * The git directory of the repository holding `cwd` (where `HEAD` lives), without running git:
 * `<root>/.git` when it is a folder; the `gitdir:` of a `.git` file (worktrees, submodules).
 * Undefined when `cwd` is not inside a repository.
 */
export async function resolveGitDir(cwd: string, reads: Reads = threadPoolReads): Promise<string | undefined> {
  const top = await findRepositoryTop(cwd, reads);
  return top === undefined ? undefined : gitDirOf(top, reads);
}

/**
 * The main worktree of the repository holding `cwd`, without running git: the top folder of a plain checkout
 * (also from any subfolder); for a linked worktree (`git worktree add`), whose `.git` file names its gitdir, the
 * folder of that gitdir's `commondir` (the main repository's `.git`). A submodule (a gitdir without `commondir`)
 * is its own repository. Undefined outside a repository.
 */
export async function resolveMainWorktree(cwd: string, reads: Reads = threadPoolReads): Promise<string | undefined> {
  const top = await findRepositoryTop(cwd, reads);
  if (top === undefined) return undefined;
  const gitDir = await gitDirOf(top, reads);
  if (gitDir === undefined || gitDir === join(top, '.git')) return top;
  const common = await reads.readSmallFile(join(gitDir, 'commondir'), GIT_POINTER_MAX_BYTES).then(
    (t) => t.split(/\r?\n/)[0].trim(),
    () => '',
  );
  if (!common) return top;
  const commonDir = resolve(gitDir, common);
  // A repository's common dir is `<main worktree>/.git`; a bare repository's has no worktree of its own.
  return basename(commonDir) === '.git' ? dirname(commonDir) : commonDir;
}

/**
 * The current branch read from `HEAD` without running git (for a hook that runs at every agent start): the branch
 * name, `HEAD (detached at <sha7>)` when detached (as git.ts writes it), '' when unknown.
 */
export async function readHeadBranch(cwd: string, reads: Reads = threadPoolReads): Promise<string> {
  const gitDir = await resolveGitDir(cwd, reads).catch(() => undefined);
  if (!gitDir) return '';
  // Only a small regular file is read: a repository decides what `HEAD` is.
  const head = await reads.readSmallFile(join(gitDir, 'HEAD'), 4096).catch(() => '');
  const ref = /^ref: refs\/heads\/(\S+)\s*$/.exec(head);
  if (ref) return ref[1];
  const sha = /^([0-9a-f]+)\s*$/.exec(head);
  return sha && sha[1].length >= 40 && sha[1].length <= 64 ? `HEAD (detached at ${sha[1].slice(0, 7)})` : '';
}
