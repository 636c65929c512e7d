import { promises as fs } from 'node:fs';
import { basename, join } from 'node:path';
import { CheckpointError } from './errors';
import type { Checkpoint } from './checkpoint';
import { formatLocalDate } from './dates';
import { assertInside, assertNotSymlink, exists, removeFile, syncDir } from './files';
import { formatBullet, upsertIndex } from './memoryIndex';
import { assertLookupName, nameFromFileName } from './names';
import { CheckpointWriter } from './storeWriter';
import { trashedCopy } from './trash';
import { CheckpointExistsError, CheckpointNotFoundError, LIST_READ_BYTES, TRASH_DIR, type RestoredCheckpoint } from './storeTypes';

/** Delete, restore and purge: checkpoints into the trash and back, and old trash out for good. */
export class CheckpointTrash extends CheckpointWriter {
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
    const names = (await this.files()).map((f) => nameFromFileName(basename(f))!);
    if (names.length === 0 && (await this.readIndex()) === undefined) return []; // nothing to do: write nothing
    const moved = await this.moveToTrash(names, 'all');
    return moved.map((to) => ({ name: trashedCopy(basename(to))?.name ?? basename(to), trashPath: to }));
  }

  /**
   * `checkpoint restore <name>`: puts the newest trashed copy of a checkpoint back, with its index bullet. When a
   * live checkpoint of that name exists: refused (CheckpointExistsError), unless `force`, which moves the live one
   * to the trash first. No trashed copy: a CheckpointError.
   */
  async restoreNamed(rawName: string, opts: { force?: boolean } = {}): Promise<RestoredCheckpoint> {
    assertLookupName(rawName);
    const copy = (await this.trashedCopies(rawName))[0];
    if (!copy) throw new CheckpointNotFoundError(rawName, join(this.memoryDir, TRASH_DIR), (await this.trashContents()).map((c) => c.name), 'trashed checkpoint');
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
    assertInside(join(this.memoryDir, TRASH_DIR), trashPath);
    const name = nameFromFileName(basename(trashPath).replace(/~\d+(\.md)$/, '$1'));
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
    const trash = join(this.memoryDir, TRASH_DIR);
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
        const dir = join(trash, day);
        await assertNotSymlink(dir);
        for (const f of await fs.readdir(dir).catch(() => [] as string[])) {
          if (trashedCopy(f) === undefined) continue;
          const file = join(dir, f);
          purged.push({ file, snapshot: await snapshotOf(file) });
          if (!opts.dryRun) await removeFile(file);
        }
        if (!opts.dryRun) await fs.rmdir(dir).catch(() => undefined);
      }
      const stillNamed = new Set<string>();
      for (const day of days.filter((d) => d > cutoff)) {
        for (const f of await fs.readdir(join(trash, day)).catch(() => [] as string[])) {
          const sha = await snapshotOf(join(trash, day, f));
          if (sha) stillNamed.add(sha);
        }
      }
      for (const c of await this.list({ includeJson: false })) if (c.checkpoint?.snapshot) stillNamed.add(c.checkpoint.snapshot);
      return { purged, stillNamed };
    });
  }
}
