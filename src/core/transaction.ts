// The pieces of a write transaction in a memory directory: a file replaced with a way back, moves to the trash
// undone, and the fallback folder created ignored by git.
import { constants as fsConstants, promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { exists, identityOf, removeFile, sameIdentity, syncDir, TEMP_PREFIX } from './files';

export interface Move {
  from: string;
  to: string;
  /** Trash folders this move created (removed again by an undo). */
  created: string[];
}

export async function removeTrashCopy(copy: string | undefined, created: string[]): Promise<void> {
  if (copy) await removeFile(copy);
  for (const dir of [...created].reverse()) await fs.rmdir(dir).catch(() => undefined);
}

export async function undoMoves(moved: Move[]): Promise<void> {
  for (const m of [...moved].reverse()) {
    await fs.rename(m.to, m.from).catch(() => undefined);
    for (const dir of [...m.created].reverse()) await fs.rmdir(dir).catch(() => undefined);
  }
}

/** A checkpoint file put in place, with how to take it back (a later step failed) and how to make it final. */
export interface Placed {
  undo: () => Promise<void>;
  commit: () => Promise<void>;
}

/**
 * Puts a new version of `file` in place with `put` (one atomic write or rename), and returns how to undo that (take
 * the new version back with `retract` — by default it is dropped — and put the previous version back) and how to make
 * it final. The previous version is kept under a temp name (a hard link, so no space is needed; a copy where links
 * are not possible) until `commit`.
 */
export async function replaceWithUndo(file: string, put: () => Promise<void>, retract?: () => Promise<void>): Promise<Placed> {
  const dir = dirname(file);
  const previous = await fs.lstat(file).catch(() => undefined);
  let backup: string | undefined;
  if (previous) {
    backup = join(dir, `${TEMP_PREFIX}${process.pid}-previous-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`);
    await fs.link(file, backup).catch(() => fs.copyFile(file, backup!, fsConstants.COPYFILE_EXCL));
  }
  try {
    await put();
  } catch (err) {
    if (backup) await removeFile(backup);
    throw err;
  }
  const placed = identityOf(await fs.lstat(file));
  return {
    undo: async () => {
      // Only our own version is taken back.
      const now = await fs.lstat(file).catch(() => undefined);
      if (now && !sameIdentity(placed, identityOf(now))) return;
      if (retract) await retract();
      if (backup) await fs.rename(backup, file);
      else if (!retract) await removeFile(file);
      await syncDir(dir);
    },
    commit: async () => {
      if (backup) await removeFile(backup);
    },
  };
}

/**
 * Creates `dir` (when it does not exist yet) with a `.gitignore` of `*` in it: git then ignores the folder and
 * everything in it, the `.gitignore` included. Whoever creates the folder writes the file; a folder that exists
 * is left as it is.
 */
export async function createIgnoredDir(dir: string): Promise<void> {
  if (await exists(dir)) return;
  await fs.mkdir(dirname(dir), { recursive: true });
  try {
    await fs.mkdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  await fs.writeFile(join(dir, '.gitignore'), '*\n', { flag: 'wx' });
}

