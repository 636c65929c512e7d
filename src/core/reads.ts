// Every read of a file the product did not write, and every read on a hot path, goes through one `Reads`: two
// implementations with the same results and the same errors, side by side below. A process picks one where it starts
// (the CLI's runner, the extension, the MCP server) and gives it to the store; nothing else chooses.
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fs, readdirSync, readSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { CheckpointError } from './errors';

/**
 * The reads of the core. Every file read here is opened without waiting (a FIFO opens at once, where a plain open
 * would block for ever) and refused unless it is a regular file (the fstat of the open descriptor, so a file swapped
 * for a FIFO after a stat is refused too), and each read is bounded. `noFollow`: fail on a symbolic link too.
 */
export interface Reads {
  stat(file: string): Promise<Stats>;
  lstat(file: string): Promise<Stats>;
  /** The path with every link resolved (the system's realpath). */
  realpath(file: string): Promise<string>;
  /** A folder's entries with their types. */
  readdir(dir: string): Promise<Dirent[]>;
  /**
   * The bytes of a whole regular file of at most `maxBytes`: a FIFO, a device or a folder is refused, a larger file
   * too, and one that grows past its size while it is read.
   */
  readBounded(file: string, maxBytes: number, opts?: { noFollow?: boolean }): Promise<Buffer>;
  /** {@link readBounded} as UTF-8 text (a small file whose path a workspace may control). */
  readSmallFile(file: string, maxBytes: number): Promise<string>;
  /**
   * A whole checkpoint file, or the reason it is not read: never through a symbolic link, never more than `maxBytes`
   * (nothing is ever shown in part). With the fstat of the version read.
   */
  readWhole(file: string, maxBytes: number): Promise<{ text: string; stats: Stats }>;
  /**
   * At most `maxBytes` from the start of a file; `truncated` tells whether more was there. `noFollow`: for a path its
   * caller saw as a regular file (readdir's type, an lstat): no fstat of its own (one per file of a listing); what
   * replaced it meanwhile is read without waiting (a FIFO fails: it has no positions) and within `maxBytes`.
   */
  readPrefix(file: string, maxBytes: number, opts?: { noFollow?: boolean }): Promise<{ text: string; truncated: boolean }>;
  /** The last `maxBytes` bytes of a regular file (all of a smaller one). */
  readTail(file: string, maxBytes: number): Promise<Buffer>;
}

/** Open flags: read only, never wait on a FIFO (where the platform has it). */
const NO_WAIT = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** Open flags: {@link NO_WAIT}, and fail on a symbolic link (where the platform has it). */
const NO_FOLLOW_NO_WAIT = NO_WAIT | (constants.O_NOFOLLOW ?? 0);
const flags = (noFollow: boolean | undefined): number => (noFollow ? NO_FOLLOW_NO_WAIT : NO_WAIT);

/** The first read buffer of a prefix; it doubles while the file fills it, up to `maxBytes + 1`. */
const FIRST_READ = 8 * 1024;

const LINK_REFUSED = 'it is a symbolic link, and checkpoint files are never read through one';

function assertRegular(st: Stats): void {
  if (!st.isFile()) throw new CheckpointError('not a regular file');
}

function assertBound(size: number, maxBytes: number): void {
  if (size > maxBytes) throw new CheckpointError(`too large (${size} bytes; at most ${maxBytes} are read)`);
}

function assertCheckpointSize(size: number, maxBytes: number): void {
  if (size > maxBytes) {
    throw new CheckpointError(
      `it is ${size} bytes, more than the ${maxBytes} bytes a checkpoint may have to be shown or resumed; it was not shown and nothing was consumed (open the file itself to read it)`,
    );
  }
}

/** The bytes read into a buffer one byte longer than the file's size: filling it means the file grew meanwhile. */
function finishBounded(buffer: Buffer, total: number, size: number): Buffer {
  if (total > size) throw new CheckpointError('it grew while being read; try again');
  return buffer.subarray(0, total);
}

