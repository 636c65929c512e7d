// Reading a memory directory: the listing, one checkpoint, the lookup by name, MEMORY.md and the trash's copies.
// Editor-free; the store (store.ts) adds the writes.
import { isUtf8 } from 'node:buffer';
import type { Dirent } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { CheckpointError, errorMessage } from './errors';
import { parseCheckpoint } from './checkpointParse';
import type { Checkpoint } from './checkpoint';
import { assertInside, identityOf, isInside, type FileIdentity } from './files';
import { threadPoolReads, type Reads } from './reads';
import { readBranch } from './git';
import { readJsonCheckpoints, type JsonCheckpointFile } from './jsonCheckpoints';
import { indexedNames, INDEX_FILE } from './memoryIndex';
import { assertLookupName, fileNameFor, hasSeparator, isLookupName, nameFromFileName, resolveName, sanitizeName, validateName } from './names';
import { homeFrom } from './paths';
import { resolvePlanPath } from './plans';
import { trashedCopy } from './trash';
import { datedBy, jsonSummary, listEntry, mapPool, unreadableEntry, UNDATED } from './listEntries';
import { indexMismatch } from './indexRepair';
import { newestFirst } from './order';
import { CheckpointNotFoundError, LIST_READ_BYTES, MEMORY_INDEX_MAX_BYTES, SHOW_READ_BYTES, TRASH_DIR, UnreadableCheckpointError, type CheckpointSummary, type StoreOptions } from './storeTypes';

/** One file in the trash: a copy of checkpoint `name`, in the day folder `day` (YYYY-MM-DD). */
export interface TrashedCopy {
  name: string;
  path: string;
  day: string;
}

/** The checkpoints of one memory directory, read: list, show, find. Editor-free. */
export class CheckpointReader {
  readonly memoryDir: string;
  readonly cwd: string;
  /** False in Restricted Mode: git does not run. */
  readonly allowGit: boolean;
  /** The clock (injected by tests). */
  readonly now: () => Date;
  /** How this store reads (see {@link Reads}): chosen where the process starts. */
  readonly reads: Reads;
  /** The last MEMORY.md read, as bytes and text (see {@link CheckpointReader.readIndex}). */
  private lastIndex?: { bytes: Buffer; text: string };
  protected readonly gitTimeoutMs: number | undefined;
  readonly home: string;

  constructor(opts: StoreOptions) {
    this.memoryDir = resolve(opts.memoryDir);
    this.cwd = resolve(opts.cwd);
    this.allowGit = opts.allowGit ?? true;
    this.now = opts.now ?? (() => new Date());
    this.reads = opts.reads ?? threadPoolReads;
    this.gitTimeoutMs = opts.gitTimeoutMs;
    this.home = opts.home ?? homeFrom(process.env);
  }

  get indexPath(): string {
    return join(this.memoryDir, INDEX_FILE);
  }

  /**
   * The file of a name: `checkpoint-<name>.md` for a name that may be looked up as it is (one the product wrote, or an
   * agent's looser one such as `fix:-login` as listed); else the sanitized name's. Throws when it would leave the
   * memory directory.
   */
  pathFor(name: string): string {
    // A `/` or `\` in a typed name only ever maps through the product's rule: never a path of its own.
    const p = join(this.memoryDir, fileNameFor(isLookupName(name) && !hasSeparator(name) ? name : validateName(name)));
    assertInside(this.memoryDir, p);
    return p;
  }

  /** The current branch, or '' when git may not run or there is none. */
  async currentBranch(): Promise<string> {
    return this.allowGit ? readBranch(this.cwd, { timeoutMs: this.gitTimeoutMs }) : '';
  }

  /** Parses one checkpoint file; `maxBytes` bounds what is read. */
  async read(file: string, maxBytes = SHOW_READ_BYTES): Promise<Checkpoint> {
    const name = fileNameOf(file);
    const { text, mtime } = await this.readText(file, maxBytes);
    return this.withPlanPath(parseCheckpoint(text, name, mtime));
  }

  /**
   * The checkpoint with its plan path as a path: `~/…` (the seed's form) expanded and a relative one resolved against
   * the folder, so that the plan is opened and read wherever it is, and one plan file is one plan however written.
   */
  withPlanPath<T extends { plan?: string }>(cp: T): T {
    if (cp.plan) {
      // Many checkpoints name one plan: each written form is resolved once (path.resolve is measurable in a listing).
      const paths = (this.planPaths ??= new Map<string, string>());
      let resolved = paths.get(cp.plan);
      if (resolved === undefined) paths.set(cp.plan, (resolved = resolvePlanPath(cp.plan, this.cwd, this.home)));
      cp.plan = resolved;
    }
    return cp;
  }
  private planPaths: Map<string, string> | undefined;

