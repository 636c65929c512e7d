import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { CheckpointError } from './errors';

/** Prefix of temp files written next to their target; listing ignores them. */
export const TEMP_PREFIX = '.checkpoint-tmp-';

/** Returns true when `child` is `parent` itself or lies below it (lexically). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Throws unless `target` resolves (lexically) inside `dir`. */
export function assertInside(dir: string, target: string): void {
  if (!isInside(path.resolve(dir), path.resolve(target))) {
    throw new CheckpointError(`Refusing to touch ${target}: it is outside the memory directory ${dir}.`);
  }
}

/** Throws when `file` exists and is a symbolic link (we never write through one). */
export async function assertNotSymlink(file: string): Promise<void> {
  const st = await fs.lstat(file).catch(() => undefined);
  if (st?.isSymbolicLink()) {
    throw new CheckpointError(`Refusing to write ${file}: it is a symbolic link.`);
  }
}

export async function exists(file: string): Promise<boolean> {
  return fs
    .lstat(file)
    .then(() => true)
    .catch(() => false);
}

/**
 * Writes `content` to `file` atomically: a temp file in the same folder, fsync, then rename.
 * A reader sees the old or the new file, never a torn one. Never writes through a symlink.
 */
export async function writeFileAtomic(file: string, content: string): Promise<void> {
  await assertNotSymlink(file);
  const dir = path.dirname(file);
  const tmp = path.join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
  const handle = await fs.open(tmp, 'wx', 0o644);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

/** Reads at most `maxBytes` from the start of a file. `truncated` tells whether more was there. */
export async function readPrefix(file: string, maxBytes: number): Promise<{ text: string; truncated: boolean; buffer: Buffer }> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes + 1);
    let total = 0;
    while (total < buffer.length) {
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    const truncated = total > maxBytes;
    const slice = buffer.subarray(0, Math.min(total, maxBytes));
    return { text: slice.toString('utf8'), truncated, buffer: slice };
  } finally {
    await handle.close();
  }
}

/** Removes temp files left behind by a write that was killed, older than `olderThanMs`. */
export async function cleanStaleTempFiles(dir: string, olderThanMs = 60_000): Promise<void> {
  const entries = await fs.readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  await Promise.all(
    entries
      .filter((e) => e.startsWith(TEMP_PREFIX))
      .map(async (e) => {
        const p = path.join(dir, e);
        const st = await fs.lstat(p).catch(() => undefined);
        if (st?.isFile() && now - st.mtimeMs > olderThanMs) await fs.rm(p, { force: true });
      }),
  );
}
