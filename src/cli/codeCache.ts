// V8's code cache for the CLI's bundle. A command is a fresh Node process: without a cache it parses and compiles
// the bundle again each time (about a tenth of a session start). Node 22.1+ has module.enableCompileCache(); the
// same is done here for every supported Node, with vm.Script's cachedData, so that one path serves them all.
//
// The cache lives beside the code it caches (dist/.v8-cache/): whoever can write it can already rewrite the bundle,
// so it adds no way in. A cache file is used only when it is this user's and writable by no one else (so not on
// Windows, where that is not a file's mode: there the bundle always runs uncached), and it is named by the bundle
// file's identity (device, inode, size, modification and change times) and the V8 version, so a changed bundle or
// another Node (or Electron) never meets an old cache (V8 refuses one of another version or length itself, too).
// Nothing here may fail a command: when the folder cannot be written, or anything else goes wrong, the bundle runs
// uncached.
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync, constants, type Stats } from 'node:fs';
import { Module, createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

const CACHE_DIR = '.v8-cache';
/** The words a cache may be named by: one cache per command, as each compiles different functions. */
const KEY_WORD = /^[a-z][a-z-]*$/;
/** How a bundle names a library built apart beside it (scripts/build.mjs): `./<name>.js`. */
const SIBLING = /^\.\/[a-z][a-z-]*\.js$/i;
/** Set when the run gives up: it exits at once, and a cache of a run cut short is not written. */
let skipped = false;
export const skipCodeCache = (): void => {
  skipped = true;
};
/** Whether a file or folder is this user's and no one else may write it (POSIX: Windows keeps no cache). */
const ownAlone = (st: Stats): boolean => st.uid === process.geteuid?.() && (st.mode & 0o022) === 0;

/**
 * Loads a CommonJS bundle as `require` would, with V8's code cache, and the libraries built apart that it requires
 * (`./proper-lockfile.js`…) the same way. `word` (the command) names the cache: the first successful run of each
 * command writes its own for each file it loaded, with every function that run compiled. Set CHECKPOINT_CODE_CACHE=0
 * to load the bundle without it.
 */
export function requireCached(file: string, word: string | undefined): unknown {
  if (process.env.CHECKPOINT_CODE_CACHE === '0' || process.platform === 'win32') return createRequire(file)(file);
  const plain = createRequire(file);
  // Loaded already: the same module, as with require.
  const loaded = plain.cache[file];
  if (loaded) return loaded.exports;
  const dir = dirname(file);
  const base = basename(file, '.js');
  const fd = openSync(file, 'r');
  let source: string;
  let id: string;
  try {
    const st = fstatSync(fd);
    source = readFileSync(fd, 'utf8');
    // The change time too: a copy that keeps the modification time (cp -p, rsync -t) cannot keep it.
    id = `${st.dev}-${st.ino}-${st.size}-${Math.round(st.mtimeMs * 1000)}-${Math.round(st.ctimeMs * 1000)}`;
  } finally {
    closeSync(fd);
  }
  const cacheFile = join(dir, CACHE_DIR, `${base}.${id}.${word !== undefined && word.length <= 32 && KEY_WORD.test(word) ? word : 'any'}.v8-${process.versions.v8}-${process.arch}.bin`);
  const cachedData = readOwnFile(cacheFile);
  // The wrapper Node puts around a CommonJS module, on the source's first line so that line numbers stay.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, { filename: file, cachedData });
  // A module of Node's own, in require's cache as `require(file)` would leave it.
  // The libraries built apart beside it (`require("./proper-lockfile.js")`) load the same way, each with its cache.
  const req = Object.assign((id: string): unknown => (SIBLING.test(id) ? requireCached(join(dir, id.slice(2)), word) : plain(id)), plain);
  const mod = new Module(file);
  mod.filename = file;
  req.cache[file] = mod;
  try {
    (script.runInThisContext() as (...a: unknown[]) => void).call(mod.exports, mod.exports, req, mod, file, dir);
  } catch (err) {
    delete req.cache[file];
    throw err;
  }
  mod.loaded = true;
  if (!cachedData || script.cachedDataRejected) {
    // At exit, so that the cache holds every function this run compiled; only after a run that succeeded.
    process.once('exit', (code) => {
      if (code === 0 && !skipped) {
        writeCache(cacheFile, `${base}.`, `${base}.${id}.`, () => script.createCachedData());
      }
    });
  }
  return mod.exports;
}

/** The file's bytes when it is a regular file of this user that no one else may write; else undefined. */
function readOwnFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || !ownAlone(st)) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the cache atomically (a temp file of this process, then rename) into the cache folder, made if missing;
 * never through a link, never into a folder of another user. Removes the caches of earlier versions of the bundle
 * (`prefix` without `current`) and the bundle's temp files that a run ended before renaming. Every failure is ignored.
 */
function writeCache(file: string, prefix: string, current: string, data: () => Buffer): void {
  const dir = dirname(file);
  try {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
    }
    const st = lstatSync(dir);
    if (!st.isDirectory() || !ownAlone(st)) return;
    const tmp = `${file}.${process.pid}.tmp`;
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
    try {
      try {
        const bytes = data();
        for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    } catch (err) {
      unlinkSync(tmp);
      throw err;
    }
    for (const f of readdirSync(dir)) {
      if (f.startsWith(prefix) && (f.endsWith('.tmp') || (!f.startsWith(current) && f.endsWith('.bin')))) unlinkSync(join(dir, f));
    }
  } catch {
    // A cache is an optimization: the next run tries again.
  }
}
