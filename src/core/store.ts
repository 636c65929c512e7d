import { promises as fs, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, errorMessage } from './errors';
import { describe, parseCheckpoint, parseCheckpointHeader, renderCheckpoint, type Checkpoint, type CheckpointHeader } from './checkpoint';
import { formatLocalDate, formatLocalDateTime } from './dates';
import { assertInside, assertNotSymlink, cleanStaleTempFiles, exists, preloadAtomicWrite, readPrefix, readPrefixSync, writeFileAtomic } from './files';
import { branchDiffers, readBranch, readGitState } from './git';
import { readJsonCheckpoints, type JsonCheckpointFile } from './jsonCheckpoints';
import { preloadLock, withDirLock } from './lock';
import { formatBullet, indexedNames, INDEX_FILE, removeFromIndex, upsertIndex } from './memoryIndex';
import { fileNameFor, nameFromFileName, printable, validateName } from './names';
import { recordResume } from './pending';
import { readPlanProgress } from './plans';
import { recordLastCheckpoint } from './stateIndex';

/** Listing reads only this much of each file: front matter and the first sections are at the top. */
export const LIST_READ_BYTES = 64 * 1024;
/** `show` and `resume` read at most this much. */
export const SHOW_READ_BYTES = 4 * 1024 * 1024;
export const TRASH_DIR = '.trash';

export interface CheckpointSummary {
  name: string;
  path: string;
  branch: string;
  saved: string;
  description: string;
  plan?: string;
  planStep?: number;
  planSteps?: number;
  /** Why the file could not be read; the other fields are then best effort. */
  unreadable?: string;
  /** `json` for the read-only JSON checkpoints of plan-scoped procedures. */
  source: 'markdown' | 'json';
  /** The parsed checkpoint (from the first {@link LIST_READ_BYTES}), for tooltips. */
  checkpoint?: Checkpoint;
}

export interface SaveInput {
  name: string;
  leftOff?: string;
  done?: string[];
  failed?: string[];
  decisions?: string[];
  questions?: string[];
  /** Plan file path (absolute, or relative to the workspace folder). */
  plan?: string;
  force?: boolean;
  /** Given instead of asking git (for example in Restricted Mode). */
  git?: { branch: string; modifiedFiles: string[] };
  /** Saved by a hook: marked `auto: true`, with the agent session it belongs to. */
  auto?: { session?: string };
}

export interface SaveResult {
  checkpoint: Checkpoint;
  path: string;
  overwritten: boolean;
  warnings: string[];
}

export interface ResumeResult {
  checkpoint: Checkpoint;
  path: string;
  currentBranch: string;
  branchMismatch: boolean;
  consumed: boolean;
  /** Where the consumed file went (for Undo). */
  trashPath?: string;
  source: 'markdown' | 'json';
  /** Problems that did not stop the resume (its record for `pending` could not be written). */
  warnings?: string[];
}

export interface StoreOptions {
  memoryDir: string;
  /** Workspace folder: git runs here; relative plan paths resolve against it. */
  cwd: string;
  /** False in an untrusted workspace: git never runs and the branch is unknown. */
  allowGit?: boolean;
  now?: () => Date;
  /**
   * The memory directory is `<folder>/.claude/memory` inside a git repository: when this store creates it, it
   * writes a `.gitignore` of `*` in it first, so that checkpoints are never committed by accident.
   */
  ignoreInGit?: boolean;
  /**
   * Read checkpoint files with synchronous I/O: for the CLI, a one-shot process where nothing else waits on the
   * thread, and where thousands of small reads are several times faster so. Never in the extension host.
   */
  syncReads?: boolean;
  /** Time limit of each git call (default GIT_TIMEOUT_MS); the save goes on without git data after it. */
  gitTimeoutMs?: number;
}

/** Raised when saving would overwrite a checkpoint; carries the existing one. */
export class CheckpointExistsError extends CheckpointError {
  constructor(
    readonly existing: Checkpoint | undefined,
    readonly existingPath: string,
    name: string,
  ) {
    const detail = existing
      ? ` (saved ${formatLocalDateTime(new Date(existing.saved))}, left off: "${printable(existing.description, 120)}")`
      : '';
    super(`A checkpoint named "${name}" already exists${detail}.`);
    this.name = 'CheckpointExistsError';
  }
}

