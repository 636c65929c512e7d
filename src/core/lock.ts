import type * as Lockfile from 'proper-lockfile';
// The whole module is handed to proper-lockfile (its `fs` option), with one call guarded.
// eslint-disable-next-line no-restricted-syntax
import fsCallbacks = require('node:fs');
import { promises as fs, type Stats } from 'node:fs';
import { join } from 'node:path';
import { CheckpointError } from './errors';

export const LOCK_NAME = '.checkpoint.lock';
/** A lock whose mtime is older than this is left by a dead writer and is taken over. */
export const LOCK_STALE_MS = 10_000;
/**
 * A live holder sets the lock's mtime to the present (rounded up to the second on coarse file systems); a lock
 * dated later than this ahead of the clock was not set by one.
 */
const FUTURE_SLACK_MS = 3_000;

// Loaded on first use (with graceful-fs under it): commands that only read never pay for it.
let lockfileModule: typeof Lockfile | undefined;
const lockfile = (): typeof Lockfile => (lockfileModule ??= require('proper-lockfile') as typeof Lockfile);

/** Loads the lock library now (for a caller that is idle anyway, waiting on git), not on the first lock. */
export function preloadLock(): void {
  lockfile();
}

/** Raised by {@link DirLock.assertHeld} when another writer took the lock over (this one stalled past the stale time). */
export class LockLostError extends CheckpointError {
  constructor(lockPath: string) {
    super(`The lock ${lockPath} was taken over by another writer while this one was stalled.`);
    this.name = 'LockLostError';
  }
}

/** The held lock, as the code inside {@link withDirLock} sees it. */
export interface DirLock {
  /**
   * Throws LockLostError unless the lock is still this writer's: the lock folder is the one it created (same
   * inode and birth time) and proper-lockfile has not reported it compromised. Call right before each write.
   */
  assertHeld(): Promise<void>;
}

const identity = (st: Stats): string => `${st.dev}:${st.ino}:${st.birthtimeMs}`;

function errnoWords(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    default:
      return err.message;
  }
}

/**
 * Refuses at once what would otherwise make every writer wait ~28 s and then say "locked by another writer": a
 * memory directory this process cannot write, and a `.checkpoint.lock` that no writer of ours made (a regular file,
 * a link, a folder with files in it, as a cloned repository can ship) or that no live writer holds (dated in the
 * future). Each error names the path.
 */
async function checkLockable(dir: string, lockPath: string): Promise<void> {
  const unwritable = (e: NodeJS.ErrnoException): CheckpointError =>
    new CheckpointError(`Cannot write to the memory directory ${dir}: ${errnoWords(e)} (${e.code ?? 'error'}).`);
  await fs.mkdir(dir, { recursive: true }).catch((err: NodeJS.ErrnoException) => {
    throw unwritable(err);
  });
  // Whether this process may write there, and what is in the lock's place, at once.
  const [denied, st] = await Promise.all([
    fs.access(dir, fsCallbacks.constants.W_OK).then(() => undefined, (err: NodeJS.ErrnoException) => err),
    fs.lstat(lockPath).catch(() => undefined),
  ]);
  if (denied) throw unwritable(denied);
  if (!st) return;
  const remove = 'Remove it if no checkpoint is being saved, then try again.';
  if (st.isSymbolicLink()) throw new CheckpointError(`${lockPath} is a symbolic link, not a checkpoint lock. ${remove}`);
  if (!st.isDirectory()) throw new CheckpointError(`${lockPath} is a file, not a checkpoint lock (a lock is an empty folder). ${remove}`);
  const entries = await fs.readdir(lockPath).catch(() => [] as string[]);
  if (entries.length) throw new CheckpointError(`${lockPath} is a folder with files in it (${entries.slice(0, 3).join(', ')}), not a checkpoint lock. ${remove}`);
  if (st.mtimeMs > Date.now() + FUTURE_SLACK_MS) {
    throw new CheckpointError(`${lockPath} is dated in the future (${st.mtime.toISOString()}), so no running writer holds it and it would never go stale. ${remove}`);
  }
}

/**
 * Runs `fn` while holding the memory directory's lock, so that two writers (two windows, an editor and a
 * CLI run) never lose each other's index bullets. proper-lockfile takes the lock with an atomic mkdir and
 * refreshes its mtime; a lock left by a killed process goes stale after 10 s and is taken over.
 *
 * A writer stalled for longer than that (a suspended process, a blocked event loop) can have its lock taken over.
 * `fn` gets a {@link DirLock} and calls `assertHeld()` before each write; when the lock was lost, that throws
 * LockLostError and `fn` runs again under a newly taken lock (up to `attempts` times in all), so it re-reads what it
 * merges. `fn` keeps, in its closure, what it already wrote. Releasing never removes a lock that is not ours.
 */
export async function withDirLock<T>(dir: string, fn: (lock: DirLock) => Promise<T>, opts: { attempts?: number } = {}): Promise<T> {
  const lockPath = join(dir, LOCK_NAME);
  const attempts = opts.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      return await holdOnce(dir, lockPath, fn);
    } catch (err) {
      if (!(err instanceof LockLostError) || attempt >= attempts) throw err;
    }
  }
}

async function holdOnce<T>(dir: string, lockPath: string, fn: (lock: DirLock) => Promise<T>): Promise<T> {
  await checkLockable(dir, lockPath);
  let ours: string | undefined;
  let compromised = false;
  // proper-lockfile removes the lock folder on release without looking at whose it is: after a takeover that would
  // remove the other writer's lock. Its file-system calls go through this object, whose rmdir checks first.
  const guardedFs = {
    ...fsCallbacks,
    rmdir: (p: string, cb: (err: NodeJS.ErrnoException | null) => void): void => {
      if (ours === undefined || p !== lockPath) return fsCallbacks.rmdir(p, cb);
      fsCallbacks.lstat(p, (err, st) => {
        if (err) return cb(err);
        if (identity(st) !== ours) return cb(null);
        fsCallbacks.rmdir(p, cb);
      });
    },
  };
  let release: () => Promise<void>;
  try {
    release = await lockfile().lock(dir, {
      lockfilePath: lockPath,
      // The lock's own path is given: the folder's real path would only cost a round trip.
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: { retries: 200, factor: 1.15, minTimeout: 5, maxTimeout: 150, randomize: true },
      fs: guardedFs,
      onCompromised: () => {
        compromised = true;
      },
    } as Lockfile.LockOptions);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ELOCKED') {
      throw new CheckpointError(`The memory directory ${dir} is locked by another writer (${lockPath}). Try again in a moment.`);
    }
    throw new CheckpointError(`Cannot take the lock ${lockPath}: ${errnoWords(e)}.`);
  }
  try {
    ours = identity(await fs.lstat(lockPath));
    const lock: DirLock = {
      assertHeld: async () => {
        const st = await fs.lstat(lockPath).catch(() => undefined);
        if (compromised || !st || identity(st) !== ours) throw new LockLostError(lockPath);
      },
    };
    return await fn(lock);
  } finally {
    await release().catch(() => undefined);
  }
}