  /** The first `maxBytes` of a regular file and its mtime; never through a symbolic link. */
  protected async readText(file: string, maxBytes: number): Promise<{ text: string; mtime: string }> {
    const st = await this.reads.lstat(file);
    if (st.isSymbolicLink()) throw new CheckpointError(LINK_REFUSED);
    if (!st.isFile()) throw new CheckpointError('not a regular file');
    const { text } = await this.reads.readPrefix(file, maxBytes, NO_FOLLOW);
    return { text, mtime: st.mtime.toISOString() };
  }

  /**
   * The whole of a checkpoint file, parsed, with its text and the identity of the version read: at most
   * SHOW_READ_BYTES (a bigger file is refused, never shown in part), never through a symbolic link.
   */
  protected async readFull(file: string): Promise<{ checkpoint: Checkpoint; text: string; identity: FileIdentity }> {
    const name = fileNameOf(file);
    const { text, stats } = await this.reads.readWhole(file, SHOW_READ_BYTES);
    const identity = identityOf(stats);
    let checkpoint: Checkpoint;
    try {
      checkpoint = parseCheckpoint(text, name, new Date(identity.mtimeMs).toISOString());
    } catch (err) {
      throw new UnreadableCheckpointError(errorMessage(err), file, text);
    }
    return { checkpoint: this.withPlanPath(checkpoint), text, identity };
  }

  /**
   * One entry of the listing for a file: parsed, or unreadable with the reason. Never throws.
   * `details: false` leaves out `checkpoint` (the sections) and parses only what the entry shows. `regular`: readdir
   * reported a regular file, so it is read without a stat first (the stat, by path, cost as much as the read; the
   * mtime is only needed when the file carries no date). It is opened so that a file swapped meanwhile for a link
   * fails (and a FIFO does not block); any failure takes the careful way below, with the reasons it always gave.
   */
  async summarize(file: string, opts: { details?: boolean; regular?: boolean } = {}, name = fileNameOf(file)): Promise<CheckpointSummary> {
    let text: string | undefined;
    if (opts.regular) {
      try {
        ({ text } = await this.reads.readPrefix(file, LIST_READ_BYTES, NO_FOLLOW));
      } catch {
        text = undefined;
      }
    }
    if (text !== undefined) {
      try {
        const entry = this.listEntry(file, name, text, () => UNDATED, opts.details);
        // A file that carries no date is dated by its mtime, looked up for it alone.
        if (entry.saved === UNDATED) datedBy(entry, (await this.reads.stat(file)).mtime);
        return entry;
      } catch (err) {
        return unreadableEntry(file, name, err, await this.reads.stat(file).catch(() => undefined));
      }
    }
    try {
      const { text, mtime } = await this.readText(file, LIST_READ_BYTES);
      return this.listEntry(file, name, text, () => mtime, opts.details);
    } catch (err) {
      return unreadableEntry(file, name, err, await this.reads.stat(file).catch(() => undefined));
    }
  }

  /** {@link listEntry} with the plan path resolved (see {@link withPlanPath}). */
  protected listEntry(...args: Parameters<typeof listEntry>): CheckpointSummary {
    const entry = this.withPlanPath(listEntry(...args));
    if (entry.checkpoint) this.withPlanPath(entry.checkpoint);
    return entry;
  }

  /** The checkpoint files of the memory directory, each with whether readdir saw a regular file (not a link, FIFO, device). */
  protected async entries(): Promise<{ file: string; name: string; regular: boolean }[]> {
    const entries = (await unlessMissing(this.reads.readdir(this.memoryDir))) ?? [];
    // memoryDir is resolved (normalized) and an entry is a bare name: concatenation is path.join without its
    // normalize pass, which is measurable over thousands of entries.
    const dir = this.memoryDir.endsWith(sep) ? this.memoryDir : this.memoryDir + sep;
    const found: { file: string; name: string; regular: boolean }[] = [];
    for (const e of entries) {
      const name = nameFromFileName(e.name);
      if (name !== undefined) found.push({ file: dir + e.name, name, regular: e.isFile() });
    }
    return found;
  }

  /** Checkpoint files in the memory directory (names only; no reads). */
  async files(): Promise<string[]> {
    return (await this.entries()).map((e) => e.file);
  }

