import { promises as fs } from 'node:fs';
import path = require('node:path');
import { CheckpointError, errorMessage } from './errors';
import { describe, renderCheckpoint, type Checkpoint } from './checkpoint';
import { capModifiedFiles, sizeWarning } from './checkpointSize';
import { formatLocalDate } from './dates';
import { assertInside, assertNotSymlink, cleanStaleTempFiles, exists, identityOf, removeFile, sameIdentity, syncDir, writeFileAtomic, type FileIdentity } from './files';
import { readGitState } from './git';
import { LockLostError, preloadLock, withDirLock, type DirLock } from './lock';
import { formatBullet, removableNames, removeFromIndex, upsertIndex, type IndexBullets, type IndexEdit } from './memoryIndex';
import { oneLine } from './escaping';
import { AmbiguousNameError, assertLookupName, isLookupName, nameFromFileName, resolveName, validateName } from './names';
import { recordResume } from './pending';
import { readPlanProgress, resolvePlanPath, withPortablePlan } from './plans';
import { recordLastCheckpoint } from './stateIndex';
import { branchDiffers } from './git';
import { NO_CHECKPOINTS } from './wording';
import { keepSnapshot, takeSnapshot } from './snapshot';
import { collectGarbage, TRASH_PURGE_DAYS } from './snapshotUse';
import { CheckpointReader } from './storeReader';
import { inlineReads } from './reads';
import { healIndex } from './indexRepair';
import { moveToTrashDay, trashedCopy } from './trash';
import { createIgnoredDir, removeTrashCopy, replaceWithUndo, undoMoves, type Move, type Placed } from './transaction';
import {
  AmbiguousCheckpointError,
  CheckpointExistsError,
  CheckpointNotFoundError,
  LIST_READ_BYTES,
  SHOW_READ_BYTES,
  OrphanRemovedError,
  SaveSkippedError,
  TRASH_DIR,
  type RestoredCheckpoint,
  TwinNameError,
  type ResumeResult,
  type SaveInput,
  type SaveResult,
  type StoreOptions,
} from './storeTypes';

// The store's shapes and errors are imported with it.
export * from './storeTypes';

/**
 * The checkpoints of one memory directory: save, resume, delete, restore and the trash, each a write under the
 * directory's lock that leaves MEMORY.md in step with the files (reading is {@link CheckpointReader}'s). Editor-free.
 */
export class CheckpointStore extends CheckpointReader {
  private readonly ignoreInGit: boolean;

  constructor(opts: StoreOptions) {
    super(opts);
    this.ignoreInGit = opts.ignoreInGit ?? false;
  }


  /** Runs `fn` holding the memory directory's lock (which creates the directory; see {@link ignoreInGit}). */
  private async locked<T>(fn: (lock: DirLock) => Promise<T>): Promise<T> {
    if (this.ignoreInGit) await createIgnoredDir(this.memoryDir);
    return withDirLock(this.memoryDir, fn);
  }

  /**
   * The name a save of `rawName` writes: the existing checkpoint it resolves to (so that saving a name as a person
   * typed it asks to overwrite instead of writing a second checkpoint), else the product's name for it.
   */
  private async saveName(rawName: string): Promise<string> {
    if (isLookupName(rawName)) {
      const existing = resolveName(rawName, await this.knownNames());
      if (existing !== undefined) return existing;
    }
    return validateName(rawName);
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
    try {
      return await this.saveOnce(input);
    } catch (err) {
      // Another writer took a name the lookup reads as this one meanwhile: the save starts again, and the lookup now
      // finds that checkpoint (overwritten with `force`, else refused as existing), as a later save would.
      if (!(err instanceof TwinNameError)) throw err;
      return this.saveOnce(input);
    }
  }

