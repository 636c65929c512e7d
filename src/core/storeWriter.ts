import { promises as fs } from 'node:fs';
import { basename, dirname } from 'node:path';
import { CheckpointError } from './errors';
import { formatLocalDate } from './dates';
import { assertNotSymlink, cleanStaleTempFiles, exists, identityOf, sameIdentity, writeFileAtomic, type FileIdentity } from './files';
import { LockLostError, withDirLock, type DirLock } from './lock';
import { removableNames, removeFromIndex, type IndexBullets, type IndexEdit } from './memoryIndex';
import { AmbiguousNameError, isLookupName, nameFromFileName, resolveName } from './names';
import { CheckpointReader } from './storeReader';
import { healIndex } from './indexRepair';
import { moveToTrashDay } from './trash';
import { createIgnoredDir, removeTrashCopy, replaceWithUndo, undoMoves, type Move, type Placed } from './transaction';
import { TwinNameError, type StoreOptions } from './storeTypes';

/**
 * The write transaction every write of a memory directory goes through (save, combine, restore: {@link writeCheckpoint};
 * resume and delete: the moves to the trash), under the directory's lock, leaving MEMORY.md in step with the files and
 * healed. Reading is {@link CheckpointReader}'s; the operations are CheckpointTrash's (storeTrash.ts) and
 * CheckpointStore's (store.ts).
 */
export class CheckpointWriter extends CheckpointReader {
  private readonly ignoreInGit: boolean;

  constructor(opts: StoreOptions) {
    super(opts);
    this.ignoreInGit = opts.ignoreInGit ?? false;
  }

  /** Runs `fn` holding the memory directory's lock (which creates the directory; see {@link ignoreInGit}). */
  protected async locked<T>(fn: (lock: DirLock) => Promise<T>): Promise<T> {
    if (this.ignoreInGit) await createIgnoredDir(this.memoryDir);
    return withDirLock(this.memoryDir, fn);
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
  protected async writeCheckpoint(
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
        const replaced = existing ? await this.trashFile(file, basename(file), created, { keep: true }) : undefined;
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
   * Under the lock, before a checkpoint file is put in place: the one lookup (the read path's) of the name as asked
   * must still lead to the file about to be written, or to none. Otherwise another writer (a concurrent save, combine
   * or pull) wrote a name the lookup reads as this one meanwhile, such as `my_task` for `my-task`: twins would make
   * every loose lookup of that name ambiguous.
   */
  protected async assertNoTwin(file: string, asked: string): Promise<void> {
    const name = nameFromFileName(basename(file))!;
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

  /**
   * Throws when `file` exists but this process could not replace it: in a folder with the sticky bit (such as a
   * shared temp folder), only the file's owner, the folder's owner or root may rename over it. Checked before
   * anything is written, so that the failure comes first, not between two writes.
   */
  protected async assertReplaceable(file: string): Promise<void> {
    const uid = process.getuid?.();
    if (uid === undefined || uid === 0) return;
    const st = await fs.lstat(file).catch(() => undefined);
    if (!st || st.uid === uid) return;
    const dir = await fs.stat(dirname(file));
    if ((dir.mode & 0o1000) !== 0 && dir.uid !== uid) {
      throw new CheckpointError(`${file} belongs to another user in a folder with the sticky bit (${dirname(file)}), so it cannot be replaced; nothing was changed.`);
    }
  }

  /**
   * Writes MEMORY.md with `change` applied to `read` (its text as read and checked at the start of the critical
   * section) and the index healed: a bullet is added for each checkpoint file that has none (a save killed between
   * its two writes; at most HEAL_LIMIT (indexRepair.ts) per write, so the critical section stays bounded), and a bullet the
   * product wrote whose file is gone is dropped. A user's own bullets are never touched. Writes nothing when nothing
   * changes; checks the lock is still ours right before the write.
   */
  protected async writeIndex(lock: DirLock, read: string | undefined, change: (text: string | undefined, known: Set<string>) => IndexEdit | string): Promise<IndexEdit> {
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
  protected async removeOrphan(rawName: string): Promise<string | undefined> {
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
  protected trashFile(file: string, baseName: string, created: string[] = [], opts: { keep?: boolean } = {}): Promise<string> {
    return moveToTrashDay(this.memoryDir, formatLocalDate(this.now()), file, baseName, created, opts);
  }

  /**
   * Moves checkpoint files to the trash, each only if it is still the version `identity` says (when given); on a
   * failure, the ones already moved go back. Returns what moved where.
   */
  protected async moveFilesToTrash(lock: DirLock, items: { name: string; identity?: FileIdentity }[]): Promise<Move[]> {
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
        moved.push({ from: file, to: await this.trashFile(file, basename(file), created), created });
      }
    } catch (err) {
      await undoMoves(moved);
      throw err;
    }
    return moved;
  }

  protected async moveToTrash(names: string[], indexNames: string[] | 'all' = names): Promise<string[]> {
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