  /**
   * Every checkpoint, newest first; unreadable files are included with their reason.
   * `details: false`: entries without `checkpoint` (see {@link summarize}), for listings that show only the header.
   */
  async list(opts: { includeJson?: boolean; details?: boolean } = {}): Promise<CheckpointSummary[]> {
    const found = await mapPool(await this.entries(), 32, (e) => this.summarize(e.file, { details: opts.details, regular: e.regular }, e.name));
    const items: CheckpointSummary[] = [];
    for (const s of found) {
      // A file deleted or consumed by another writer between readdir and read is gone, not unreadable.
      const gone = s.unreadable !== undefined && (await this.reads.lstat(s.path).then(() => false, () => true));
      if (!gone) items.push(s);
    }
    if (opts.includeJson ?? true) items.push(...(await readJsonCheckpoints(this.cwd, this.reads)).map(jsonSummary));
    return items.sort(newestFirst(items));
  }

  /**
   * Finds a checkpoint by name with the one lookup every command uses ({@link resolveName}: the name as given, the
   * seed's rule, the product's rule, then a loose match): the Markdown file, else a JSON checkpoint. `name` is the
   * checkpoint's name as its file spells it. Undefined when none. A name with `..` or a control character is refused,
   * and so is a file that is a symbolic link leading out of the memory directory.
   */
  async find(rawName: string): Promise<{ name: string; path: string; source: 'markdown' | 'json'; json?: JsonCheckpointFile } | undefined> {
    assertLookupName(rawName);
    const name = resolveName(rawName, await this.knownNames());
    if (name !== undefined) {
      const file = this.pathFor(name);
      const st = await this.reads.lstat(file).catch(() => undefined);
      if (st?.isSymbolicLink()) await this.assertLinkInside(file);
      if (st) return { name, path: file, source: 'markdown' };
    }
    const jsons = await readJsonCheckpoints(this.cwd, this.reads);
    const jsonName = resolveName(rawName, jsons.map((j) => j.name));
    const json = jsons.find((j) => j.name === jsonName);
    if (json) return { name: json.name, path: json.path, source: 'json', json };
    // Not found, and not a name the product could have written either: say why.
    if (sanitizeName(rawName) === '') validateName(rawName);
    return undefined;
  }

  /** Throws unless the symbolic link `file` resolves to a file inside the memory directory. */
  protected async assertLinkInside(file: string): Promise<void> {
    const [target, dir] = await Promise.all([this.reads.realpath(file).catch(() => undefined), this.reads.realpath(this.memoryDir).catch(() => this.memoryDir)]);
    if (target === undefined || !isInside(dir, target)) {
      throw new CheckpointError(`Refusing to read ${file}: it is a symbolic link that leads out of the memory directory.`);
    }
  }

  /**
   * The whole checkpoint, and for a Markdown one the exact text that was parsed (`text`: what `show` prints, so
   * that what is shown is what was read). Throws when there is none, when it cannot be read, and when it is larger
   * than SHOW_READ_BYTES (never shown in part).
   */
  async show(rawName: string): Promise<Checkpoint & { path: string; text?: string }> {
    const found = await this.find(rawName);
    if (!found) throw await this.notFound(rawName);
    if (found.json) {
      if (!found.json.checkpoint) throw new CheckpointError(`Checkpoint ${found.path} is unreadable: ${found.json.unreadable}`);
      return { ...found.json.checkpoint, path: found.path };
    }
    const { checkpoint, text } = await this.readFullOrExplain(found.path);
    return { ...checkpoint, path: found.path, text };
  }

  /**
   * A checkpoint file read whole, as `show` reads it (a file over SHOW_READ_BYTES is refused, never cut), with the
   * identity of the version read: combine merges only what it read, and trashes a source only while it is that version.
   */
  async readVersion(file: string): Promise<{ checkpoint: Checkpoint; identity: FileIdentity }> {
    const { checkpoint, identity } = await this.readFullOrExplain(file);
    return { checkpoint, identity };
  }

  protected async readFullOrExplain(file: string): Promise<{ checkpoint: Checkpoint; text: string; identity: FileIdentity }> {
    try {
      return await this.readFull(file);
    } catch (err) {
      const message = `Checkpoint ${file} is unreadable: ${errorMessage(err)}`;
      throw err instanceof UnreadableCheckpointError ? new UnreadableCheckpointError(message, file, err.raw) : new CheckpointError(message);
    }
  }