  private async saveOnce(input: SaveInput): Promise<SaveResult> {
    const name = await this.saveName(input.name);
    const file = this.pathFor(name);
    // A save that would be refused is refused before git runs: no snapshot is made for it (the lock checks again).
    if (!input.force && (await exists(file))) throw await this.existsError(file, name);
    const pendingGit = input.git ?? (this.allowGit ? (input.scan ?? readGitState(this.cwd, { timeoutMs: this.gitTimeoutMs })) : { branch: '', modifiedFiles: [] });
    // The snapshot's git calls run before the lock, on the same status scan as Modified Files; its ref is set once
    // the checkpoint is written.
    const pendingSnapshot =
      this.allowGit && !input.git
        ? takeSnapshot(this.cwd, name, { timeLimitMs: this.gitTimeoutMs, memoryDir: this.memoryDir, scan: Promise.resolve(pendingGit), syncReads: this.reads === inlineReads, ...input.snapshot })
        : undefined;
    // Where the name's snapshot ref points now, as the checkpoint this save replaces says ('' none; keepSnapshot
    // checks the guess): read while git runs.
    const replacing = pendingSnapshot && this.read(file, LIST_READ_BYTES).then((old) => old.snapshot ?? '', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? '' : undefined));
    // While git runs in its child process, load what the write needs, which would otherwise load after it.
    preloadLock();
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
    if (input.blockers?.length) cp.blockers = input.blockers;
    if (input.auto) {
      cp.auto = true;
      if (input.auto.session) cp.session = input.auto.session;
    }
    const snap = await pendingSnapshot;
    try {
      if (snap?.snapshot) {
        if (snap.snapshot.head) cp.head = snap.snapshot.head;
        cp.snapshot = snap.snapshot.commit;
        if (snap.skipped.length) cp.snapshotLeftOut = snap.skipped;
      } else if (snap?.reason) cp.snapshotSkipped = snap.reason;
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
      const content = renderCheckpoint(withPortablePlan(cp, this.home));
      const bullet = formatBullet(cp);
      const large = sizeWarning(cp, content, git.modifiedFiles.length);
      if (large) warnings.push(large);
      const written = await this.writeCheckpoint(file, {
        put: () => writeFileAtomic(file, content),
        check: async (existing) => {
          const reason = await input.unless?.();
          if (reason) throw new SaveSkippedError(reason);
          if (existing && !input.force) throw await this.existsError(file, name);
        },
        index: (text, known) => upsertIndex(text, name, bullet, known),
        asked: input.name,
      });
      if (written.edit.budgetWarning) warnings.push(written.edit.budgetWarning);
      const result: SaveResult = { checkpoint: cp, path: file, overwritten: written.overwritten, warnings };
      if (written.replaced) result.replaced = written.replaced;
      // The snapshot's ref moves only once its checkpoint is written: a save that writes nothing moves no ref (a save
      // refused, or beaten by another writer of the same name, must not take the ref from the checkpoint that names it).
      const snapshot = cp.snapshot;
      const after = await Promise.all([
        (async () => {
          const kept = snapshot
            ? await keepSnapshot(this.cwd, name, snapshot, undefined, await replacing, snap?.keeper).then(
                () => undefined,
                (err: unknown) => `The code snapshot ${snapshot.slice(0, 12)} is saved but no ref keeps it (${errorMessage(err).trim().split('\n')[0]}); git may prune it.`,
              )
            : undefined;
          // Then trash older than 30 days goes, with the snapshot refs only it named: not while the ref moves, whose
          // old value may be one of them.
          const purged = await collectGarbage(this, TRASH_PURGE_DAYS, { git: this.allowGit }).then((g) => g.warnings, (err: unknown) => [`Old trash was not purged: ${errorMessage(err)}`]);
          return [kept, ...purged];
        })(),
        // Seed 003's `.claude/state-index.json`, when it exists, records every save as the last checkpoint.
        recordLastCheckpoint(this.cwd, cp.saved),
        snap?.noted,
      ]);
      for (const w of after.flat()) if (w) warnings.push(w);
      return result;
    } finally {
      // A save that ends before its ref moves lets the snapshot's git process end with nothing updated.
      void snap?.keeper?.finish('');
    }
  }

  /**
   * Under the lock, before a checkpoint file is put in place: the one lookup (the read path's) of the name as asked
   * must still lead to the file about to be written, or to none. Otherwise another writer (a concurrent save, combine
   * or pull) wrote a name the lookup reads as this one meanwhile, such as `my_task` for `my-task`: twins would make
   * every loose lookup of that name ambiguous.
   */
  private async assertNoTwin(file: string, asked: string): Promise<void> {
    const name = nameFromFileName(path.basename(file))!;
    if (!isLookupName(asked)) return;
    let other: string | undefined;
    try {
      other = resolveName(asked, await this.knownNames());
    } catch (err) {
      if (!(err instanceof AmbiguousNameError)) throw err;
      other = err.matches.find((m) => m !== name);
    }
    if (other !== undefined && other !== name) throw new TwinNameError(other, name);
  }

  /** The refusal of a save over `file`, naming what it holds. */
  private async existsError(file: string, name: string): Promise<CheckpointExistsError> {
    return new CheckpointExistsError(await this.read(file, LIST_READ_BYTES).catch(() => undefined), file, name);
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
    const content = renderCheckpoint(withPortablePlan({ ...cp, name }, this.home));
    // A checkpoint show and resume would refuse is never written, and no source is trashed for it.
    const size = Buffer.byteLength(content);
    if (size > SHOW_READ_BYTES) {
      throw new CheckpointError(
        `The combined checkpoint "${name}" would be ${size} bytes, more than the ${SHOW_READ_BYTES} bytes a checkpoint may have to be shown or resumed; nothing was written and no source was trashed. Combine fewer checkpoints, or shorten their lists.`,
      );
    }
    const bullet = formatBullet({ ...cp, name });
    const trashedNames = others.map((p) => nameFromFileName(path.basename(p))).filter((n): n is string => n !== undefined);
    const written = await this.writeCheckpoint(file, {
      put: () => writeFileAtomic(file, content),
      // A source saved again since it was read: the combination holds only its old version, so it is not trashed,
      // and nothing is written (combine it again to include the new version).
      check: async () => {
        for (const t of sources) {
          const st = t.identity ? await fs.lstat(t.path).catch(() => undefined) : undefined;
          if (t.identity && st && !sameIdentity(t.identity, identityOf(st))) {
            throw new CheckpointError(`Checkpoint ${t.path} was saved again while it was being combined; nothing was written. Combine again to include its new version.`);
          }
        }
      },
      then: async (lock, moves) => {
        for (const p of others) {
          if (!(await exists(p))) continue;
          await lock.assertHeld();
          const made: string[] = [];
          moves.push({ from: p, to: await this.trashFile(p, path.basename(p), made), created: made });
        }
      },
      asked: cp.name,
      index: (text, known) => {
        const e = upsertIndex(text, name, bullet, known);
        return trashedNames.length ? { ...e, text: removeFromIndex(e.text, trashedNames, known) } : e;
      },
    });
    const warnings: string[] = [];
    if (written.edit.budgetWarning) warnings.push(written.edit.budgetWarning);
    return { path: file, replaced: written.replaced, trashed: written.moves.map((m) => m.to), warnings };
  }

  /**
   * The write transaction of every operation that puts a checkpoint file in place — save, combine and restore —
   * written once. Under the memory directory's lock: MEMORY.md is read and checked (a regular file, UTF-8,
   * replaceable) before anything is written; `check` may refuse (nothing written yet); an existing version is linked
   * into the trash (no write destroys a checkpoint) and the new one put in place in one rename (`put`; readers never
   * miss the file); `then` does the rest (combine: its sources to the trash, pushing each move); the index is merged
   * (`index`), the lock checked still ours before each write. When a step fails, every earlier one is undone — exit 1
   * means nothing written. When another writer took the lock over, what is done stays and the rest runs again under a
   * new lock: the index is read again and merged, `then` skips what it already did.
   */
  private async writeCheckpoint(
    file: string,
    steps: {
      put: () => Promise<void>;
      retract?: () => Promise<void>;
      check?: (existing: boolean) => Promise<void>;
      /**
       * The name as asked (save, combine, pull): checked under the lock to lead to no other checkpoint. Not for a
       * restore, which puts back a file that was there before.
       */
      asked?: string;
      then?: (lock: DirLock, moves: Move[]) => Promise<void>;
      index: (text: string | undefined, known: Set<string>) => IndexEdit;
    },
  ): Promise<{ edit: IndexEdit; overwritten: boolean; replaced?: string; moves: Move[] }> {
    // Kept across a retry after a lost lock: the file is put in place once.
    let done: { overwritten: boolean; replaced?: string; created: string[]; placed: Placed; moves: Move[] } | undefined;
    return this.locked(async (lock) => {
      await cleanStaleTempFiles(this.memoryDir);
      await assertNotSymlink(file);
      await assertNotSymlink(this.indexPath);
      const index = await this.readIndex();
      await this.assertReplaceable(this.indexPath);
      if (!done) {
        if (steps.asked !== undefined) await this.assertNoTwin(file, steps.asked);
        const existing = await exists(file);
        await steps.check?.(existing);
        if (existing) await this.assertReplaceable(file);
        await lock.assertHeld();
        const created: string[] = [];
        const replaced = existing ? await this.trashFile(file, path.basename(file), created, { keep: true }) : undefined;
        try {
          done = { overwritten: existing, replaced, created, placed: await replaceWithUndo(file, steps.put, steps.retract), moves: [] };
        } catch (err) {
          await removeTrashCopy(replaced, created);
          throw err;
        }
      }
      let edit: IndexEdit;
      try {
        await steps.then?.(lock, done.moves);
        edit = await this.writeIndex(lock, index, steps.index);
      } catch (err) {
        if (!(err instanceof LockLostError)) {
          await undoMoves(done.moves);
          await done.placed.undo();
          await removeTrashCopy(done.replaced, done.created);
          done = undefined;
        }
        throw err;
      }
      await done.placed.commit();
      return { edit, overwritten: done.overwritten, replaced: done.replaced, moves: done.moves };
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
      // The only Markdown checkpoint is used without asking; JSON history
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
      throw await this.notFound(asked);
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
      throw await this.notFound(rawName);
    }
    const name = found.name;
    if (found.source === 'json') {
      throw new CheckpointError(`${found.path} is a JSON checkpoint of a plan-scoped procedure: that history is read-only here; remove the file yourself if you must.`);
    }
    return (await this.moveToTrash([name]))[0];
  }

  /** Moves every checkpoint file to trash and removes the whole index section. Returns each one moved and where to. */
  async deleteAll(): Promise<{ name: string; trashPath: string }[]> {
    const names = (await this.files()).map((f) => nameFromFileName(path.basename(f))!);
    if (names.length === 0 && (await this.readIndex()) === undefined) return []; // nothing to do: write nothing
    const moved = await this.moveToTrash(names, 'all');
    return moved.map((to) => ({ name: trashedCopy(path.basename(to))?.name ?? path.basename(to), trashPath: to }));
  }

  /**
   * `checkpoint restore <name>`: puts the newest trashed copy of a checkpoint back, with its index bullet. When a
   * live checkpoint of that name exists: refused (CheckpointExistsError), unless `force`, which moves the live one
   * to the trash first. No trashed copy: a CheckpointError.
   */
  async restoreNamed(rawName: string, opts: { force?: boolean } = {}): Promise<RestoredCheckpoint> {
    assertLookupName(rawName);
    const copy = (await this.trashedCopies(rawName))[0];
    if (!copy) throw new CheckpointNotFoundError(rawName, path.join(this.memoryDir, TRASH_DIR), (await this.trashContents()).map((c) => c.name), 'trashed checkpoint');
    const file = this.pathFor(copy.name);
    if (!opts.force && (await exists(file))) {
      throw new CheckpointExistsError(await this.read(file, LIST_READ_BYTES).catch(() => undefined), file, copy.name);
    }
    const r = await this.restore(copy.path, { replaceLive: opts.force });
    return { checkpoint: r, path: file, restoredFrom: copy.path, ...(r.replaced ? { replaced: r.replaced } : {}) };
  }

  /**
   * `checkpoint restore --all`: puts the newest trashed copy of every checkpoint in the trash back. A name that has a
   * live checkpoint is left alone (in `kept`), unless `force`, which moves the live one to the trash first.
   */
  async restoreAll(opts: { force?: boolean } = {}): Promise<{ restored: RestoredCheckpoint[]; kept: { name: string; path: string }[] }> {
    const newest = new Map<string, string>();
    for (const c of await this.trashContents()) if (!newest.has(c.name)) newest.set(c.name, c.path);
    const restored: RestoredCheckpoint[] = [];
    const kept: { name: string; path: string }[] = [];
    for (const [name, from] of newest) {
      const file = this.pathFor(name);
      if (!opts.force && (await exists(file))) {
        kept.push({ name, path: file });
        continue;
      }
      const r = await this.restore(from, { replaceLive: opts.force });
      restored.push({ checkpoint: r, path: file, restoredFrom: from, ...(r.replaced ? { replaced: r.replaced } : {}) });
    }
    return { restored, kept };
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
    const cp: Checkpoint & { replaced?: string } = { ...(await this.read(trashPath)), name };
    const written = await this.writeCheckpoint(file, {
      // The trashed copy goes back in one rename (a live one was linked into the trash first: never missing).
      put: async () => {
        await fs.rename(trashPath, file);
        await syncDir(this.memoryDir);
      },
      retract: () => fs.rename(file, trashPath),
      check: async (live) => {
        if (live && !opts.replaceLive) throw new CheckpointError(`Cannot restore "${name}": a checkpoint of that name exists again.`);
      },
      index: (text, known) => upsertIndex(text, name, formatBullet(cp), known),
    });
    if (written.replaced) cp.replaced = written.replaced;
    return cp;
  }

  /**
   * Removes trashed checkpoint files from the day folders of `.trash` dated `olderThanDays` days ago or earlier
   * (0: all of them), then those folders when empty. Returns the removed files with the snapshot each named, and
   * every snapshot still named by a live or trashed checkpoint. Reads only the trash folder when nothing is old.
   * `dryRun`: removes nothing, returns what would go.
   */
  async purgeTrash(olderThanDays: number, opts: { dryRun?: boolean } = {}): Promise<{ purged: { file: string; snapshot?: string }[]; stillNamed: Set<string> }> {
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
          if (!opts.dryRun) await removeFile(file);
        }
        if (!opts.dryRun) await fs.rmdir(dir).catch(() => undefined);
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

  /**
   * Writes MEMORY.md with `change` applied to `read` (its text as read and checked at the start of the critical
   * section) and the index healed: a bullet is added for each checkpoint file that has none (a save killed between
   * its two writes; at most HEAL_LIMIT (indexRepair.ts) per write, so the critical section stays bounded), and a bullet the
   * product wrote whose file is gone is dropped. A user's own bullets are never touched. Writes nothing when nothing
   * changes; checks the lock is still ours right before the write.
   */
  private async writeIndex(lock: DirLock, read: string | undefined, change: (text: string | undefined, known: Set<string>) => IndexEdit | string): Promise<IndexEdit> {
    const live = await this.knownNames();
    const known = new Set([...live, ...(await this.trashedNames())]);
    // After a lost lock, another writer may have changed the file: merge into what is there now.
    const current = await this.readIndex();
    const base = current ?? read;
    const changed = change(base, known);
    let edit: IndexEdit = typeof changed === 'string' ? { text: changed } : changed;
    // No MEMORY.md and nothing to add to it: none is created.
    if (base === undefined && edit.text === '') return edit;
    edit = { ...edit, text: await this.healIndex(edit.text, live, known, edit.bullets?.of === edit.text ? edit.bullets.read() : undefined) };
    if (edit.text === base) return edit;
    await lock.assertHeld();
    await writeFileAtomic(this.indexPath, edit.text);
    return edit;
  }

  /** `text` with bullets added for checkpoint files that lack one and the lines of trashed checkpoints removed. */
  private healIndex(text: string, live: Set<string>, known: Set<string>, bullets?: IndexBullets): Promise<string> {
    return healIndex(text, live, known, (name) => this.summarize(this.pathFor(name), { details: false }), bullets);
  }

  /**
   * Removes the index bullet of a checkpoint whose file is gone (by the name as given, else the sanitized one).
   * Returns the bullet's name, or undefined when there was none.
   */
  private async removeOrphan(rawName: string): Promise<string | undefined> {
    // A line is removed only when it can be told a checkpoint's: it names one in the trash (any shape), or it has
    // the product's full shape; a person's `- **todo** buy milk` stays. The same lookup finds it.
    const trashed = await this.trashedNames();
    const orphanIn = (text: string | undefined): string | undefined => (text === undefined ? undefined : resolveName(rawName, removableNames(text, trashed)));
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
  private trashFile(file: string, baseName: string, created: string[] = [], opts: { keep?: boolean } = {}): Promise<string> {
    return moveToTrashDay(this.memoryDir, formatLocalDate(this.now()), file, baseName, created, opts);
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
      // Lines of the person's own are never touched: only those naming a checkpoint that exists or is in the trash.
      const known = new Set([...(await this.knownNames()), ...(await this.trashedNames())]);
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


