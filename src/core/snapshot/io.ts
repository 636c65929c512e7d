import type { Stats } from 'node:fs';
import { fileReads, readBounded, readTail } from '../files';

// The snapshot module's file reads: every one goes through a `SnapshotReads` (its git calls through git.ts's `git()`).

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