  /** MEMORY.md's text, or undefined when there is none. */
  async readIndex(): Promise<string | undefined> {
    // A FIFO or a link to a device would block or never end: only a regular file is read.
    const st = await unlessMissing(this.reads.stat(this.indexPath));
    if (!st) return undefined;
    if (!st.isFile()) throw new CheckpointError(`${this.indexPath} is not a regular file; nothing was changed.`);
    const bytes = await this.reads.readBounded(this.indexPath, MEMORY_INDEX_MAX_BYTES).catch((err: unknown) => {
      throw new CheckpointError(`${this.indexPath} cannot be read (${errorMessage(err)}); nothing was changed.`);
    });
    // The same bytes as the last read (a write reads the file again under its lock): the same text, not decoded again.
    if (this.lastIndex?.bytes.equals(bytes)) return this.lastIndex.text;
    // Editing decoded text would replace invalid bytes everywhere in the file, outside our section too.
    if (!isUtf8(bytes)) {
      throw new CheckpointError(`${this.indexPath} is not valid UTF-8 text; it is left as it is, and nothing was changed. Convert it to UTF-8 to index checkpoints in it.`);
    }
    const text = bytes.toString('utf8');
    this.lastIndex = { bytes, text };
    return text;
  }

  /** Names of the checkpoint files in the memory directory (their bullets are checkpoints' whatever their shape). */
  /** The error for a name that no checkpoint has, naming the nearest ones. */
  async notFound(rawName: string): Promise<CheckpointNotFoundError> {
    const jsons = await readJsonCheckpoints(this.cwd, this.reads);
    return new CheckpointNotFoundError(rawName, this.memoryDir, [...(await this.knownNames()), ...jsons.map((j) => j.name)]);
  }

  protected async knownNames(): Promise<Set<string>> {
    return new Set((await this.entries()).map((e) => e.name));
  }

  /**
   * The names of the checkpoints in the trash (any day): their index lines are still theirs, so that a line left
   * behind by a resume or delete is told from a person's own line of the same shape.
   */
  protected async trashedNames(): Promise<Set<string>> {
    return new Set((await this.trashContents()).map((c) => c.name));
  }

  /**
   * Where MEMORY.md and the checkpoint files disagree: files without a bullet, and bullets the product wrote
   * whose file is gone (JSON checkpoints are never indexed). Undefined when MEMORY.md cannot be read. `listed`: the
   * listing just made (its files' names stand for the folder's, which is then not read again).
   */
  async indexMismatch(listed?: readonly CheckpointSummary[]): Promise<{ missing: string[]; orphans: string[] } | undefined> {
    const text = await this.readIndex().catch(() => undefined);
    // A listed checkpoint's name is its file's (see listEntry).
    const known = listed ? new Set(listed.filter((c) => c.source === 'markdown').map((c) => c.name)) : await this.knownNames();
    if (text === undefined) return known.size ? { missing: [...known].sort(), orphans: [] } : { missing: [], orphans: [] };
    return indexMismatch(text, known);
  }

  /** Names with an index bullet. */
  async indexedNames(): Promise<string[]> {
    const text = await this.readIndex();
    return text === undefined ? [] : indexedNames(text, await this.knownNames());
  }

  /**
   * Every copy in the trash, newest first (the newest day first; within a day, the later copy of a name first):
   * the checkpoint it is a copy of, its path and its day folder.
   */
  async trashContents(): Promise<TrashedCopy[]> {
    const trash = join(this.memoryDir, TRASH_DIR);
    if ((await this.reads.lstat(trash).catch(() => undefined))?.isDirectory() !== true) return [];
    const days = (await this.reads.readdir(trash)).filter((d) => d.isDirectory()).map((d) => d.name).sort().reverse();
    const all: (TrashedCopy & { n: number; at: number })[] = [];
    for (const [at, day] of days.entries()) {
      for (const { name: f } of await this.reads.readdir(join(trash, day)).catch(() => [] as Dirent[])) {
        const copy = trashedCopy(f);
        if (copy) all.push({ name: copy.name, path: join(trash, day, f), day, n: copy.n, at });
      }
    }
    return all.sort((a, b) => a.at - b.at || b.n - a.n || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(({ name, path: p, day }) => ({ name, path: p, day }));
  }

  /** The trashed copies of a checkpoint, newest first; the name is looked up as every command looks names up. */
  async trashedCopies(rawName: string): Promise<{ name: string; path: string }[]> {
    assertLookupName(rawName);
    const all = await this.trashContents();
    // The same lookup as every other command, over the names the trash holds.
    const name = resolveName(rawName, all.map((c) => c.name));
    return all.filter((c) => c.name === name).map(({ name: n, path: p }) => ({ name: n, path: p }));
  }

}

/** What `reading` gives, or undefined when the path does not exist; any other error is thrown. */
function unlessMissing<T>(reading: Promise<T>): Promise<T | undefined> {
  return reading.catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
}

/** The checkpoint name a file's name gives (the file name itself when it is not a checkpoint file's). */
function fileNameOf(file: string): string {
  const base = basename(file);
  return nameFromFileName(base) ?? base;
}

const LINK_REFUSED = 'it is a symbolic link, and checkpoint files are never read through one';
const NO_FOLLOW = { noFollow: true } as const;
