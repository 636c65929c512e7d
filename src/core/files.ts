// Named imports, not a namespace: the bundle reaches a namespace's members through getters, measurable in a listing.
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fs, readdirSync, readSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import path = require('node:path');
import { CheckpointError } from './errors';

/** Prefix of temp files written next to their target; listing ignores them. */
export const TEMP_PREFIX = '.checkpoint-tmp-';

/** Returns true when `child` is `parent` itself or lies below it (lexically). */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!leavesFolder(rel) && !path.isAbsolute(rel));
}

/** A relative path that climbs out of its folder (`..`, `../x`), not one that starts with a name such as `..x`. */
function leavesFolder(rel: string): boolean {
  return rel === '..' || rel.startsWith(`..${path.sep}`);
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
    const rel = path.relative(top, dir);
    if (!leavesFolder(rel) && !path.isAbsolute(rel)) prefixes.push(fold(rel.split(path.sep).join('/')) + '/');
  }
  if (prefixes.length === 0) return () => false;
  return (p) => {
    const key = fold(p) + '/';
    return prefixes.some((prefix) => key.startsWith(prefix));
  };
}

/** Throws unless `target` resolves (lexically) inside `dir`. */
export function assertInside(dir: string, target: string): void {
  if (!isInside(path.resolve(dir), path.resolve(target))) {
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
    const tmp = path.join(dir, `${TEMP_PREFIX}${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`);
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
  const dir = path.dirname(file);
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

/**
 * Reads a whole checkpoint file, or refuses with the reason: never through a symbolic link (the file could be
 * anywhere), never a FIFO or device, never more than `maxBytes` (the caller says what to do instead; nothing is
 * ever shown in part). Returns the text and the identity of the version read (from the open descriptor).
 */
export async function readWhole(file: string, maxBytes: number, opts: { sync?: boolean } = {}): Promise<{ text: string; identity: FileIdentity }> {
  const link = opts.sync ? lstatSync(file, { throwIfNoEntry: false }) : await fs.lstat(file).catch(() => undefined);
  if (link?.isSymbolicLink()) throw new CheckpointError('it is a symbolic link, and checkpoint files are never read through one');
  if (opts.sync) {
    const fd = openSync(file, NO_FOLLOW_NO_WAIT);
    try {
      const st = fstatSync(fd);
      checkWhole(st, maxBytes);
      const buffer = Buffer.allocUnsafe(st.size + 1);
      let total = 0;
      for (let n; total < buffer.length && (n = readSync(fd, buffer, total, buffer.length - total, total)) > 0; ) total += n;
      if (total > st.size) throw new CheckpointError('it grew while being read; try again');
      return { text: buffer.toString('utf8', 0, total), identity: identityOf(st) };
    } finally {
      closeSync(fd);
    }
  }
  const handle = await fs.open(file, NO_FOLLOW_NO_WAIT);
  try {
    const st = await handle.stat();
    checkWhole(st, maxBytes);
    const buffer = Buffer.allocUnsafe(st.size + 1);
    let total = 0;
    for (let n; total < buffer.length && (n = (await handle.read(buffer, total, buffer.length - total, total)).bytesRead) > 0; ) total += n;
    if (total > st.size) throw new CheckpointError('it grew while being read; try again');
    return { text: buffer.toString('utf8', 0, total), identity: identityOf(st) };
  } finally {
    await handle.close();
  }
}

function checkWhole(st: Stats, maxBytes: number): void {
  if (!st.isFile()) throw new CheckpointError('not a regular file');
  if (st.size > maxBytes) {
    throw new CheckpointError(
      `it is ${st.size} bytes, more than the ${maxBytes} bytes a checkpoint may have to be shown or resumed; it was not shown and nothing was consumed (open the file itself to read it)`,
    );
  }
}

/** The first read buffer of {@link readPrefix}; it doubles while the file fills it, up to `maxBytes + 1`. */
const FIRST_READ = 8 * 1024;

/** Open flags: read only, never wait on a FIFO (where the platform has it). */
const NO_WAIT = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** Open flags: read only, fail on a symbolic link, never wait on a FIFO (each where the platform has it). */
const NO_FOLLOW_NO_WAIT = NO_WAIT | (constants.O_NOFOLLOW ?? 0);

/**
 * Every read of a file the product did not write starts here: the open never waits (O_NONBLOCK: a FIFO opens at
 * once, where a plain open would block the thread, or the whole event loop when the read is inline, for ever), and
 * what was opened is refused unless it is a regular file (fstat of the open descriptor, so a file swapped for a FIFO
 * after a stat is refused too). Each reader then bounds what it reads. `noFollow`: fail on a symbolic link too.
 */
export async function openRegular(file: string, noFollow?: boolean): Promise<{ handle: fs.FileHandle; st: Stats }> {
  const handle = await fs.open(file, noFollow ? NO_FOLLOW_NO_WAIT : NO_WAIT);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new CheckpointError('not a regular file');
    return { handle, st };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** {@link openRegular} with synchronous I/O (a one-shot process). */
function openRegularSync(file: string, noFollow?: boolean): { fd: number; st: Stats } {
  const fd = openSync(file, noFollow ? NO_FOLLOW_NO_WAIT : NO_WAIT);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new CheckpointError('not a regular file');
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * Reads at most `maxBytes` from the start of a regular file. `truncated` tells whether more was there.
 * The buffer starts small and grows only for large files (listing thousands of ~2 KB checkpoints must not
 * allocate and zero a `maxBytes` buffer for each). `noFollow`: for a path its caller saw as a regular file (readdir's
 * type, an lstat): opened without waiting and failing on a symbolic link, with no fstat of its own (one per file of a
 * listing); what replaced it meanwhile is read without waiting (a FIFO gives nothing) and within `maxBytes`.
 */
export async function readPrefix(file: string, maxBytes: number, opts: { noFollow?: boolean } = {}): Promise<{ text: string; truncated: boolean; buffer: Buffer }> {
  const handle = opts.noFollow ? await fs.open(file, NO_FOLLOW_NO_WAIT) : (await openRegular(file)).handle;
  try {
    let buffer: Buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, FIRST_READ));
    let total = 0;
    for (;;) {
      if (total === buffer.length) {
        if (total === maxBytes + 1) break;
        buffer = grow(buffer, total, maxBytes + 1);
      }
      const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    return prefixResult(buffer, total, maxBytes);
  } finally {
    await handle.close();
  }
}

/** The scratch buffer of {@link readPrefixSync} (synchronous, so one buffer serves every call). */
let scratch: Buffer = Buffer.allocUnsafe(FIRST_READ);

/**
 * {@link readPrefix} with synchronous I/O, for the CLI (a one-shot process: nothing else waits on its thread).
 * It reads into one reused buffer, so it returns the text only. `noFollow`: as {@link readPrefix}'s.
 */
export function readPrefixSync(file: string, maxBytes: number, opts: { noFollow?: boolean } = {}): { text: string; truncated: boolean } {
  const fd = opts.noFollow ? openSync(file, NO_FOLLOW_NO_WAIT) : openRegularSync(file).fd;
  try {
    let total = 0;
    for (;;) {
      if (total === Math.min(scratch.length, maxBytes + 1)) {
        if (total === maxBytes + 1) break;
        scratch = grow(scratch, total, maxBytes + 1);
      }
      const want = Math.min(scratch.length, maxBytes + 1) - total;
      const bytesRead = readSync(fd, scratch, total, want, total);
      total += bytesRead;
      // A short read of a regular file is its end: no second read to be told so.
      if (bytesRead < want) break;
    }
    return { text: scratch.toString('utf8', 0, Math.min(total, maxBytes)), truncated: total > maxBytes };
  } finally {
    closeSync(fd);
  }
}

function grow(buffer: Buffer, used: number, limit: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.min(limit, buffer.length * 2));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

function prefixResult(buffer: Buffer, total: number, maxBytes: number): { text: string; truncated: boolean; buffer: Buffer } {
  const slice = buffer.subarray(0, Math.min(total, maxBytes));
  return { text: slice.toString('utf8'), truncated: total > maxBytes, buffer: slice };
}

/**
 * The bytes of a whole regular file of at most `maxBytes` (see {@link openRegular}): a FIFO, a device or a folder is
 * refused, a larger file too, and one that grows past the bound while it is read. `sync`: inline reads (a one-shot
 * process).
 */
export async function readBounded(file: string, maxBytes: number, opts: { sync?: boolean; noFollow?: boolean } = {}): Promise<Buffer> {
  if (opts.sync) return readBoundedSync(file, maxBytes, opts.noFollow);
  const { handle, st } = await openRegular(file, opts.noFollow);
  try {
    assertBound(st.size, maxBytes);
    const buffer = Buffer.allocUnsafe(st.size + 1);
    let total = 0;
    for (let n; total < buffer.length && (n = (await handle.read(buffer, total, buffer.length - total, total)).bytesRead) > 0; ) total += n;
    return finishBounded(buffer, total, st.size);
  } finally {
    await handle.close();
  }
}

function readBoundedSync(file: string, maxBytes: number, noFollow?: boolean): Buffer {
  const { fd, st } = openRegularSync(file, noFollow);
  try {
    assertBound(st.size, maxBytes);
    const buffer = Buffer.allocUnsafe(st.size + 1);
    let total = 0;
    for (let n; total < buffer.length && (n = readSync(fd, buffer, total, buffer.length - total, total)) > 0; ) total += n;
    return finishBounded(buffer, total, st.size);
  } finally {
    closeSync(fd);
  }
}

function assertBound(size: number, maxBytes: number): void {
  if (size > maxBytes) throw new CheckpointError(`too large (${size} bytes; at most ${maxBytes} are read)`);
}

/** The bytes read into a buffer one byte longer than the file's size: filling it means the file grew meanwhile. */
function finishBounded(buffer: Buffer, total: number, size: number): Buffer {
  if (total > size) throw new CheckpointError('it grew while being read; try again');
  return buffer.subarray(0, total);
}

/**
 * The last `maxBytes` bytes of a regular file (all of a smaller one; see {@link openRegular}). `sync`: inline reads
 * (a one-shot process).
 */
export async function readTail(file: string, maxBytes: number, opts: { sync?: boolean } = {}): Promise<Buffer> {
  if (opts.sync) {
    const { fd, st } = openRegularSync(file);
    try {
      const buffer = Buffer.allocUnsafe(Math.min(st.size, maxBytes));
      let total = 0;
      for (let n; total < buffer.length && (n = readSync(fd, buffer, total, buffer.length - total, st.size - buffer.length + total)) > 0; ) total += n;
      return buffer.subarray(0, total);
    } finally {
      closeSync(fd);
    }
  }
  const { handle, st } = await openRegular(file);
  try {
    const buffer = Buffer.allocUnsafe(Math.min(st.size, maxBytes));
    let total = 0;
    for (let n; total < buffer.length && (n = (await handle.read(buffer, total, buffer.length - total, st.size - buffer.length + total)).bytesRead) > 0; ) total += n;
    return buffer.subarray(0, total);
  } finally {
    await handle.close();
  }
}

/**
 * Reads a small file whose path a workspace (a cloned repository) may control: refuses anything but a regular file
 * (a FIFO would block forever, a link to /dev/zero would never end) and files larger than `maxBytes`.
 */
export async function readSmallFile(file: string, maxBytes: number): Promise<string> {
  return (await readBounded(file, maxBytes)).toString('utf8');
}

/** {@link readSmallFile} with synchronous I/O (a one-shot process). */
function readSmallFileSync(file: string, maxBytes: number): string {
  return readBoundedSync(file, maxBytes).toString('utf8');
}

/**
 * The reads that find a memory folder, a repository and what a session start says, done one of two ways with the
 * same results and errors. The extension host (and the MCP server) reads through Node's thread pool, so that a slow
 * file system never blocks it; a one-shot process (the CLI, a hook: a store's `syncReads`) reads inline, which
 * spares it the thread pool and `fs/promises` (about 4 ms of a session start). The price: an inline read is not given
 * up on, so on a file system that hangs a hook waits for its host's time limit instead of its own (as its listing of
 * the memory folder already did).
 */
export interface FileReads {
  stat(file: string): Promise<Stats>;
  lstat(file: string): Promise<Stats>;
  /** The path with every link resolved (the system's realpath, as `fs.promises.realpath`). */
  realpath(file: string): Promise<string>;
  readSmallFile(file: string, maxBytes: number): Promise<string>;
  /** A folder's entries with their types. */
  readdir(dir: string): Promise<Dirent[]>;
}

const THREAD_POOL_READS: FileReads = {
  stat: (file) => fs.stat(file),
  lstat: (file) => fs.lstat(file),
  realpath: (file) => fs.realpath(file),
  readSmallFile,
  readdir: (dir) => fs.readdir(dir, { withFileTypes: true }),
};

/** Runs a synchronous read as a promise: its value, or its error as the rejection. */
function inline<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (err) {
    return Promise.reject(err);
  }
}

const INLINE_READS: FileReads = {
  stat: (file) => inline(() => statSync(file)),
  lstat: (file) => inline(() => lstatSync(file)),
  realpath: (file) => inline(() => realpathSync.native(file)),
  readSmallFile: (file, maxBytes) => inline(() => readSmallFileSync(file, maxBytes)),
  readdir: (dir) => inline(() => readdirSync(dir, { withFileTypes: true })),
};

/** The reads for a caller: inline when it is a one-shot process (`syncReads`), else through the thread pool. */
export function fileReads(syncReads?: boolean): FileReads {
  return syncReads ? INLINE_READS : THREAD_POOL_READS;
}

/** Whether `p` is a folder; anything that cannot be looked at (missing, through a file, a name too long…) is not. */
export function isFolder(p: string, reads: FileReads = fileReads()): Promise<boolean> {
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
        const p = path.join(dir, e);
        const st = await fs.lstat(p).catch(() => undefined);
        if (st?.isFile() && now - st.mtimeMs > olderThanMs) await removeFile(p);
      }),
  );
}