/**
 * Raised by resume when the file is gone but its index bullet was still there: the orphan bullet has been
 * removed. Not a failure of the user's: the CLI reports it and exits 0.
 */
export class OrphanRemovedError extends CheckpointError {
  constructor(readonly checkpointName: string) {
    super(`Checkpoint file missing (cleaned up stale entry "${checkpointName}").`);
    this.name = 'OrphanRemovedError';
  }
}

/** Raised by resume without a name when there are several checkpoints. */
export class AmbiguousCheckpointError extends CheckpointError {
  constructor(readonly candidates: CheckpointSummary[]) {
    super(`There are ${candidates.length} checkpoints; name one: ${candidates.map((c) => c.name).join(', ')}.`);
    this.name = 'AmbiguousCheckpointError';
  }
}

/** Runs `fn` over `items` with at most `limit` at once (listing thousands of files must not exhaust descriptors). */
async function mapPool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The checkpoints of one memory directory: save, list, show, resume, delete. Editor-free. */
export class CheckpointStore {
  readonly memoryDir: string;
  readonly cwd: string;
  private readonly allowGit: boolean;
  /** The clock (injected by tests). */
  readonly now: () => Date;
  private readonly syncReads: boolean;
  private readonly ignoreInGit: boolean;
  private readonly gitTimeoutMs: number | undefined;

  constructor(opts: StoreOptions) {
    this.memoryDir = path.resolve(opts.memoryDir);
    this.cwd = path.resolve(opts.cwd);
    this.allowGit = opts.allowGit ?? true;
    this.now = opts.now ?? (() => new Date());
    this.syncReads = opts.syncReads ?? false;
    this.ignoreInGit = opts.ignoreInGit ?? false;
    this.gitTimeoutMs = opts.gitTimeoutMs;
  }

  /** Runs `fn` holding the memory directory's lock (which creates the directory; see {@link ignoreInGit}). */
  private async locked<T>(fn: () => Promise<T>): Promise<T> {
    if (this.ignoreInGit) await createIgnoredDir(this.memoryDir);
    return withDirLock(this.memoryDir, fn);
  }

  get indexPath(): string {
    return path.join(this.memoryDir, INDEX_FILE);
  }

  /** The file of a (sanitized) name; throws when it would leave the memory directory. */
  pathFor(name: string): string {
    const p = path.join(this.memoryDir, fileNameFor(validateName(name)));
    assertInside(this.memoryDir, p);
    return p;
  }

  /** The current branch, or '' when git may not run or there is none. */
  async currentBranch(): Promise<string> {
    return this.allowGit ? readBranch(this.cwd, { timeoutMs: this.gitTimeoutMs }) : '';
  }

  /** Parses one checkpoint file; `maxBytes` bounds what is read. */
  async read(file: string, maxBytes = SHOW_READ_BYTES): Promise<Checkpoint> {
    const name = nameFromFileName(path.basename(file)) ?? path.basename(file);
    const { text, mtime } = await this.readText(file, maxBytes);
    return parseCheckpoint(text, name, mtime);
  }

  /** The first `maxBytes` of a regular file and its mtime. */
  private async readText(file: string, maxBytes: number): Promise<{ text: string; mtime: string }> {
    const st = this.syncReads ? statSync(file) : await fs.stat(file);
    if (!st.isFile()) throw new CheckpointError('not a regular file');
    const { text } = this.syncReads ? readPrefixSync(file, maxBytes) : await readPrefix(file, maxBytes);
    return { text, mtime: st.mtime.toISOString() };
  }

