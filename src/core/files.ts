// Named imports, not a namespace: the bundle reaches a namespace's members through getters, measurable in a listing.
import { promises as fs, type Stats } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CheckpointError } from './errors';
import { threadPoolReads, type Reads } from './reads';

/** Prefix of temp files written next to their target; listing ignores them. */
export const TEMP_PREFIX = '.checkpoint-tmp-';

/** Returns true when `child` is `parent` itself or lies below it (lexically). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!leavesFolder(rel) && !isAbsolute(rel));
}

/** A relative path that climbs out of its folder (`..`, `../x`), not one that starts with a name such as `..x`. */
function leavesFolder(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${sep}`);
}

/**
 * A test for paths relative to `top` as git prints them (`/`-separated): true for one that {@link isInside} would
 * place in any of `dirs`. One prefix per folder is worked out once, so a test costs a string comparison, not two
 * path resolutions (it runs on every changed file of a save).
 */
export function insideAny(top: string, dirs: readonly string[]): (p: string) => boolean {
  // path.relative compares case-insensitively on Windows; so do the prefixes there.
  const fold = process.platform === 'win32' ? (s: string) => s.toLowerCase() : (s: string) => s;
  const prefixes: string[] = [];
  for (const dir of dirs) {
    // The folder is the top or holds it: every path is inside.
    if (isInside(dir, top)) return () => true;
    const rel = relative(top, dir);
    if (!leavesFolder(rel) && !isAbsolute(rel)) prefixes.push(fold(rel.split(sep).join('/')) + '/');
  }
  if (prefixes.length === 0) return () => false;
  return (p) => {
    const key = fold(p) + '/';
    return prefixes.some((prefix) => key.startsWith(prefix));
  };
}

/** Throws unless `target` resolves (lexically) inside `dir`. */
export function assertInside(dir: string, target: string): void {
  if (!isInside(resolve(dir), resolve(target))) {
    throw new CheckpointError(`Refusing to touch ${target}: it is outside the memory directory ${dir}.`);
  }
}

/**
 * Deletes a file; one that is not there is no error (what `fs.rm` with `force` does for a file, without loading
 * Node's recursive remover on every save). On Windows a read-only file refuses an unlink: `fs.rm` clears the flag
 * and tries again, so it does the rest there.
 */
export async function removeFile(file: string): Promise<void> {
  await fs.unlink(file).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return;
    if (process.platform === 'win32' && err.code === 'EPERM') return fs.rm(file, { force: true });
    throw err;
  });
}

/** Throws when `file` exists and is a symbolic link (we never write through one). */
export async function assertNotSymlink(file: string): Promise<Stats | undefined> {
  const st = await fs.lstat(file).catch(() => undefined);
  if (st?.isSymbolicLink()) {
    throw new CheckpointError(`Refusing to write ${file}: it is a symbolic link.`);
  }
  return st;
}

export async function exists(file: string): Promise<boolean> {
  return fs
    .lstat(file)
    .then(() => true)
    .catch(() => false);
}

/**
 * A new temp file in `dir`, created exclusively (O_EXCL) with a name of this process and a random part; a name
 * another writer took is never opened, another is tried. Not node:crypto's random bytes: the exclusive create is
 * what makes the name the writer's own, and that module costs ~4 ms to load in every command that writes.
 */
async function openTempFile(dir: string): Promise<{ tmp: string; handle: fs.FileHandle }> {
  for (let attempt = 1; ; attempt++) {
    const tmp = join(dir, `${TEMP_PREFIX}${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`);
    try {
      return { tmp, handle: await fs.open(tmp, 'wx', 0o644) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw err;
    }
  }
}

/**
 * Writes `content` to `file` atomically: a temp file in the same folder, fsync, then rename.
 * A reader sees the old or the new file, never a torn one. Never writes through a symlink.
 */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  // One lstat: a symbolic link is refused, and otherwise its mode is the file's own. The new file keeps the old
  // one's permissions (a private 0600 MEMORY.md stays private).
  const st = await assertNotSymlink(file);
  const dir = dirname(file);
  const { tmp, handle } = await openTempFile(dir);
  try {
    if (st) await handle.chmod(st.mode & 0o777);
    await handle.writeFile(content, typeof content === 'string' ? 'utf8' : undefined);
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => undefined);
    await removeFile(tmp);
    throw err;
  }
  await handle.close();
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await removeFile(tmp);
    throw err;
  }
  await syncDir(dir);
}

/**
 * Flushes a folder's entries to disk (after a rename into it), so that a power cut cannot lose the rename. File
 * systems and platforms that cannot fsync a folder (Windows) are skipped.
 */
export async function syncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM' && code !== 'EBADF' && code !== 'ENOTSUP') throw err;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** What identifies one version of a file: a rename, a rewrite or a touch changes it. */
export interface FileIdentity {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
}

export const identityOf = (st: Stats): FileIdentity => ({ dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs });

export const sameIdentity = (a: FileIdentity, b: FileIdentity): boolean =>
  a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

/** A small file's text through the thread pool (for code that is given no {@link Reads}: see `Reads.readSmallFile`). */
export const readSmallFile = (file: string, maxBytes: number): Promise<string> => threadPoolReads.readSmallFile(file, maxBytes);

/** A whole bounded file through the thread pool (see `Reads.readBounded`). */
export const readBounded = (file: string, maxBytes: number, opts?: { noFollow?: boolean }): Promise<Buffer> => threadPoolReads.readBounded(file, maxBytes, opts);

/** A file's last bytes through the thread pool (see `Reads.readTail`). */
export const readTail = (file: string, maxBytes: number): Promise<Buffer> => threadPoolReads.readTail(file, maxBytes);

/** Whether `p` is a folder; anything that cannot be looked at (missing, through a file, a name too long…) is not. */
export function isFolder(p: string, reads: Reads = threadPoolReads): Promise<boolean> {
  return reads.stat(p).then(
    (st) => st.isDirectory(),
    () => false,
  );
}

/** Removes temp files left behind by a write that was killed, older than `olderThanMs`. */
export async function cleanStaleTempFiles(dir: string, olderThanMs = 60_000): Promise<void> {
  const entries = await fs.readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  await Promise.all(
    entries
      .filter((e) => e.startsWith(TEMP_PREFIX))
      .map(async (e) => {
        const p = join(dir, e);
        const st = await fs.lstat(p).catch(() => undefined);
        if (st?.isFile() && now - st.mtimeMs > olderThanMs) await removeFile(p);
      }),
  );
}
