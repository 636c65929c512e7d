import { constants as fsConstants, promises as fs, lstatSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, errorMessage } from './errors';
import { describe, parseCheckpoint, parseCheckpointHeader, renderCheckpoint, type Checkpoint, type CheckpointHeader } from './checkpoint';
import { formatLocalDate, formatLocalDateTime } from './dates';
import {
  assertInside,
  assertNotSymlink,
  cleanStaleTempFiles,
  exists,
  identityOf,
  isInside,
  preloadAtomicWrite,
  readPrefix,
  readPrefixSync,
  readWhole,
  sameIdentity,
  syncDir,
  TEMP_PREFIX,
  writeFileAtomic,
  type FileIdentity,
} from './files';
import { readBranch, readGitState } from './git';
import { readJsonCheckpoints, type JsonCheckpointFile } from './jsonCheckpoints';
import { LockLostError, preloadLock, withDirLock, type DirLock } from './lock';
import { formatBullet, indexBullets, indexedNames, INDEX_FILE, removeFromIndex, upsertIndex, type IndexEdit } from './memoryIndex';
import { oneLine } from './escaping';
import { assertLookupName, fileNameFor, isLookupName, lookupNames, nameFromFileName, printable, sanitizeName, validateName } from './names';
import { homeFrom } from './paths';
import { recordResume } from './pending';
import { readPlanProgress, resolvePlanPath } from './plans';
import { recordLastCheckpoint } from './stateIndex';
import { newestFirst } from './order';
import { NO_CHECKPOINTS, branchDiffers } from './wording';
import { collectGarbage, keepSnapshot, takeSnapshot, TRASH_PURGE_DAYS, type SnapshotOptions } from './snapshot';

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
  /** The code snapshot (default: on in a git work tree; never without git or with `git` given). */
  snapshot?: SnapshotOptions;
}

export interface SaveResult {
  checkpoint: Checkpoint;
  path: string;
  overwritten: boolean;
  /** Where the previous version went when this save overwrote one (its trash path, for Undo and `restore`). */
  replaced?: string;
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
  /** The home folder `~/` plan paths expand to (default: HOME). */
  home?: string;
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
    super(`There is no single checkpoint to resume (${candidates.length} found); name one: ${candidates.map((c) => c.name).join(', ')}.`);
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
  private readonly home: string;

  constructor(opts: StoreOptions) {
    this.memoryDir = path.resolve(opts.memoryDir);
    this.cwd = path.resolve(opts.cwd);
    this.allowGit = opts.allowGit ?? true;
    this.now = opts.now ?? (() => new Date());
    this.syncReads = opts.syncReads ?? false;
    this.ignoreInGit = opts.ignoreInGit ?? false;
    this.gitTimeoutMs = opts.gitTimeoutMs;
    this.home = opts.home ?? homeFrom(process.env);
  }

  /** Runs `fn` holding the memory directory's lock (which creates the directory; see {@link ignoreInGit}). */
  private async locked<T>(fn: (lock: DirLock) => Promise<T>): Promise<T> {
    if (this.ignoreInGit) await createIgnoredDir(this.memoryDir);
    return withDirLock(this.memoryDir, fn);
  }

  get indexPath(): string {
    return path.join(this.memoryDir, INDEX_FILE);
  }

  /**
   * The file of a name: `checkpoint-<name>.md` for a name that may be looked up as it is (one the product wrote, or an
   * agent's looser one such as `fix:-login` as listed); else the sanitized name's. Throws when it would leave the
   * memory directory.
   */
  pathFor(name: string): string {
    const p = path.join(this.memoryDir, fileNameFor(isLookupName(name) ? name : validateName(name)));
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
    return this.withPlanPath(parseCheckpoint(text, name, mtime));
  }

  /**
   * The checkpoint with its plan path as a path: `~/…` (the seed's form) expanded and a relative one resolved against
   * the folder, so that the plan is opened and read wherever it is, and one plan file is one plan however written.
   */
  withPlanPath<T extends { plan?: string }>(cp: T): T {
    if (cp.plan) cp.plan = resolvePlanPath(cp.plan, this.cwd, this.home);
    return cp;
  }

  /** The first `maxBytes` of a regular file and its mtime; never through a symbolic link. */
  private async readText(file: string, maxBytes: number): Promise<{ text: string; mtime: string }> {
    const st = this.syncReads ? lstatSync(file) : await fs.lstat(file);
    if (st.isSymbolicLink()) throw new CheckpointError(LINK_REFUSED);
    if (!st.isFile()) throw new CheckpointError('not a regular file');
    const { text } = this.syncReads ? readPrefixSync(file, maxBytes, { noFollow: true }) : await readPrefix(file, maxBytes, { noFollow: true });
    return { text, mtime: st.mtime.toISOString() };
  }