/** A bigger buffer for a prefix (twice, at most `limit`), with what was read so far. */
function grow(buffer: Buffer, used: number, limit: number): Buffer {
  const bigger = Buffer.allocUnsafe(Math.min(limit, buffer.length * 2));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

// ---- Through Node's thread pool: the event loop never waits on a file system, and a time limit can fire. ----------

/** Opens a regular file without waiting (see {@link Reads}). */
async function openRegular(file: string, noFollow?: boolean): Promise<{ handle: fs.FileHandle; st: Stats }> {
  const handle = await fs.open(file, flags(noFollow));
  try {
    const st = await handle.stat();
    assertRegular(st);
    return { handle, st };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * The whole of an opened file of `st.size` bytes (one byte more is asked for: see {@link finishBounded}); once that
 * size is read, no second read asks whether it ended.
 */
async function readAll(handle: fs.FileHandle, st: Stats): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(st.size + 1);
  let total = 0;
  while (total < buffer.length) {
    const { bytesRead } = await handle.read(buffer, total, buffer.length - total, total);
    total += bytesRead;
    // The end, or all of the size fstat gave (a file that grew meanwhile fills the buffer's last byte).
    if (bytesRead === 0 || total >= st.size) break;
  }
  return finishBounded(buffer, total, st.size);
}

export const threadPoolReads: Reads = {
  stat: (file) => fs.stat(file),
  lstat: (file) => fs.lstat(file),
  realpath: (file) => fs.realpath(file),
  readdir: (dir) => fs.readdir(dir, { withFileTypes: true }),
  async readBounded(file, maxBytes, opts = {}) {
    const { handle, st } = await openRegular(file, opts.noFollow);
    try {
      assertBound(st.size, maxBytes);
      return await readAll(handle, st);
    } finally {
      await handle.close();
    }
  },
  readSmallFile: async (file, maxBytes) => (await threadPoolReads.readBounded(file, maxBytes)).toString('utf8'),
  async readWhole(file, maxBytes) {
    if ((await fs.lstat(file).catch(() => undefined))?.isSymbolicLink()) throw new CheckpointError(LINK_REFUSED);
    const { handle, st } = await openRegular(file, true);
    try {
      assertCheckpointSize(st.size, maxBytes);
      return { text: (await readAll(handle, st)).toString('utf8'), stats: st };
    } finally {
      await handle.close();
    }
  },
  async readPrefix(file, maxBytes, opts = {}) {
    const handle = opts.noFollow ? await fs.open(file, NO_FOLLOW_NO_WAIT) : (await openRegular(file)).handle;
    try {
      let buffer: Buffer = Buffer.allocUnsafe(Math.min(maxBytes + 1, FIRST_READ));
      let total = 0;
      for (;;) {
        if (total === buffer.length) {
          if (total === maxBytes + 1) break;
          buffer = grow(buffer, total, maxBytes + 1);
        }
        const want = buffer.length - total;
        const { bytesRead } = await handle.read(buffer, total, want, total);
        total += bytesRead;
        // A short read of a regular file is its end: no second read to be told so.
        if (bytesRead < want) break;
      }
      return { text: buffer.toString('utf8', 0, Math.min(total, maxBytes)), truncated: total > maxBytes };
    } finally {
      await handle.close();
    }
  },
  async readTail(file, maxBytes) {
    const { handle, st } = await openRegular(file);
    try {
      const buffer = Buffer.allocUnsafe(Math.min(st.size, maxBytes));
      let total = 0;
      for (let n; total < buffer.length && (n = (await handle.read(buffer, total, buffer.length - total, st.size - buffer.length + total)).bytesRead) > 0; ) total += n;
      return buffer.subarray(0, total);
    } finally {
      await handle.close();
    }
  },
};

// ---- Inline: for a one-shot process that waits on nothing else (about 4 ms of a start, and thousands of reads of a
// ---- listing several times faster). A read that hangs blocks the process, time limits included. -------------------

/** {@link openRegular}, inline. */
function openRegularSync(file: string, noFollow?: boolean): { fd: number; st: Stats } {
  const fd = openSync(file, flags(noFollow));
  try {
    const st = fstatSync(fd);
    assertRegular(st);
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** {@link readAll}, inline. */
function readAllSync(fd: number, st: Stats): Buffer {
  const buffer = Buffer.allocUnsafe(st.size + 1);
  let total = 0;
  while (total < buffer.length) {
    const n = readSync(fd, buffer, total, buffer.length - total, total);
    total += n;
    // The end, or all of the size fstat gave (a file that grew meanwhile fills the buffer's last byte).
    if (n === 0 || total >= st.size) break;
  }
  return finishBounded(buffer, total, st.size);
}

/** An lstat, or undefined for whatever cannot be looked at (as the thread pool's `lstat().catch()`). */
function lstatOrNone(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/** The scratch buffer of inline prefixes: one read at a time, so one buffer serves every call. */
let scratch: Buffer = Buffer.allocUnsafe(FIRST_READ);

export const inlineReads: Reads = {
  stat: async (file) => statSync(file),
  lstat: async (file) => lstatSync(file),
  realpath: async (file) => realpathSync.native(file),
  readdir: async (dir) => readdirSync(dir, { withFileTypes: true }),
  async readBounded(file, maxBytes, opts = {}) {
    const { fd, st } = openRegularSync(file, opts.noFollow);
    try {
      assertBound(st.size, maxBytes);
      return readAllSync(fd, st);
    } finally {
      closeSync(fd);
    }
  },
  readSmallFile: async (file, maxBytes) => (await inlineReads.readBounded(file, maxBytes)).toString('utf8'),
  async readWhole(file, maxBytes) {
    if (lstatOrNone(file)?.isSymbolicLink()) throw new CheckpointError(LINK_REFUSED);
    const { fd, st } = openRegularSync(file, true);
    try {
      assertCheckpointSize(st.size, maxBytes);
      return { text: readAllSync(fd, st).toString('utf8'), stats: st };
    } finally {
      closeSync(fd);
    }
  },
  async readPrefix(file, maxBytes, opts = {}) {
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
  },
  async readTail(file, maxBytes) {
    const { fd, st } = openRegularSync(file);
    try {
      const buffer = Buffer.allocUnsafe(Math.min(st.size, maxBytes));
      let total = 0;
      for (let n; total < buffer.length && (n = readSync(fd, buffer, total, buffer.length - total, st.size - buffer.length + total)) > 0; ) total += n;
      return buffer.subarray(0, total);
    } finally {
      closeSync(fd);
    }
  },
};
