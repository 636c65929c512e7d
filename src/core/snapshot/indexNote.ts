import { promises as fs } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { removeFile } from '../files';
import { git } from '../git';
import { type Reads } from '../reads';

// The snapshot index: an index file of the product's own in the git folder (per worktree), kept between saves so
// that git re-hashes only what changed since the previous snapshot, and its note (`<it>.json`), which says what it
// was built from. It is trusted only when both index files' checksums are still the ones the note names.

/** The snapshot index's file name inside the git folder. */
const SNAPSHOT_INDEX = 'checkpoint-snapshot-index';
/** Bounds of the reads of files in `.git` (anything larger is not taken as what git or a save wrote there). */
const NOTE_MAX_BYTES = 64 * 1024 * 1024;
export const GIT_INDEX_MAX_BYTES = 1024 * 1024 * 1024;

/** Where a repository keeps what a snapshot needs: its top folder, the user's index file and the snapshot index. */
export interface RepoPaths {
  top: string;
  index: string;
  own: string;
}

/** {@link RepoPaths}; undefined outside a work tree (or in a bare one). */
export async function repoPaths(cwd: string, timeoutMs: number, signal?: AbortSignal): Promise<RepoPaths | undefined> {
  const out = await git(cwd, ['rev-parse', '--show-toplevel', '--git-path', 'index', '--git-path', SNAPSHOT_INDEX], { timeoutMs, signal }).catch(() => '');
  const [top, index, own] = out.split('\n');
  if (!top || !index || !own) return undefined;
  return { top, index: resolve(cwd, index), own: resolve(cwd, own) };
}

/** What the snapshot index was last written from: both index files' checksums and the paths it took from the work tree. */
export interface SnapshotIndexNote {
  user: string;
  own: string;
  paths: string[];
}

/** The note as read, and both index files' checksums now ('' none). */
export interface IndexState {
  note?: SnapshotIndexNote;
  userSum: string;
  ownSum: string;
}

/** An index file's trailing checksum (hex), or '' when there is no such file (or it is no regular file). */
export async function indexChecksum(file: string, reads: Reads): Promise<string> {
  // An index is at least a 12-byte header and a 32-byte checksum; one of fewer than 64 bytes is taken as none.
  return reads.readTail(file, 64).then(
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

/** What the snapshot index was built from, as its note says, and both index files' checksums now. */
export async function readIndexState(paths: RepoPaths, reads: Reads): Promise<IndexState> {
  const [text, userSum, ownSum] = await Promise.all([
    reads.readBounded(`${paths.own}.json`, NOTE_MAX_BYTES).then(
      (b) => b.toString('utf8'),
      () => '',
    ),
    indexChecksum(paths.index, reads),
    indexChecksum(paths.own, reads),
  ]);
  return { note: parseNote(text), userSum, ownSum };
}

/** The snapshot index is still what it was built from: both index files are as its note says. */
export function builtFromTheseIndexes({ note, ownSum, userSum }: IndexState): boolean {
  return note !== undefined && ownSum !== '' && note.own === ownSum && note.user === userSum;
}

/** Writes the note of the snapshot index `own` (atomically), then removes what killed saves left beside it. */
export async function writeNote(own: string, note: SnapshotIndexNote, leftoverAgeMs: number, reads: Reads): Promise<void> {
  const noteTmp = `${own}.json.${process.pid}.tmp`;
  await fs.writeFile(noteTmp, JSON.stringify(note));
  await fs.rename(noteTmp, `${own}.json`);
  await removeLeftovers(dirname(own), leftoverAgeMs, reads);
}

/** A new file's name beside the snapshot index `own`, for an index built aside (see {@link removeLeftovers}). */
export function asideName(own: string): string {
  return `${own}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
}

/**
 * Copies an index file keeping its time a little earlier than it was: git takes a file changed at or after its
 * index's time as possibly changed and reads it again ("racy git"), so a copy with a later time would let a file
 * edited in the same instant as the last snapshot pass as unchanged. False when there is no such file.
 */
export async function copyIndex(from: string, to: string, reads: Reads): Promise<boolean> {
  try {
    // Read through a descriptor checked to be a regular file: a FIFO in its place is refused, never waited on.
    const bytes = await reads.readBounded(from, GIT_INDEX_MAX_BYTES);
    await fs.writeFile(to, bytes);
    const st = await reads.stat(from);
    await fs.utimes(to, st.atime, new Date(Math.floor(st.mtimeMs) - 1));
    return true;
  } catch {
    return false;
  }
}

/** Removes a lock file older than `ms` (its git was stopped); a younger one belongs to a git still running. */
export async function removeStaleLock(lock: string, ms: number, reads: Reads): Promise<void> {
  const st = await reads.lstat(lock).catch(() => undefined);
  if (st?.isFile() && Date.now() - st.mtimeMs > ms) await removeFile(lock);
}

/**
 * Removes what a save killed mid-snapshot (SIGKILL) left in `.git`: copies of the index it was building aside and
 * notes not yet renamed into place, named with that save's process id. One of a process still running is left, unless
 * older than `ms` ten times over (its id may be another process's now).
 */
async function removeLeftovers(gitDir: string, ms: number, reads: Reads): Promise<void> {
  const entries = (await reads.readdir(gitDir).catch(() => [])).map((e) => e.name);
  const now = Date.now();
  for (const e of entries) {
    if (!e.startsWith(`${SNAPSHOT_INDEX}.`) || !e.endsWith('.tmp')) continue;
    const rest = e.slice(SNAPSHOT_INDEX.length + 1);
    const pid = Number.parseInt(rest.startsWith('json.') ? rest.slice(5) : rest, 10);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const file = join(gitDir, e);
    const st = await reads.lstat(file).catch(() => undefined);
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
