import type { Stats } from 'node:fs';
import { fileReads, readBounded, readTail } from '../files';
import { NO_HOOKS, runGitBytes } from '../git';
import type { GitRunOptions } from '../gitProcess';

// What the snapshot module asks of the outside world: every git call goes through `snapshotGitBytes`, every file
// read through a `SnapshotReads`. Nothing else in src/core/snapshot/ runs git or reads a file.

/**
 * Every git call of the snapshot module (its own plumbing: no hook a repository names ever runs), with its stdout
 * as bytes. The time limit, the signal, the input and the extra environment are the caller's.
 */
export function snapshotGitBytes(cwd: string, args: string[], opts: GitRunOptions = {}): Promise<Buffer> {
  return runGitBytes(cwd, [...NO_HOOKS, ...args], opts);
}

/** {@link snapshotGitBytes} with stdout decoded as UTF-8. */
export async function snapshotGit(cwd: string, args: string[], opts: GitRunOptions = {}): Promise<string> {
  return (await snapshotGitBytes(cwd, args, opts)).toString('utf8');
}

/**
 * The file reads of the snapshot module, done one of two ways with the same results and errors: inline in a one-shot
 * process (a store's `syncReads`: the CLI, a hook), through Node's thread pool elsewhere (the extension host never
 * blocks on a slow file system). Every read of a file that git or a save wrote opens it as a regular file only.
 */
export interface SnapshotReads {
  lstat(file: string): Promise<Stats>;
  stat(file: string): Promise<Stats>;
  /** The whole file, refused when larger than `maxBytes` (see files.ts's readBounded). */
  readBounded(file: string, maxBytes: number): Promise<Buffer>;
  /** Its last `maxBytes` bytes at most. */
  readTail(file: string, maxBytes: number): Promise<Buffer>;
  readdir(dir: string): Promise<string[]>;
}

/** The snapshot's reads over files.ts's (inline with `sync`, else through the thread pool). */
function readsOf(sync: boolean): SnapshotReads {
  const files = fileReads(sync);
  return {
    lstat: (file) => files.lstat(file),
    stat: (file) => files.stat(file),
    readBounded: (file, maxBytes) => readBounded(file, maxBytes, { sync }),
    readTail: (file, maxBytes) => readTail(file, maxBytes, { sync }),
    readdir: async (dir) => (await files.readdir(dir)).map((e) => e.name),
  };
}

const INLINE = readsOf(true);
const THREAD_POOL = readsOf(false);

/** The reads for a caller: inline when it is a one-shot process (`syncReads`), else through the thread pool. */
export function snapshotReads(syncReads?: boolean): SnapshotReads {
  return syncReads ? INLINE : THREAD_POOL;
}

/** git's NUL-separated output as its parts. */
export function splitZ(out: string): string[] {
  return out.split('\0').filter((p) => p !== '');
}
