import { promises as fs } from 'node:fs';
import { basename, resolve } from 'node:path';
import { CheckpointError, errorMessage } from './errors';
import { describe, type Checkpoint } from './checkpoint';
import { renderCheckpoint } from './checkpointRender';
import { capModifiedFiles, sizeWarning } from './checkpointSize';
import { assertInside, assertNotSymlink, exists, identityOf, sameIdentity, writeFileAtomic, type FileIdentity } from './files';
import { readGitState, type GitState } from './git';
import { preloadLock } from './lock';
import { formatBullet, removeFromIndex, upsertIndex } from './memoryIndex';
import { oneLine } from './escaping';
import { isLookupName, nameFromFileName, resolveName, validateName } from './names';
import { recordResume } from './pending';
import { readPlanProgress, resolvePlanPath, withPortablePlan } from './plans';
import { recordLastCheckpoint } from './stateIndex';
import { branchDiffers } from './git';
import { NO_CHECKPOINTS } from './wording';
import { CodeSnapshot } from './snapshot/codeSnapshot';
import { collectGarbage, TRASH_PURGE_DAYS } from './snapshot/garbage';
import { CheckpointTrash } from './storeTrash';
import { undoMoves } from './transaction';
import {
  AmbiguousCheckpointError,
  CheckpointExistsError,
  LIST_READ_BYTES,
  SHOW_READ_BYTES,
  OrphanRemovedError,
  SaveSkippedError,
  TwinNameError,
  type ResumeResult,
  type SaveInput,
  type SaveResult,
} from './storeTypes';
// The store's shapes and errors are imported with it.
export * from './storeTypes';

/** What a save records of git where git may not run. */
const NO_GIT: GitState = { branch: '', modifiedFiles: [] };

/**
 * The checkpoints of one memory directory: save, combine and resume here; delete, restore and the trash in
 * {@link CheckpointTrash} (storeTrash.ts); each a write under the directory's lock through the one transaction of
 * {@link CheckpointWriter} (storeWriter.ts), which leaves MEMORY.md in step with the files; reading is
 * {@link CheckpointReader}'s (storeReader.ts). Editor-free.
 */
export class CheckpointStore extends CheckpointTrash {
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
    const scan: Promise<GitState> = Promise.resolve(input.git ?? (this.allowGit ? readGitState(this.cwd, { timeoutMs: this.gitTimeoutMs }) : NO_GIT));
    // The code snapshot is taken from the same status scan as Modified Files, before the lock; its ref moves once the
    // checkpoint is written.
    const snapshot =
      this.allowGit && input.git === undefined && input.snapshot?.enabled !== false
        ? CodeSnapshot.begin(this.cwd, name, scan, { timeLimitMs: this.gitTimeoutMs, memoryDir: this.memoryDir, reads: this.reads, ...input.snapshot })
        : undefined;
    try {
      // Where the name's snapshot ref points now, as the checkpoint this save replaces says ('' none; only a guess,
      // checked when the ref moves): read while git runs.
      const replacing = snapshot && this.read(file, LIST_READ_BYTES).then((old) => old.snapshot ?? '', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? '' : undefined));
      // While git runs in its child process, load what the write needs, which would otherwise load after it.
      preloadLock();
      const git = await scan;
      const leftOff = (input.leftOff ?? '').trim();
      const warnings: string[] = [];
      if (git.timedOut) warnings.push(`${git.problem}; saved without the branch and the modified files.`);
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
      const snap = await snapshot?.tree();
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
      const after = await Promise.all([
        (async () => {
          // The snapshot's ref moves only now that its checkpoint is written: a save that writes nothing moves no ref
          // (a save refused, or beaten by another writer of the same name, must not take the ref from the checkpoint
          // that names it).
          const kept = await snapshot?.keep(await replacing);
          // Then trash older than 30 days goes, with the snapshot refs only it named: not while the ref moves, whose
          // old value may be one of them.
          const purged = await collectGarbage(this, TRASH_PURGE_DAYS, { git: this.allowGit }).then((g) => g.warnings, (err: unknown) => [`Old trash was not purged: ${errorMessage(err)}`]);
          return [kept, ...purged];
        })(),
        // `.claude/state-index.json`, when it exists, records every save as the last checkpoint.
        recordLastCheckpoint(this.cwd, cp.saved),
      ]);
      for (const w of after.flat()) if (w) warnings.push(w);
      return result;
    } finally {
      await snapshot?.end();
    }
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
    const sources = (opts.trash ?? []).map((t) => ({ ...t, path: resolve(t.path) })).filter((t) => t.path !== file);
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
    const trashedNames = others.map((p) => nameFromFileName(basename(p))).filter((n): n is string => n !== undefined);
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
          moves.push({ from: p, to: await this.trashFile(p, basename(p), made), created: made });
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
}