  /**
   * One entry of the listing for a file: parsed, or unreadable with the reason. Never throws.
   * `details: false` leaves out `checkpoint` (the sections) and parses only what the entry shows.
   */
  async summarize(file: string, opts: { details?: boolean } = {}): Promise<CheckpointSummary> {
    if (this.syncReads) return this.summarizeSync(file, opts.details);
    const name = nameFromFileName(path.basename(file)) ?? path.basename(file);
    try {
      const { text, mtime } = await this.readText(file, LIST_READ_BYTES);
      return listEntry(file, name, text, () => mtime, opts.details);
    } catch (err) {
      return unreadableEntry(file, name, err, await fs.stat(file).catch(() => undefined));
    }
  }

  /**
   * {@link summarize} for a store with `syncReads`: the same entry, without a promise per file. `regular`: readdir
   * reported a regular file, so it is read without a stat first (the stat, by path, cost as much as the read; the
   * mtime is only needed when the file carries no date). It is opened so that a file swapped meanwhile for a link
   * fails (and a FIFO does not block); any failure takes the careful way below, with the reasons it always gave.
   */
  private summarizeSync(file: string, details: boolean | undefined, regular = false): CheckpointSummary {
    const name = nameFromFileName(path.basename(file)) ?? path.basename(file);
    if (regular) {
      let text: string | undefined;
      try {
        text = readPrefixSync(file, LIST_READ_BYTES, { noFollow: true }).text;
      } catch {
        text = undefined;
      }
      if (text !== undefined) {
        try {
          return listEntry(file, name, text, () => statSync(file).mtime.toISOString(), details);
        } catch (err) {
          return unreadableEntry(file, name, err, statOrNone(file));
        }
      }
    }
    try {
      const st = statSync(file);
      if (!st.isFile()) throw new CheckpointError('not a regular file');
      return listEntry(file, name, readPrefixSync(file, LIST_READ_BYTES).text, () => st.mtime.toISOString(), details);
    } catch (err) {
      return unreadableEntry(file, name, err, statOrNone(file));
    }
  }