  /**
   * The whole of a checkpoint file, parsed, with its text and the identity of the version read: at most
   * SHOW_READ_BYTES (a bigger file is refused, never shown in part), never through a symbolic link.
   */
  private async readFull(file: string): Promise<{ checkpoint: Checkpoint; text: string; identity: FileIdentity }> {
    const name = nameFromFileName(path.basename(file)) ?? path.basename(file);
    const { text, identity } = await readWhole(file, SHOW_READ_BYTES, { sync: this.syncReads });
    return { checkpoint: this.withPlanPath(parseCheckpoint(text, name, new Date(identity.mtimeMs).toISOString())), text, identity };
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
      return this.listEntry(file, name, text, () => mtime, opts.details);
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
          return this.listEntry(file, name, text, () => statSync(file).mtime.toISOString(), details);
        } catch (err) {
          return unreadableEntry(file, name, err, statOrNone(file));
        }
      }
    }
    try {
      const st = lstatSync(file);
      if (st.isSymbolicLink()) throw new CheckpointError(LINK_REFUSED);
      if (!st.isFile()) throw new CheckpointError('not a regular file');
      return this.listEntry(file, name, readPrefixSync(file, LIST_READ_BYTES, { noFollow: true }).text, () => st.mtime.toISOString(), details);
    } catch (err) {
      return unreadableEntry(file, name, err, statOrNone(file));
    }
  }

  /** {@link listEntry} with the plan path resolved (see {@link withPlanPath}). */
  private listEntry(...args: Parameters<typeof listEntry>): CheckpointSummary {
    const entry = this.withPlanPath(listEntry(...args));
    if (entry.checkpoint) this.withPlanPath(entry.checkpoint);
    return entry;
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
    return (await this.fileNames()).map((e) => path.join(this.memoryDir, e));
  }

  /** The names of the checkpoint files in the memory directory (none when it does not exist). */
  private async fileNames(): Promise<string[]> {
    const entries = await fs.readdir(this.memoryDir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [] as string[];
      throw err;
    });
    return entries.filter((e) => nameFromFileName(e) !== undefined);
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

  /**
   * Finds a checkpoint by name: the Markdown file by the name as given (an agent may have written
   * `checkpoint-fix:-login.md`), then by the sanitized name; else a JSON checkpoint. `name` is the checkpoint's
   * name as its file spells it. Undefined when none. A name with a path separator, `..` or a control character is
   * refused, and so is a file that is a symbolic link leading out of the memory directory.
   */
  async find(rawName: string): Promise<{ name: string; path: string; source: 'markdown' | 'json'; json?: JsonCheckpointFile } | undefined> {
    assertLookupName(rawName);
    const names = lookupNames(rawName);
    for (const name of names) {
      const file = this.pathFor(name);
      const st = await fs.lstat(file).catch(() => undefined);
      if (!st) continue;
      if (st.isSymbolicLink()) await this.assertLinkInside(file);
      return { name, path: file, source: 'markdown' };
    }
    const json = (await readJsonCheckpoints(this.cwd)).find((j) => names.includes(j.name));
    if (json) return { name: json.name, path: json.path, source: 'json', json };
    // Not found, and not a name the product could have written either: say why.
    if (sanitizeName(rawName) === '') validateName(rawName);
    return undefined;
  }

  /** Throws unless the symbolic link `file` resolves to a file inside the memory directory. */
  private async assertLinkInside(file: string): Promise<void> {
    const [target, dir] = await Promise.all([fs.realpath(file).catch(() => undefined), fs.realpath(this.memoryDir).catch(() => this.memoryDir)]);
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
    if (!found) throw new CheckpointError(`No checkpoint named "${printable(rawName)}" in ${this.memoryDir}.`);
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

  private async readFullOrExplain(file: string): Promise<{ checkpoint: Checkpoint; text: string; identity: FileIdentity }> {
    try {
      return await this.readFull(file);
    } catch (err) {
      throw new CheckpointError(`Checkpoint ${file} is unreadable: ${errorMessage(err)}`);
    }
  }

  /**
   * Saves a checkpoint and its index bullet. Refuses to overwrite unless `force`.
   *
   * Everything that can be computed is computed before the lock (git, the plan, the file's text, the bullet), so
   * the critical section is bounded: check, write the file, merge the index, write it. MEMORY.md is read and
   * checked (a regular file, UTF-8, replaceable) before anything is written; when its write fails, the checkpoint
   * file is put back as it was (exit 1 means nothing written). Before each write the lock is checked to be still
   * ours; when another writer took it over, the index is read again and merged under a new lock.
   */
  async save(input: SaveInput): Promise<SaveResult> {
    const name = validateName(input.name);
    const file = this.pathFor(name);
    const pendingGit = input.git ?? (this.allowGit ? readGitState(this.cwd, { timeoutMs: this.gitTimeoutMs }) : { branch: '', modifiedFiles: [] });
    // The snapshot's git calls run beside the status, before the lock; its ref is set once the checkpoint is written.
    const pendingSnapshot = this.allowGit && !input.git ? takeSnapshot(this.cwd, name, { timeLimitMs: this.gitTimeoutMs, ...input.snapshot }) : undefined;
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
      modifiedFiles: capModifiedFiles(git.modifiedFiles),
    };
    if (input.auto) {
      cp.auto = true;
      if (input.auto.session) cp.session = input.auto.session;
    }
    const snap = await pendingSnapshot;
    if (snap?.snapshot) {
      if (snap.snapshot.head) cp.head = snap.snapshot.head;
      cp.snapshot = snap.snapshot.commit;
    }
    warnings.push(...(snap?.warnings ?? []), ...(snap?.notes ?? []));
    const planPath = input.plan?.trim() ? resolvePlanPath(input.plan, this.cwd, this.home) : undefined;
    // A plan path that leads nowhere is not a known plan: the checkpoint is saved without it (an agent's hook
    // must not lose the checkpoint over a moved plan), and the warning says so.
    if (planPath && !(await exists(planPath))) warnings.push(`Plan file ${oneLine(planPath)} was not found; saved without a plan.`);
    else if (planPath) {
      cp.plan = planPath;
      const progress = await readPlanProgress(cp.plan);
      if (progress) {
        cp.planStep = progress.step;
        cp.planSteps = progress.steps;
      }
    }
    const content = renderCheckpoint(cp);
    const bullet = formatBullet(cp);
    const large = sizeWarning(cp, content, git.modifiedFiles.length);
    if (large) warnings.push(large);
    // Kept across a retry after a lost lock: the file is written once.
    let written: { overwritten: boolean; replaced?: string; created: string[]; undo: () => Promise<void>; commit: () => Promise<void> } | undefined;
    const result = await this.locked(async (lock): Promise<SaveResult> => {
      await cleanStaleTempFiles(this.memoryDir);
      await assertNotSymlink(file);
      await assertNotSymlink(this.indexPath);
      const index = await this.readIndex();
      await this.assertReplaceable(this.indexPath);
      if (!written) {
        const existing = await exists(file);
        if (existing && !input.force) {
          throw new CheckpointExistsError(await this.read(file, LIST_READ_BYTES).catch(() => undefined), file, name);
        }
        if (existing) await this.assertReplaceable(file);
        await lock.assertHeld();
        // No save destroys a checkpoint: the previous version is linked into the trash first, then the new version
        // replaces it in one rename (readers never miss the file). If the write fails, the trash copy goes again.
        const created: string[] = [];
        const replaced = existing ? await this.trashFile(file, path.basename(file), created, { keep: true }) : undefined;
        try {
          written = { overwritten: existing, replaced, created, ...(await replaceWithUndo(file, content)) };
        } catch (err) {
          await removeTrashCopy(replaced, created);
          throw err;
        }
      }
      let edit;
      try {
        edit = await this.writeIndex(lock, index, (text, known) => upsertIndex(text, name, bullet, known));
      } catch (err) {
        if (!(err instanceof LockLostError)) {
          await written.undo();
          await removeTrashCopy(written.replaced, written.created);
          written = undefined;
        }
        throw err;
      }
      await written.commit();
      if (edit.budgetWarning) warnings.push(edit.budgetWarning);
      const saved: SaveResult = { checkpoint: cp, path: file, overwritten: written.overwritten, warnings };
      if (written.replaced) saved.replaced = written.replaced;
      return saved;
    });
    if (cp.snapshot) {
      await keepSnapshot(this.cwd, name, cp.snapshot).catch((err: unknown) =>
        warnings.push(`The code snapshot ${cp.snapshot!.slice(0, 12)} is saved but no ref keeps it (${errorMessage(err).trim().split('\n')[0]}); git may prune it.`),
      );
    }
    // Trash older than 30 days goes, with the snapshot refs only it named.
    warnings.push(...(await collectGarbage(this, TRASH_PURGE_DAYS, { git: this.allowGit }).then((g) => g.warnings, (err: unknown) => [`Old trash was not purged: ${errorMessage(err)}`])));
    // A plan-scoped checkpoint is the plan's last one (seed 003's `.claude/state-index.json`, when it exists).
    if (cp.plan) {
      const warning = await recordLastCheckpoint(this.cwd, cp.saved);
      if (warning) warnings.push(warning);
    }
    return result;
  }

  /**
   * Writes a checkpoint made elsewhere (a combination of others) with its index bullet, in one lock, with an
   * overwrite's safety: an existing checkpoint of that name is linked into the trash first and the new version
   * replaces it in one rename (no save destroys a checkpoint; readers never miss the file); then the files in `trash`
   * (checkpoint files of this memory directory) move to the trash and their bullets go. When anything fails, all of
   * it is undone — the previous version and the sources back, the trash copy and the trash folders made removed
   * (exit 1 means nothing written).
   */
  async saveCombined(
    cp: Checkpoint,
    opts: { trash?: { path: string; identity?: FileIdentity }[] } = {},
  ): Promise<{ path: string; replaced?: string; trashed: string[]; warnings: string[] }> {
    const name = validateName(cp.name);
    const file = this.pathFor(name);
    const sources = (opts.trash ?? []).map((t) => ({ ...t, path: path.resolve(t.path) })).filter((t) => t.path !== file);
    const others = sources.map((t) => t.path);
    for (const p of others) assertInside(this.memoryDir, p);
    const content = renderCheckpoint({ ...cp, name });
    const bullet = formatBullet({ ...cp, name });
    const trashedNames = others.map((p) => nameFromFileName(path.basename(p))).filter((n): n is string => n !== undefined);
    return this.locked(async (lock) => {
      await cleanStaleTempFiles(this.memoryDir);
      await assertNotSymlink(file);
      await assertNotSymlink(this.indexPath);
      const index = await this.readIndex();
      await this.assertReplaceable(this.indexPath);
      const existing = await exists(file);
      if (existing) await this.assertReplaceable(file);
      // A source saved again since it was read: the combination holds only its old version, so it is not trashed,
      // and nothing is written (combine it again to include the new version).
      for (const t of sources) {
        const st = t.identity ? await fs.lstat(t.path).catch(() => undefined) : undefined;
        if (t.identity && st && !sameIdentity(t.identity, identityOf(st))) {
          throw new CheckpointError(`Checkpoint ${t.path} was saved again while it was being combined; nothing was written. Combine again to include its new version.`);
        }
      }
      await lock.assertHeld();
      const created: string[] = [];
      const replaced = existing ? await this.trashFile(file, path.basename(file), created, { keep: true }) : undefined;
      let written: { undo: () => Promise<void>; commit: () => Promise<void> };
      try {
        written = await replaceWithUndo(file, content);
      } catch (err) {
        await removeTrashCopy(replaced, created);
        throw err;
      }
      const trashed: string[] = [];
      const moves: Move[] = [];
      let edit: IndexEdit;
      try {
        for (const p of others) {
          if (!(await exists(p))) continue;
          await lock.assertHeld();
          const made: string[] = [];
          const to = await this.trashFile(p, path.basename(p), made);
          trashed.push(to);
          moves.push({ from: p, to, created: made });
        }
        edit = await this.writeIndex(lock, index, (text, known) => {
          const e = upsertIndex(text, name, bullet, known);
          return trashedNames.length ? { ...e, text: removeFromIndex(e.text, trashedNames, known) } : e;
        });
      } catch (err) {
        await undoMoves(moves);
        await written.undo();
        await removeTrashCopy(replaced, created);
        throw err;
      }
      await written.commit();
      const warnings: string[] = [];
      if (edit.budgetWarning) warnings.push(edit.budgetWarning);
      return { path: file, replaced, trashed, warnings };
    });
  }

  /**
   * Resumes a checkpoint: compares branches and, unless `keep`, consumes it (file to trash, bullet removed).
   * Without a name: the only checkpoint, else AmbiguousCheckpointError; none: "No saved checkpoints found."
   * A name whose file is gone but whose bullet remains: the orphan bullet is removed and that is reported.
   *
   * What is shown is what is consumed: the file is read under the lock, and moved to the trash only if it is
   * still that version (same inode, size and mtime); MEMORY.md is checked before anything moves, and when its
   * write fails the file is moved back.
   */
  async resume(rawName: string | undefined, opts: { keep?: boolean } = {}): Promise<ResumeResult> {
    let asked: string;
    if (rawName === undefined || rawName.trim() === '') {
      // The only Markdown checkpoint (the seed: "If exactly one: use it automatically"); seed 003's JSON history
      // does not count for that, but is offered with the others when there is no single one.
      const all = (await this.list()).filter((c) => !c.unreadable);
      const markdown = all.filter((c) => c.source === 'markdown');
      if (all.length === 0) throw new CheckpointError(NO_CHECKPOINTS);
      if (markdown.length !== 1) throw new AmbiguousCheckpointError(all);
      asked = markdown[0].name;
    } else {
      asked = rawName;
    }
    const found = await this.find(asked);
    if (!found) {
      const orphan = await this.removeOrphan(asked);
      if (orphan) throw new OrphanRemovedError(orphan);
      throw new CheckpointError(`No checkpoint named "${printable(asked)}" in ${this.memoryDir}.`);
    }
    const name = found.name;
    // git runs before the lock is taken: the critical section stays short.
    const currentBranch = await this.currentBranch();
    const result = (checkpoint: Checkpoint): ResumeResult => ({
      checkpoint,
      path: found.path,
      currentBranch,
      branchMismatch: branchDiffers(checkpoint.branch, currentBranch),
      consumed: false,
      source: found.source,
    });
    if (opts.keep || found.source === 'json') {
      const { text: _text, ...shown } = await this.show(name);
      const kept = result(shown);
      const warning = await recordResume(this.memoryDir, name, this.now());
      if (warning) kept.warnings = [warning];
      return kept;
    }
    const r = await this.locked(async (lock) => {
      await assertNotSymlink(this.indexPath);
      const index = await this.readIndex();
      await this.assertReplaceable(this.indexPath);
      const { checkpoint, identity } = await this.readFullOrExplain(found.path);
      const consumed = result({ ...checkpoint, path: found.path } as Checkpoint);
      const moved = await this.moveFilesToTrash(lock, [{ name, identity }]);
      try {
        await this.writeIndex(lock, index, (text, known) => (text === undefined ? '' : removeFromIndex(text, [name], known)));
      } catch (err) {
        await undoMoves(moved);
        throw err;
      }
      consumed.trashPath = moved[0]?.to;
      consumed.consumed = true;
      return consumed;
    });
    // What was saved before this resume is no longer pending (`checkpoint pending`, the session-start hook).
    const warning = await recordResume(this.memoryDir, name, this.now());
    if (warning) r.warnings = [warning];
    return r;
  }

  /** Moves checkpoints to trash and removes their bullets. Returns the trash paths. */
  async delete(rawName: string): Promise<string> {
    const found = await this.find(rawName);
    if (!found) {
      if (await this.removeOrphan(rawName)) return '';
      throw new CheckpointError(`No checkpoint named "${printable(rawName)}" in ${this.memoryDir}.`);
    }
    const name = found.name;
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

  /**
   * `checkpoint restore <name>`: puts the newest trashed copy of a checkpoint back, with its index bullet. When a
   * live checkpoint of that name exists: refused (CheckpointExistsError), unless `force`, which moves the live one
   * to the trash first. No trashed copy: a CheckpointError.
   */
  async restoreNamed(rawName: string, opts: { force?: boolean } = {}): Promise<{ checkpoint: Checkpoint; path: string; restoredFrom: string; replaced?: string }> {
    assertLookupName(rawName);
    const copy = (await this.trashedCopies(rawName))[0];
    if (!copy) throw new CheckpointError(`No trashed checkpoint named "${printable(rawName)}" in ${path.join(this.memoryDir, TRASH_DIR)}.`);
    const file = this.pathFor(copy.name);
    if (!opts.force && (await exists(file))) {
      throw new CheckpointExistsError(await this.read(file, LIST_READ_BYTES).catch(() => undefined), file, copy.name);
    }
    const r = await this.restore(copy.path, { replaceLive: opts.force });
    return { checkpoint: r, path: file, restoredFrom: copy.path, ...(r.replaced ? { replaced: r.replaced } : {}) };
  }

  /**
   * The trashed copies of a checkpoint (by the name as given, or the sanitized one), newest first: the latest trash
   * day first, and within a day the latest copy (`checkpoint-x~3.md` after `checkpoint-x~2.md` after `checkpoint-x.md`).
   */
  async trashedCopies(rawName: string): Promise<{ name: string; path: string }[]> {
    assertLookupName(rawName);
    const names = lookupNames(rawName);
    const trash = path.join(this.memoryDir, TRASH_DIR);
    if ((await fs.lstat(trash).catch(() => undefined))?.isDirectory() !== true) return [];
    const days = (await fs.readdir(trash, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort().reverse();
    const copies: { name: string; path: string }[] = [];
    for (const day of days) {
      const found: { name: string; path: string; n: number }[] = [];
      for (const f of await fs.readdir(path.join(trash, day)).catch(() => [] as string[])) {
        const copy = trashedCopy(f);
        if (copy && names.includes(copy.name)) found.push({ name: copy.name, path: path.join(trash, day, f), n: copy.n });
      }
      copies.push(...found.sort((a, b) => b.n - a.n).map(({ name, path: p }) => ({ name, path: p })));
    }
    return copies;
  }

  /**
   * Puts a consumed, deleted or overwritten checkpoint back (Undo; `restore`). Refuses when a checkpoint of that name
   * exists, unless `replaceLive`, which moves that one to the trash first (`replaced` says where).
   */
  async restore(trashPath: string, opts: { replaceLive?: boolean } = {}): Promise<Checkpoint & { replaced?: string }> {
    assertInside(path.join(this.memoryDir, TRASH_DIR), trashPath);
    const name = nameFromFileName(path.basename(trashPath).replace(/~\d+(\.md)$/, '$1'));
    if (!name) throw new CheckpointError(`${trashPath} is not a checkpoint file.`);
    const file = this.pathFor(name);
    return this.locked(async (lock) => {
      const live = await exists(file);
      if (live && !opts.replaceLive) throw new CheckpointError(`Cannot restore "${name}": a checkpoint of that name exists again.`);
      await assertNotSymlink(file);
      await assertNotSymlink(this.indexPath);
      const index = await this.readIndex();
      await this.assertReplaceable(this.indexPath);
      if (live) await this.assertReplaceable(file);
      const cp: Checkpoint & { replaced?: string } = { ...(await this.read(trashPath)), name };
      await lock.assertHeld();
      // The live one is linked into the trash and then replaced in one rename: the file is never missing.
      const created: string[] = [];
      if (live) cp.replaced = await this.trashFile(file, path.basename(file), created, { keep: true });
      await fs.rename(trashPath, file);
      await syncDir(this.memoryDir);
      try {
        await this.writeIndex(lock, index, (text, known) => upsertIndex(text, name, formatBullet(cp), known));
      } catch (err) {
        await fs.rename(file, trashPath).catch(() => undefined);
        if (cp.replaced) await fs.rename(cp.replaced, file).catch(() => undefined);
        for (const dir of [...created].reverse()) await fs.rmdir(dir).catch(() => undefined);
        throw err;
      }
      return cp;
    });
  }

  /**
   * Removes trashed checkpoint files from the day folders of `.trash` dated `olderThanDays` days ago or earlier
   * (0: all of them), then those folders when empty. Returns the removed files with the snapshot each named, and
   * every snapshot still named by a live or trashed checkpoint. Reads only the trash folder when nothing is old.
   */
  async purgeTrash(olderThanDays: number): Promise<{ purged: { file: string; snapshot?: string }[]; stillNamed: Set<string> }> {
    const trash = path.join(this.memoryDir, TRASH_DIR);
    const today = this.now();
    const cutoff = formatLocalDate(new Date(today.getFullYear(), today.getMonth(), today.getDate() - olderThanDays));
    const days = (await fs.readdir(trash).catch(() => [] as string[])).filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d));
    const old = days.filter((d) => d <= cutoff);
    if (old.length === 0) return { purged: [], stillNamed: new Set() };
    const snapshotOf = (file: string): Promise<string | undefined> => this.read(file, LIST_READ_BYTES).then((c) => c.snapshot, () => undefined);
    return this.locked(async (lock) => {
      await assertNotSymlink(trash);
      await lock.assertHeld();
      const purged: { file: string; snapshot?: string }[] = [];
      for (const day of old) {
        const dir = path.join(trash, day);
        await assertNotSymlink(dir);
        for (const f of await fs.readdir(dir).catch(() => [] as string[])) {
          if (trashedCopy(f) === undefined) continue;
          const file = path.join(dir, f);
          purged.push({ file, snapshot: await snapshotOf(file) });
          await fs.rm(file, { force: true });
        }
        await fs.rmdir(dir).catch(() => undefined);
      }
      const stillNamed = new Set<string>();
      for (const day of days.filter((d) => d > cutoff)) {
        for (const f of await fs.readdir(path.join(trash, day)).catch(() => [] as string[])) {
          const sha = await snapshotOf(path.join(trash, day, f));
          if (sha) stillNamed.add(sha);
        }
      }
      for (const c of await this.list({ includeJson: false })) if (c.checkpoint?.snapshot) stillNamed.add(c.checkpoint.snapshot);
      return { purged, stillNamed };
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
    if (!st.isFile()) throw new CheckpointError(`${this.indexPath} is not a regular file; nothing was changed.`);
    const bytes = await fs.readFile(this.indexPath);
    const text = bytes.toString('utf8');
    // Editing decoded text would replace invalid bytes everywhere in the file, outside our section too.
    if (!Buffer.from(text, 'utf8').equals(bytes)) {
      throw new CheckpointError(`${this.indexPath} is not valid UTF-8 text; it is left as it is, and nothing was changed. Convert it to UTF-8 to index checkpoints in it.`);
    }
    return text;
  }

  /**
   * Throws when `file` exists but this process could not replace it: in a folder with the sticky bit (such as a
   * shared temp folder), only the file's owner, the folder's owner or root may rename over it. Checked before
   * anything is written, so that the failure comes first, not between two writes.
   */
  private async assertReplaceable(file: string): Promise<void> {
    const uid = process.getuid?.();
    if (uid === undefined || uid === 0) return;
    const st = await fs.lstat(file).catch(() => undefined);
    if (!st || st.uid === uid) return;
    const dir = await fs.stat(path.dirname(file));
    if ((dir.mode & 0o1000) !== 0 && dir.uid !== uid) {
      throw new CheckpointError(`${file} belongs to another user in a folder with the sticky bit (${path.dirname(file)}), so it cannot be replaced; nothing was changed.`);
    }
  }

  /** Names of the checkpoint files in the memory directory (their bullets are checkpoints' whatever their shape). */
  private async knownNames(): Promise<Set<string>> {
    return new Set((await this.fileNames()).map((f) => nameFromFileName(f)!));
  }

  /**
   * Writes MEMORY.md with `change` applied to `read` (its text as read and checked at the start of the critical
   * section) and the index healed: a bullet is added for each checkpoint file that has none (a save killed between
   * its two writes; at most {@link HEAL_LIMIT} per write, so the critical section stays bounded), and a bullet the
   * product wrote whose file is gone is dropped. A user's own bullets are never touched. Writes nothing when nothing
   * changes; checks the lock is still ours right before the write.
   */
  private async writeIndex(lock: DirLock, read: string | undefined, change: (text: string | undefined, known: Set<string>) => IndexEdit | string): Promise<IndexEdit> {
    const known = await this.knownNames();
    // After a lost lock, another writer may have changed the file: merge into what is there now.
    const current = await this.readIndex();
    const base = current ?? read;
    const changed = change(base, known);
    let edit: IndexEdit = typeof changed === 'string' ? { text: changed } : changed;
    // No MEMORY.md and nothing to add to it: none is created.
    if (base === undefined && edit.text === '') return edit;
    edit = { ...edit, text: await this.healIndex(edit.text, known) };
    if (edit.text === base) return edit;
    await lock.assertHeld();
    await writeFileAtomic(this.indexPath, edit.text);
    return edit;
  }

  /** `text` with bullets added for checkpoint files that lack one and product bullets without a file removed. */
  private async healIndex(text: string, known: Set<string>): Promise<string> {
    const { missing, orphans } = indexMismatch(text, known);
    let out = orphans.length ? removeFromIndex(text, orphans) : text;
    for (const name of missing.slice(0, HEAL_LIMIT)) {
      const entry = await this.summarize(this.pathFor(name), { details: false }).catch(() => undefined);
      if (!entry || entry.unreadable !== undefined) continue;
      out = upsertIndex(out, name, formatBullet(entry), known).text;
    }
    return out;
  }

  /**
   * Where MEMORY.md and the checkpoint files disagree: files without a bullet, and bullets the product wrote
   * whose file is gone (JSON checkpoints are never indexed). Undefined when MEMORY.md cannot be read.
   */
  async indexMismatch(): Promise<{ missing: string[]; orphans: string[] } | undefined> {
    const text = await this.readIndex().catch(() => undefined);
    const known = await this.knownNames();
    if (text === undefined) return known.size ? { missing: [...known].sort(), orphans: [] } : { missing: [], orphans: [] };
    return indexMismatch(text, known);
  }

  /** Names with an index bullet. */
  async indexedNames(): Promise<string[]> {
    const text = await this.readIndex();
    return text === undefined ? [] : indexedNames(text, await this.knownNames());
  }

  /**
   * Removes the index bullet of a checkpoint whose file is gone (by the name as given, else the sanitized one).
   * Returns the bullet's name, or undefined when there was none.
   */
  private async removeOrphan(rawName: string): Promise<string | undefined> {
    const names = lookupNames(rawName);
    const orphanIn = (text: string | undefined): string | undefined => (text === undefined ? undefined : names.find((n) => indexedNames(text).includes(n)));
    // Look before taking the lock: the lock creates the directory, and a miss must write nothing.
    if (orphanIn(await this.readIndex()) === undefined) return undefined;
    return this.locked(async (lock) => {
      const text = await this.readIndex();
      const name = orphanIn(text);
      if (text === undefined || name === undefined) return undefined;
      await assertNotSymlink(this.indexPath);
      await this.assertReplaceable(this.indexPath);
      await this.writeIndex(lock, text, (t, known) => removeFromIndex(t ?? '', [name], known));
      return name;
    });
  }

  /** Moves `file` to today's trash folder (`keep`: puts a hard link, or a copy, there and leaves the file). */
  private async trashFile(file: string, baseName: string, created: string[] = [], opts: { keep?: boolean } = {}): Promise<string> {
    const trash = path.join(this.memoryDir, TRASH_DIR);
    const dir = path.join(trash, formatLocalDate(this.now()));
    // A `.trash` (or day folder) that links elsewhere would move checkpoints out of the memory directory.
    await assertNotSymlink(trash);
    await assertNotSymlink(dir);
    for (const d of [trash, dir]) if (!(await exists(d))) created.push(d);
    await fs.mkdir(dir, { recursive: true });
    let target = path.join(dir, baseName);
    for (let n = 2; await exists(target); n++) target = path.join(dir, baseName.replace(/(\.\w+)$/, `~${n}$1`));
    if (opts.keep) await fs.link(file, target).catch(() => fs.copyFile(file, target, fsConstants.COPYFILE_EXCL));
    else await fs.rename(file, target);
    await syncDir(dir);
    await syncDir(this.memoryDir);
    return target;
  }

  /**
   * Moves checkpoint files to the trash, each only if it is still the version `identity` says (when given); on a
   * failure, the ones already moved go back. Returns what moved where.
   */
  private async moveFilesToTrash(lock: DirLock, items: { name: string; identity?: FileIdentity }[]): Promise<Move[]> {
    const moved: Move[] = [];
    try {
      for (const { name, identity } of items) {
        const file = this.pathFor(name);
        const st = await fs.lstat(file).catch(() => undefined);
        if (!st) continue;
        if (identity && !sameIdentity(identity, identityOf(st))) {
          throw new CheckpointError(`Checkpoint ${file} changed while it was being resumed (it was saved again); nothing was consumed. Resume it again to see the new version.`);
        }
        await lock.assertHeld();
        const created: string[] = [];
        moved.push({ from: file, to: await this.trashFile(file, path.basename(file), created), created });
      }
    } catch (err) {
      await undoMoves(moved);
      throw err;
    }
    return moved;
  }

  private async moveToTrash(names: string[], indexNames: string[] | 'all' = names): Promise<string[]> {
    return this.locked(async (lock) => {
      await assertNotSymlink(this.indexPath);
      // MEMORY.md is read and checked first: when it cannot be updated, nothing is moved.
      const index = await this.readIndex();
      if (index !== undefined) await this.assertReplaceable(this.indexPath);
      // Bullets of the user's own are never touched: only product-written ones and those naming a checkpoint file.
      const known = await this.knownNames();
      const moved = await this.moveFilesToTrash(lock, names.map((name) => ({ name })));
      try {
        if (index !== undefined) {
          await this.writeIndex(lock, index, (text) => (text === undefined ? '' : removeFromIndex(text, indexNames, known)));
        }
      } catch (err) {
        await undoMoves(moved);
        throw err;
      }
      return moved.map((m) => m.to);
    });
  }
}

/** At most this many missing bullets are added back per index write. */
const HEAL_LIMIT = 50;

const LINK_REFUSED = 'it is a symbolic link, and checkpoint files are never read through one';

interface Move {
  from: string;
  to: string;
  /** Trash folders this move created (removed again by an undo). */
  created: string[];
}

/**
 * Moves files back where they came from (after a later step failed), newest move first, and removes the trash
 * folders the moves created when they are empty again.
 */
/** Takes back the trash copy an overwrite made (a link to the previous version) and the trash folders it created. */
/** The checkpoint a file in a trash day folder is a copy of (`checkpoint-<name>~<n>.md`: the n-th of that day). */
function trashedCopy(file: string): { name: string; n: number } | undefined {
  const m = /^(.*?)(?:~(\d+))?(\.md)$/.exec(file);
  const name = m ? nameFromFileName(m[1] + m[3]) : undefined;
  return name === undefined ? undefined : { name, n: m![2] ? Number(m![2]) : 1 };
}

async function removeTrashCopy(copy: string | undefined, created: string[]): Promise<void> {
  if (copy) await fs.rm(copy, { force: true });
  for (const dir of [...created].reverse()) await fs.rmdir(dir).catch(() => undefined);
}

async function undoMoves(moved: Move[]): Promise<void> {
  for (const m of [...moved].reverse()) {
    await fs.rename(m.to, m.from).catch(() => undefined);
    for (const dir of [...m.created].reverse()) await fs.rmdir(dir).catch(() => undefined);
  }
}

/**
 * Writes `content` to `file` atomically, and returns how to undo that (remove the new file, or put the previous
 * version back) and how to make it final. The previous version is kept under a temp name (a hard link, so no
 * space is needed; a copy where links are not possible) until `commit`.
 */
async function replaceWithUndo(file: string, content: string): Promise<{ undo: () => Promise<void>; commit: () => Promise<void> }> {
  const dir = path.dirname(file);
  const previous = await fs.lstat(file).catch(() => undefined);
  let backup: string | undefined;
  if (previous) {
    backup = path.join(dir, `${TEMP_PREFIX}${process.pid}-previous-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`);
    await fs.link(file, backup).catch(() => fs.copyFile(file, backup!, fsConstants.COPYFILE_EXCL));
  }
  try {
    await writeFileAtomic(file, content);
  } catch (err) {
    if (backup) await fs.rm(backup, { force: true });
    throw err;
  }
  const written = identityOf(await fs.lstat(file));
  return {
    undo: async () => {
      // Only our own version is taken back.
      const now = await fs.lstat(file).catch(() => undefined);
      if (now && !sameIdentity(written, identityOf(now))) return;
      if (backup) await fs.rename(backup, file);
      else await fs.rm(file, { force: true });
      await syncDir(dir);
    },
    commit: async () => {
      if (backup) await fs.rm(backup, { force: true });
    },
  };
}

/** Files without a bullet (by name) and product bullets without a file, for a MEMORY.md text. */
function indexMismatch(text: string | undefined, known: Set<string>): { missing: string[]; orphans: string[] } {
  if (text === undefined) return { missing: [...known].sort(), orphans: [] };
  const bullets = indexBullets(text, known);
  const indexed = new Set(bullets.names);
  const missing = [...known].filter((n) => !indexed.has(n)).sort();
  const orphans = bullets.product.filter((n) => !known.has(n));
  return { missing, orphans };
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

/** Modified Files lists at most this many paths (seeds 000 and 004: paths, not contents; `head -10`). */
export const MAX_MODIFIED_FILES = 25;
/** A checkpoint file larger than this is still written, with a warning (seeds 000 and 004 keep them small). */
export const CHECKPOINT_SIZE_BUDGET = 4 * 1024;

/** The first {@link MAX_MODIFIED_FILES} paths, then `… and N more`. */
export function capModifiedFiles(files: string[]): string[] {
  if (files.length <= MAX_MODIFIED_FILES) return files;
  return [...files.slice(0, MAX_MODIFIED_FILES), `… and ${files.length - MAX_MODIFIED_FILES} more`];
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/**
 * When the rendered checkpoint is over {@link CHECKPOINT_SIZE_BUDGET}: a warning that names the sections that made
 * it large (largest first, those over a fifth of the file), so the user knows what to trim.
 */
function sizeWarning(cp: Checkpoint, content: string, modifiedCount: number): string | undefined {
  const total = Buffer.byteLength(content, 'utf8');
  if (total <= CHECKPOINT_SIZE_BUDGET) return undefined;
  const bytes = (items: string[]): number => items.reduce((n, i) => n + Buffer.byteLength(i, 'utf8') + 3, 0);
  const parts: [string, number, string][] = [
    ['Left Off', Buffer.byteLength(cp.leftOff, 'utf8'), plural(cp.leftOff.split(/\r?\n/).length, 'line')],
    ['Done This Session', bytes(cp.done), plural(cp.done.length, 'item')],
    ['Failed Approaches', bytes(cp.failed), plural(cp.failed.length, 'item')],
    ['Decisions', bytes(cp.decisions), plural(cp.decisions.length, 'item')],
    ['Open Questions', bytes(cp.questions), plural(cp.questions.length, 'item')],
    ['Modified Files', bytes(cp.modifiedFiles), plural(modifiedCount, 'path')],
  ];
  const big = parts.filter(([, n]) => n > total / 5).sort((a, b) => b[1] - a[1]);
  const what = (big.length ? big : [parts.sort((a, b) => b[1] - a[1])[0]]).map(([label, n, detail]) => `${label} ${kb(n)} (${detail})`).join(', ');
  return (
    `Checkpoint "${cp.name}" is ${kb(total)}, over the ${CHECKPOINT_SIZE_BUDGET / 1024} KB a checkpoint should stay within; ` +
    `it was saved anyway. Largest: ${what}. Keep checkpoints to a few lines and paths, not contents.`
  );
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
