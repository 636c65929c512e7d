import type * as Lockfile from 'proper-lockfile';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError } from './errors';

export const LOCK_NAME = '.checkpoint.lock';

// Loaded on first use (with graceful-fs under it): commands that only read never pay for it.
let lockfileModule: typeof Lockfile | undefined;
const lockfile = (): typeof Lockfile => (lockfileModule ??= require('proper-lockfile') as typeof Lockfile);

/** Loads the lock library now (for a caller that is idle anyway, waiting on git), not on the first lock. */
export function preloadLock(): void {
  lockfile();
}

/**
 * Runs `fn` while holding the memory directory's lock, so that two writers (two windows, an editor and a
 * CLI run) never lose each other's index bullets. proper-lockfile takes the lock with an atomic mkdir and
 * refreshes its mtime; a lock left by a killed process goes stale after 10 s and is taken over.
 */
export async function withDirLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  await fs.mkdir(dir, { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile().lock(dir, {
      lockfilePath: path.join(dir, LOCK_NAME),
      stale: 10_000,
      retries: { retries: 200, factor: 1.15, minTimeout: 5, maxTimeout: 150, randomize: true },
      // A lock we held too long may be taken over; our own writes stay atomic, so carry on.
      onCompromised: () => undefined,
    });
  } catch (err) {
    throw new CheckpointError(
      `The memory directory ${dir} is locked by another writer (${(err as Error).message}). Try again in a moment.`,
    );
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}