  /** {@link files} with synchronous I/O, each with whether readdir saw a regular file (not a link, FIFO, device). */
  private filesSync(): { file: string; regular: boolean }[] {
    let entries: Dirent[];
    try {
      entries = readdirSync(this.memoryDir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    // memoryDir is resolved (normalized) and an entry is a bare name: concatenation is path.join without its
    // normalize pass, which is measurable over thousands of entries.
    const dir = this.memoryDir.endsWith(path.sep) ? this.memoryDir : this.memoryDir + path.sep;
    return entries.filter((e) => nameFromFileName(e.name) !== undefined).map((e) => ({ file: dir + e.name, regular: e.isFile() }));
  }

  /** Checkpoint files in the memory directory (names only; no reads). */
  async files(): Promise<string[]> {
    const entries = await fs.readdir(this.memoryDir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    return entries.filter((e) => nameFromFileName(e) !== undefined).map((e) => path.join(this.memoryDir, e));
  }

  /**
   * Every checkpoint, newest first; unreadable files are included with their reason.
   * `details: false`: entries without `checkpoint` (see {@link summarize}), for listings that show only the header.
   */
  async list(opts: { includeJson?: boolean; details?: boolean } = {}): Promise<CheckpointSummary[]> {
    // A file deleted or consumed by another writer between readdir and read is gone, not unreadable.
    const gone = async (s: CheckpointSummary): Promise<boolean> => s.unreadable !== undefined && !(await exists(s.path));
    let found: (CheckpointSummary | undefined)[];
    if (this.syncReads) {
      found = [];
      for (const { file, regular } of this.filesSync()) {
        const s = this.summarizeSync(file, opts.details, regular);
        found.push(s.unreadable !== undefined && (await gone(s)) ? undefined : s);
      }
    } else {
      found = await mapPool(await this.files(), 32, async (f) => {
        const s = await this.summarize(f, { details: opts.details });
        return (await gone(s)) ? undefined : s;
      });
    }
    const items = found.filter((s): s is CheckpointSummary => s !== undefined);
    if (opts.includeJson ?? true) items.push(...(await readJsonCheckpoints(this.cwd, { syncDirs: this.syncReads })).map(jsonSummary));
    return items.sort(newestFirst(items));
  }

  /** Finds a checkpoint by name: the Markdown file, else a JSON checkpoint. Undefined when none. */
  async find(rawName: string): Promise<{ path: string; source: 'markdown' | 'json'; json?: JsonCheckpointFile } | undefined> {
    const file = this.pathFor(rawName);
    if (await exists(file)) return { path: file, source: 'markdown' };
    const name = validateName(rawName);
    const json = (await readJsonCheckpoints(this.cwd)).find((j) => j.name === name);
    return json ? { path: json.path, source: 'json', json } : undefined;
  }

  /** The whole checkpoint. Throws when there is none or it cannot be read. */
  async show(rawName: string): Promise<Checkpoint & { path: string }> {
    const found = await this.find(rawName);
    if (!found) throw new CheckpointError(`No checkpoint named "${validateName(rawName)}" in ${this.memoryDir}.`);
    if (found.json) {
      if (!found.json.checkpoint) throw new CheckpointError(`Checkpoint ${found.path} is unreadable: ${found.json.unreadable}`);
      return { ...found.json.checkpoint, path: found.path };
    }
    try {
      return { ...(await this.read(found.path)), path: found.path };
    } catch (err) {
      throw new CheckpointError(`Checkpoint ${found.path} is unreadable: ${errorMessage(err)}`);
    }
  }

  /** Saves a checkpoint and its index bullet. Refuses to overwrite unless `force`. */
  async save(input: SaveInput): Promise<SaveResult> {
    const name = validateName(input.name);
    const file = this.pathFor(name);
    const pendingGit = input.git ?? (this.allowGit ? readGitState(this.cwd, { timeoutMs: this.gitTimeoutMs }) : { branch: '', modifiedFiles: [] });
    // While git runs in its child process, load what the write needs, which would otherwise load after it.
    preloadLock();
    preloadAtomicWrite();
    const git = await pendingGit;
    const leftOff = (input.leftOff ?? '').trim();
    const warnings: string[] = [];
    if ('timedOut' in git && git.timedOut) warnings.push(`${git.problem}; saved without the branch and the modified files.`);
    const cp: Checkpoint = {
      name,
      description: describe(leftOff),
      branch: git.branch,
      saved: this.now().toISOString(),
      leftOff,
      done: input.done ?? [],
      failed: input.failed ?? [],
      decisions: input.decisions ?? [],
      questions: input.questions ?? [],
      modifiedFiles: git.modifiedFiles,
    };
    if (input.auto) {
      cp.auto = true;
      if (input.auto.session) cp.session = input.auto.session;
    }
    const planPath = input.plan?.trim() ? path.resolve(this.cwd, input.plan.trim()) : undefined;
    // A plan path that leads nowhere is not a known plan: the checkpoint is saved without it (an agent's hook
    // must not lose the checkpoint over a moved plan), and the warning says so.
    if (planPath && !(await exists(planPath))) warnings.push(`Plan file ${planPath} was not found; saved without a plan.`);
    else if (planPath) {
      cp.plan = planPath;
      const progress = await readPlanProgress(cp.plan);
      if (progress) {
        cp.planStep = progress.step;
        cp.planSteps = progress.steps;
      }
    }
    const content = renderCheckpoint(cp);
    const result = await this.locked(async (): Promise<SaveResult> => {
      await cleanStaleTempFiles(this.memoryDir);
      await assertNotSymlink(file);
      await assertNotSymlink(this.indexPath);
      const overwritten = await exists(file);
      if (overwritten && !input.force) {
        throw new CheckpointExistsError(await this.read(file, LIST_READ_BYTES).catch(() => undefined), file, name);
      }
      const index = await this.readIndex();
      await writeFileAtomic(file, content);
      const edit = upsertIndex(index, name, formatBullet(cp), await this.knownNames());
      await writeFileAtomic(this.indexPath, edit.text);
      if (edit.budgetWarning) warnings.push(edit.budgetWarning);
      return { checkpoint: cp, path: file, overwritten, warnings };
    });
    // A plan-scoped checkpoint is the plan's last one (seed 003's `.claude/state-index.json`, when it exists).
    if (cp.plan) {
      const warning = await recordLastCheckpoint(this.cwd, cp.saved);
      if (warning) warnings.push(warning);
    }
    return result;
  }

  /**
   * Writes a checkpoint made elsewhere (a combination of others) with its index bullet, in one lock. An existing
   * checkpoint of that name goes to the trash first (no save destroys a checkpoint), then the files in `trash`
   * (checkpoint files of this memory directory), whose bullets go too. When the new file cannot be written, the
   * previous one is put back.
   */
  async saveCombined(cp: Checkpoint, opts: { trash?: string[] } = {}): Promise<{ path: string; replaced?: string; trashed: string[]; warnings: string[] }> {
    const name = validateName(cp.name);
    const file = this.pathFor(name);
    const others = (opts.trash ?? []).map((p) => path.resolve(p)).filter((p) => p !== file);
    for (const p of others) assertInside(this.memoryDir, p);
    const content = renderCheckpoint({ ...cp, name });
    return this.locked(async () => {
      await cleanStaleTempFiles(this.memoryDir);
      await assertNotSymlink(file);
      await assertNotSymlink(this.indexPath);
      const index = await this.readIndex();
      const replaced = (await exists(file)) ? await this.trashFile(file, path.basename(file)) : undefined;
      try {
        await writeFileAtomic(file, content);
      } catch (err) {
        if (replaced) await fs.rename(replaced, file).catch(() => undefined);
        throw err;
      }
      const trashed: string[] = [];
      for (const p of others) if (await exists(p)) trashed.push(await this.trashFile(p, path.basename(p)));
      const warnings: string[] = [];
      const edit = upsertIndex(index, name, formatBullet({ ...cp, name }));
      if (edit.budgetWarning) warnings.push(edit.budgetWarning);
      const trashedNames = others.map((p) => nameFromFileName(path.basename(p))).filter((n): n is string => n !== undefined);
      await writeFileAtomic(this.indexPath, trashedNames.length ? removeFromIndex(edit.text, trashedNames) : edit.text);
      return { path: file, replaced, trashed, warnings };
    });
  }

  /**
   * Resumes a checkpoint: compares branches and, unless `keep`, consumes it (file to trash, bullet removed).
   * Without a name: the only checkpoint, else AmbiguousCheckpointError; none: "No saved checkpoints found."
   * A name whose file is gone but whose bullet remains: the orphan bullet is removed and that is reported.
   */
  async resume(rawName: string | undefined, opts: { keep?: boolean } = {}): Promise<ResumeResult> {
    let name: string;
    if (rawName === undefined || rawName.trim() === '') {
      const all = (await this.list()).filter((c) => !c.unreadable);
      if (all.length === 0) throw new CheckpointError('No saved checkpoints found.');
      if (all.length > 1) throw new AmbiguousCheckpointError(all);
      name = all[0].name;
    } else {
      name = validateName(rawName);
    }
    const found = await this.find(name);
    if (!found) {
      if (await this.removeOrphan(name)) throw new OrphanRemovedError(name);
      throw new CheckpointError(`No checkpoint named "${name}" in ${this.memoryDir}.`);
    }
    const checkpoint = await this.show(name);
    const currentBranch = await this.currentBranch();
    const result: ResumeResult = {
      checkpoint,
      path: found.path,
      currentBranch,
      branchMismatch: branchDiffers(checkpoint.branch, currentBranch),
      consumed: false,
      source: found.source,
    };
    if (!opts.keep && found.source === 'markdown') {
      result.trashPath = await this.moveToTrash([name]).then((p) => p[0]);
      result.consumed = true;
    }
    // What was saved before this resume is no longer pending (`checkpoint pending`, the session-start hook).
    const warning = await recordResume(this.memoryDir, name, this.now());
    if (warning) result.warnings = [warning];
    return result;
  }

  /** Moves checkpoints to trash and removes their bullets. Returns the trash paths. */
  async delete(rawName: string): Promise<string> {
    const name = validateName(rawName);
    const found = await this.find(name);
    if (!found) {
      if (await this.removeOrphan(name)) return '';
      throw new CheckpointError(`No checkpoint named "${name}" in ${this.memoryDir}.`);
    }
    if (found.source === 'json') {
      throw new CheckpointError(`${found.path} is a JSON checkpoint of a plan-scoped procedure: that history is read-only here; remove the file yourself if you must.`);
    }
    return (await this.moveToTrash([name]))[0];
  }

  /** Moves every checkpoint file to trash and removes the whole index section. Returns how many. */
  async deleteAll(): Promise<number> {
    const names = (await this.files()).map((f) => nameFromFileName(path.basename(f))!);
    if (names.length === 0 && (await this.readIndex()) === undefined) return 0; // nothing to do: write nothing
    await this.moveToTrash(names, 'all');
    return names.length;
  }

  /** Puts a consumed or deleted checkpoint back (Undo). Refuses when a new one of that name exists. */
  async restore(trashPath: string): Promise<Checkpoint> {
    assertInside(path.join(this.memoryDir, TRASH_DIR), trashPath);
    const name = nameFromFileName(path.basename(trashPath).replace(/~\d+(\.md)$/, '$1'));
    if (!name) throw new CheckpointError(`${trashPath} is not a checkpoint file.`);
    const file = this.pathFor(name);
    return this.locked(async () => {
      if (await exists(file)) throw new CheckpointError(`Cannot restore "${name}": a checkpoint of that name exists again.`);
      await assertNotSymlink(this.indexPath);
      const cp = await this.read(trashPath);
      await fs.rename(trashPath, file);
      const edit = upsertIndex(await this.readIndex(), name, formatBullet({ ...cp, name }));
      await writeFileAtomic(this.indexPath, edit.text);
      return cp;
    });
  }

  /** MEMORY.md's text, or undefined when there is none. */
  async readIndex(): Promise<string | undefined> {
    // A FIFO or a link to a device would block or never end: only a regular file is read.
    const st = await fs.stat(this.indexPath).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (!st) return undefined;
    if (!st.isFile()) throw new CheckpointError(`${this.indexPath} is not a regular file.`);
    const bytes = await fs.readFile(this.indexPath);
    const text = bytes.toString('utf8');
    // Editing decoded text would replace invalid bytes everywhere in the file, outside our section too.
    if (!Buffer.from(text, 'utf8').equals(bytes)) {
      throw new CheckpointError(`${this.indexPath} is not valid UTF-8 text; it is left as it is. Convert it to UTF-8 to index checkpoints in it.`);
    }
    return text;
  }

  /** Names of the checkpoint files in the memory directory (their bullets are checkpoints' whatever their shape). */
  private async knownNames(): Promise<Set<string>> {
    return new Set((await this.files()).map((f) => nameFromFileName(path.basename(f))!));
  }

  /** Names with an index bullet. */
  async indexedNames(): Promise<string[]> {
    const text = await this.readIndex();
    return text === undefined ? [] : indexedNames(text);
  }

  private async removeOrphan(name: string): Promise<boolean> {
    // Look before taking the lock: the lock creates the directory, and a miss must write nothing.
    const before = await this.readIndex();
    if (before === undefined || !indexedNames(before).includes(name)) return false;
    return this.locked(async () => {
      const text = await this.readIndex();
      if (text === undefined || !indexedNames(text).includes(name)) return false;
      await assertNotSymlink(this.indexPath);
      await writeFileAtomic(this.indexPath, removeFromIndex(text, [name]));
      return true;
    });
  }

  private async trashFile(file: string, baseName: string): Promise<string> {
    const trash = path.join(this.memoryDir, TRASH_DIR);
    const dir = path.join(trash, formatLocalDate(this.now()));
    // A `.trash` (or day folder) that links elsewhere would move checkpoints out of the memory directory.
    await assertNotSymlink(trash);
    await assertNotSymlink(dir);
    await fs.mkdir(dir, { recursive: true });
    let target = path.join(dir, baseName);
    for (let n = 2; await exists(target); n++) target = path.join(dir, baseName.replace(/(\.\w+)$/, `~${n}$1`));
    await fs.rename(file, target);
    return target;
  }

  private async moveToTrash(names: string[], indexNames: string[] | 'all' = names): Promise<string[]> {
    return this.locked(async () => {
      await assertNotSymlink(this.indexPath);
      // Bullets of the user's own are never touched: only product-written ones and those naming a checkpoint file.
      const known = await this.knownNames();
      const moved: string[] = [];
      for (const name of names) {
        const file = this.pathFor(name);
        if (await exists(file)) moved.push(await this.trashFile(file, path.basename(file)));
      }
      const text = await this.readIndex();
      if (text !== undefined) {
        const updated = removeFromIndex(text, indexNames, known);
        if (updated !== text) await writeFileAtomic(this.indexPath, updated);
      }
      return moved;
    });
  }
}

/**
 * Creates `dir` (when it does not exist yet) with a `.gitignore` of `*` in it: git then ignores the folder and
 * everything in it, the `.gitignore` included. Whoever creates the folder writes the file; a folder that exists
 * is left as it is.
 */
async function createIgnoredDir(dir: string): Promise<void> {
  if (await exists(dir)) return;
  await fs.mkdir(path.dirname(dir), { recursive: true });
  try {
    await fs.mkdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  await fs.writeFile(path.join(dir, '.gitignore'), '*\n', { flag: 'wx' });
}

const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Newest first, then by name. When every `saved` is a canonical ISO timestamp (as they all are unless a date lies
 * outside the years 0-9999), comparing them by code unit orders them exactly as localeCompare does: the strings
 * differ first at a digit. That is much cheaper than the collator over thousands of entries.
 */
function newestFirst(items: CheckpointSummary[]): (a: CheckpointSummary, b: CheckpointSummary) => number {
  if (!items.every((i) => CANONICAL_ISO.test(i.saved))) {
    return (a, b) => b.saved.localeCompare(a.saved) || a.name.localeCompare(b.name);
  }
  return (a, b) => (b.saved < a.saved ? -1 : b.saved > a.saved ? 1 : 0) || a.name.localeCompare(b.name);
}

/** The listing entry of a readable file: the header only (`details: false`), else with the parsed checkpoint. */
function listEntry(file: string, name: string, text: string, mtime: () => string, details: boolean | undefined): CheckpointSummary {
  if (details === false) {
    // The same keys in the same order as the spread below, without copying the object.
    const entry = pickSummary(parseCheckpointHeader(text, name, mtime)) as CheckpointSummary;
    entry.path = file;
    entry.source = 'markdown';
    return entry;
  }
  const cp = parseCheckpoint(text, name, mtime());
  return { ...pickSummary(cp), path: file, source: 'markdown', checkpoint: cp };
}

/** The listing entry of a file that could not be read or parsed. */
function statOrNone(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function unreadableEntry(file: string, name: string, err: unknown, st: Stats | undefined): CheckpointSummary {
  return {
    name,
    path: file,
    branch: '',
    saved: (st?.mtime ?? new Date(0)).toISOString(),
    description: '',
    unreadable: errorMessage(err),
    source: 'markdown',
  };
}

function pickSummary(cp: CheckpointHeader): Omit<CheckpointSummary, 'path' | 'source'> {
  const s: Omit<CheckpointSummary, 'path' | 'source'> = {
    name: cp.name,
    branch: cp.branch,
    saved: cp.saved,
    description: cp.description,
  };
  if (cp.plan) s.plan = cp.plan;
  if (cp.planStep !== undefined) s.planStep = cp.planStep;
  if (cp.planSteps !== undefined) s.planSteps = cp.planSteps;
  return s;
}

function jsonSummary(j: JsonCheckpointFile): CheckpointSummary {
  if (!j.checkpoint) {
    return { name: j.name, path: j.path, branch: '', saved: new Date(0).toISOString(), description: '', unreadable: j.unreadable, source: 'json', plan: j.planName };
  }
  return { ...pickSummary(j.checkpoint), path: j.path, source: 'json', checkpoint: j.checkpoint };
}
