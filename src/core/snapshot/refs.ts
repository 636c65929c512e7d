import { isObjectId } from '../checkpoint';
import { CheckpointError, errorMessage } from '../errors';
import { GIT_TIMEOUT_MS } from '../gitProcess';
import { git } from '../git';

// The refs that keep snapshots (and the commits they point at): a checkpoint name enters a ref only after git's own
// rules accepted it; a ref moves only with a compare-and-swap, and a snapshot it pointed at stays reachable.

/** Keeps the snapshot of the live checkpoint `<name>`. */
export const SNAPSHOT_REFS = 'refs/checkpoints/snapshots/';
/** Keeps a snapshot whose name ref moved on while a trashed checkpoint may still name it (`kept/<sha>`). */
export const KEPT_REFS = 'refs/checkpoints/kept/';
/** A checkpoint file as a commit, for the hand-off through a remote (`files/<name>`). */
export const FILES_REFS = 'refs/checkpoints/files/';

/** An identity for snapshot commits when the repository has none configured (git refuses to commit without). */
const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: 'Checkpoint',
  GIT_AUTHOR_EMAIL: 'checkpoint@localhost',
  GIT_COMMITTER_NAME: 'Checkpoint',
  GIT_COMMITTER_EMAIL: 'checkpoint@localhost',
};

/** The ref that keeps the snapshot of checkpoint `name`; throws when git would not accept it as a ref name. */
export async function snapshotRef(cwd: string, name: string, timeoutMs = GIT_TIMEOUT_MS): Promise<string> {
  return checkedRef(cwd, SNAPSHOT_REFS, name, timeoutMs);
}

/** A name part that every git accepts in a ref (see {@link checkedRef}). */
const PLAIN_REF_PART = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

/** Ref names git accepted in this process (its rules do not change between calls). */
const acceptedRefs = new Set<string>();

/** `prefix + name` after `git check-ref-format` accepted it. A name is never read as an option. */
export async function checkedRef(cwd: string, prefix: string, name: string, timeoutMs = GIT_TIMEOUT_MS): Promise<string> {
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
  const out = await git(cwd, ['check-ref-format', '--normalize', ref], { timeoutMs }).catch(() => '');
  if (out.trim() !== ref) throw new CheckpointError(`"${name}" cannot be part of a git ref name (git check-ref-format refuses ${ref}).`);
  acceptedRefs.add(ref);
  return ref;
}

/** HEAD's commit, or '' before the first commit. */
export async function headCommit(cwd: string, timeoutMs = GIT_TIMEOUT_MS): Promise<string> {
  return refCommit(cwd, 'HEAD', timeoutMs);
}

/** A ref's commit, or '' when there is no such ref. */
async function refCommit(cwd: string, ref: string, timeoutMs = GIT_TIMEOUT_MS): Promise<string> {
  const sha = (await git(cwd, ['rev-parse', '-q', '--verify', `${ref}^{commit}`], { timeoutMs }).catch(() => '')).trim();
  return isObjectId(sha) ? sha : '';
}

/** True when the repository has this commit. */
export async function hasCommit(cwd: string, sha: string, timeoutMs = GIT_TIMEOUT_MS): Promise<boolean> {
  if (!isObjectId(sha)) return false;
  return git(cwd, ['cat-file', '-t', sha], { timeoutMs }).then((t) => t.trim() === 'commit', () => false);
}

/** `git commit-tree`, unsigned, with the repository's identity or, when it has none, Checkpoint's. */
export async function commitTree(cwd: string, tree: string, parent: string, message: string, timeoutMs = GIT_TIMEOUT_MS): Promise<string> {
  // The message is one line (a checkpoint name has none of its own).
  const args = ['commit-tree', '--no-gpg-sign', tree, ...(parent ? ['-p', parent] : []), '-m', message.replace(/[\r\n]/g, ' ')];
  let out: string;
  try {
    out = await git(cwd, args, { timeoutMs });
  } catch (err) {
    if (!/identity|tell me who you are|empty ident|name consists only/i.test(errorMessage(err))) throw err;
    out = await git(cwd, args, { timeoutMs, env: FALLBACK_IDENTITY });
  }
  const sha = out.trim();
  if (!isObjectId(sha)) throw new CheckpointError(`git commit-tree gave no commit (${String(sha).slice(0, 80)})`);
  return sha;
}

/**
 * Points `refs/checkpoints/snapshots/<name>` at `commit`. A different snapshot it pointed at stays reachable as
 * `refs/checkpoints/kept/<sha>`: a trashed checkpoint may still name it, and Undo or restore can bring that back.
 * `previous`: where the ref is believed to point ('' none), as the checkpoint being replaced says.
 */
export async function keepSnapshot(cwd: string, name: string, commit: string, timeoutMs = GIT_TIMEOUT_MS, previous?: string): Promise<void> {
  if (!isObjectId(commit)) throw new CheckpointError(`"${commit}" is not a commit id.`);
  const ref = await snapshotRef(cwd, name, timeoutMs);
  const update = (old: string): Promise<string> => git(cwd, ['update-ref', '-z', '--stdin'], { input: keepUpdate(ref, commit, old), timeoutMs });
  // A value read earlier is only a guess: update-ref checks it, and on a mismatch the ref is read again. A guess that
  // is this very commit proves nothing (the ref may never have been set to it): the ref is read.
  if (previous !== undefined && previous !== commit && (await update(previous).then(() => true, () => false))) return;
  const old = await refCommit(cwd, ref, timeoutMs);
  if (old !== commit) await update(old);
}

/** The update-ref transaction that points `ref` at `commit` if it is still at `old` ('' none), and keeps `old`. */
function keepUpdate(ref: string, commit: string, old: string): string {
  // With no old value `update` would not check (an empty old value means "any"): `create` refuses a ref another
  // writer made meanwhile, whose snapshot would otherwise be overwritten without its kept/ ref.
  const lines = [old ? `update ${ref}\0${commit}\0${old}\0` : `create ${ref}\0${commit}\0`];
  if (old) lines.push(`update ${KEPT_REFS}${old}\0${old}\0\0`);
  return lines.join('');
}
