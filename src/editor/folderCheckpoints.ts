import vscode = require('vscode');
import { pickActive, type ActiveCheckpoint, type ActivePick } from '../core/activeCheckpoint';
import { CheckpointIndex } from '../core/checkpointIndex';
import type { Checkpoint } from '../core/checkpoint';
import { combine, type CombineOptions, type CombineResult } from '../core/combine';
import type { CommitOptions, CommitResult } from '../core/commit';
import { CheckpointError, errorMessage } from '../core/errors';
import { resolveMemoryDir, type ResolvedMemoryDir } from '../core/memoryDir';
import { PromiseCache } from '../core/promiseCache';
import { pullCheckpoints, pushCheckpoints, type PullResult, type PushResult } from '../core/handoff';
import { commitWork } from '../core/commit';
import { openStore } from '../core/openStore';
import { resolvePlansDir } from '../core/plans';
import { branchFromSnapshot } from '../core/snapshot/reading';
import { OrphanRemovedError, type CheckpointStore, type CheckpointSummary, type ResumeResult, type SaveInput, type SaveResult } from '../core/store';
import { FolderBranch } from './folderBranch';
import type { FolderHost, UndoEntry, WriteOperation } from './folderHost';
import { MemoryDirWatcher } from './memoryDirWatcher';
import { folderSetting, snapshotSetting } from './settings';

/** What a write changes beside the files: the index re-reads `files`; active and Undo are set when given (null clears). */
interface WriteEffect {
  /** Files written, moved or deleted ('all': the folder is listed again). */
  files: string[] | 'all';
  active?: ActiveCheckpoint | null;
  undo?: UndoEntry | null;
}

/**
 * One workspace folder's checkpoints: its memory directory (resolved from settings, re-resolved when they change) and
 * the watcher on it, the one listing ({@link CheckpointIndex}), the current branch and the watcher on git's HEAD, the
 * checkpoint recorded in this window and the Dismiss. Every write (save, resume, delete, restore) goes through
 * {@link run}: the store operation, then one state update (index, active checkpoint, Undo), then one change event.
 * Views and the status bar only read it and subscribe to the model's events.
 */
export class FolderCheckpoints implements vscode.Disposable {
  readonly index: CheckpointIndex;
  readonly key: string;
  private readonly memoryDirCache = new PromiseCache<ResolvedMemoryDir>();
  private readonly plansDirCache = new PromiseCache<string>();
  private readonly memoryWatcher: MemoryDirWatcher;
  private readonly branchOf: FolderBranch;
  private disposed = false;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly host: FolderHost,
  ) {
    this.key = folder.uri.toString();
    this.index = new CheckpointIndex(() => this.store(), host.stats, () => this.onIndexChange());
    this.branchOf = new FolderBranch(folder, host);
    this.memoryWatcher = new MemoryDirWatcher(
      host.log,
      (file, deleted) => {
        host.fireFile({ folder, path: file, deleted });
        void this.refreshFile(file);
      },
      (dir) => !this.disposed && this.memoryDirNow()?.dir === dir,
    );
  }

  // ---- directories and store ------------------------------------------------------------------------

  /** The memory directory (kept until its setting changes). Also starts watching it. */
  async memoryDir(): Promise<ResolvedMemoryDir> {
    const resolving = this.memoryDirCache.get(() =>
      // The folder's own Claude Code settings count only in a trusted workspace.
      resolveMemoryDir({ cwd: this.folder.uri.fsPath, configured: folderSetting(this.folder, 'memoryDirectory'), trusted: this.host.trusted }),
    );
    // Once per resolution: tell the model, and watch the directory before anyone uses it.
    if (this.watching?.for !== resolving) {
      const done = resolving.then(async (resolved) => {
        if (this.disposed || this.memoryDirCache.value !== resolved) return; // resolved again meanwhile
        this.host.memoryDirResolved(resolved);
        await this.memoryWatcher.watch(resolved.dir);
      });
      this.watching = { for: resolving, done: done.catch(() => undefined) };
    }
    const resolved = await resolving;
    await this.watching.done;
    return resolved;
  }

  private watching?: { for: Promise<ResolvedMemoryDir>; done: Promise<void> };

  /** The memory directory if already resolved (synchronous). */
  memoryDirNow(): ResolvedMemoryDir | undefined {
    return this.memoryDirCache.value;
  }

  /** The plans directory (kept until `checkpoint.plansDirectory` changes). */
  plansDir(): Promise<string> {
    return this.plansDirCache.get(() => resolvePlansDir({ cwd: this.folder.uri.fsPath, configured: folderSetting(this.folder, 'plansDirectory') }));
  }

  /** A store over the memory directory; git runs only in a trusted workspace (Restricted Mode: never). */
  async store(): Promise<CheckpointStore> {
    const resolved = await this.memoryDir();
    return (await openStore({ cwd: this.folder.uri.fsPath, trusted: this.host.trusted, resolved })).store;
  }

  /** Resolves the memory directory again (its setting changed, or Refresh), lists it again, then tells listeners. */
  async reresolveMemoryDir(): Promise<void> {
    this.memoryDirCache.clear();
    this.index.reload();
    // The watcher stays until the new directory is known: it is kept when the directory did not change.
    try {
      const { dir, source } = await this.memoryDir();
      this.host.log.info(`Memory directory of ${this.folder.name}: ${dir} (from ${source})`);
    } catch (err) {
      this.host.log.error(`Could not resolve the memory directory of ${this.folder.name}: ${errorMessage(err)}`);
    }
    this.host.fire({ kind: 'memoryDir', folder: this.folder });
  }

  /** `checkpoint.plansDirectory` changed. */
  plansDirChanged(): void {
    this.plansDirCache.clear();
    this.host.fire({ kind: 'plansDir', folder: this.folder });
  }

  /** Resolves the directories and reads the branch again (the Refresh command). */
  async refresh(): Promise<void> {
    this.plansDirCache.clear();
    await this.reresolveMemoryDir();
    if (this.branchOf.known) await this.refreshBranch();
  }

  /** Re-reads one file into the index (a watcher event, or a write); failures are logged. */
  refreshFile(file: string): Promise<boolean> {
    return this.index.refreshFile(file).catch((err: unknown) => {
      this.host.log.warn(`Could not re-read ${file}: ${errorMessage(err)}`);
      return false;
    });
  }

  /** The listing changed outside a write (a file event): a newer checkpoint ends a Dismiss. */
  private onIndexChange(): void {
    if (this.quiet) return;
    void this.endDismissalIfOver().then(() => this.host.fire({ kind: 'checkpoints', folder: this.folder }));
  }

  // ---- branch -------------------------------------------------------------------------------------

  /** The current branch as last read: undefined until read; '' when unknown. Synchronous. */
  branch(): string | undefined {
    return this.branchOf.now();
  }

  /** The current branch, read once and then kept up to date by a watcher on git's HEAD. '' when unknown. */
  currentBranch(): Promise<string> {
    return this.branchOf.current();
  }

  /** Reads the branch again now (after a checkout of our own), without waiting for the HEAD watcher. */
  refreshBranch(): Promise<string> {
    return this.branchOf.refresh();
  }

  /** Workspace trust was granted: the branch is read again on the next look. */
  trustGranted(): void {
    this.branchOf.trustGranted();
  }


  // ---- the active checkpoint ------------------------------------------------------------------------

  /** The checkpoint last saved or resumed in this window (kept once consumed: its `path` is then in the trash). */
  recorded(): ActiveCheckpoint | undefined {
    return this.host.state.recorded(this.key);
  }

  /** Records (or forgets) the checkpoint of this window; recording one ends a Dismiss. One event. */
  async setRecorded(active: ActiveCheckpoint | undefined): Promise<void> {
    await this.applyActive(active ?? null);
    this.host.fire({ kind: 'active', folder: this.folder });
  }

  /** The active-checkpoint rule over what this folder knows now (no I/O; see `pickActive`). */
  activePick(): ActivePick {
    return pickActive(this.recorded(), this.index.cachedFiles(), this.dismissedUntil());
  }

  /** The active checkpoint, Dismiss aside. */
  active(): ActiveCheckpoint | undefined {
    return this.activePick().active;
  }

  dismissedUntil(): string | undefined {
    return this.host.state.dismissedUntil(this.key);
  }

  /** Dismiss: hides the active checkpoint until a newer one becomes active. Persisted. */
  async dismiss(): Promise<void> {
    await this.setDismissed(this.activePick().dismissUntil);
  }

  /** Sets (or, undefined, ends) the Dismiss; an event when it changed. */
  async setDismissed(until: string | undefined): Promise<void> {
    if (await this.host.state.setDismissed(this.key, until)) this.host.fire({ kind: 'active', folder: this.folder });
  }

  private async endDismissalIfOver(): Promise<void> {
    if (this.activePick().dismissalOver) await this.host.state.setDismissed(this.key, undefined);
  }

  private async applyActive(active: ActiveCheckpoint | null): Promise<void> {
    await this.host.state.setRecorded(this.key, active ?? undefined);
    if (active) {
      await this.host.state.setDismissed(this.key, undefined);
      this.host.useFolder(this.folder);
    }
  }

  // ---- writes -------------------------------------------------------------------------------------

  /**
   * Every write: the store operation, then one state update (the index re-reads what was written, the active
   * checkpoint and Undo are set), then one change event. New writers add a method that calls this.
   */
  private async run<T>(operation: WriteOperation, write: (store: CheckpointStore) => Promise<[T, WriteEffect]>): Promise<T> {
    const store = await this.store();
    const [result, effect] = await write(store);
    await this.memoryWatcher.written();
    if (effect.files === 'all') this.index.reload();
    else for (const file of effect.files) await this.refreshFileQuietly(file);
    if (effect.active !== undefined) await this.applyActive(effect.active);
    if (effect.undo !== undefined) this.host.setUndo(effect.undo ?? undefined);
    await this.endDismissalIfOver();
    this.host.fire({ kind: 'write', folder: this.folder, operation });
    return result;
  }

  /** A write's own re-read: the write's one event tells listeners. */
  private async refreshFileQuietly(file: string): Promise<void> {
    this.quiet++;
    try {
      await this.refreshFile(file);
    } finally {
      this.quiet--;
    }
  }

  private quiet = 0;

  /**
   * Saves a checkpoint (with a code snapshot unless `checkpoint.snapshot` is off) and makes it the active one; an
   * overwrite can be undone (the previous version is in the trash).
   */
  save(input: SaveInput): Promise<SaveResult> {
    return this.run('save', async (store) => {
      const r = await store.save({ snapshot: snapshotSetting(this.folder), ...input });
      const cp = r.checkpoint;
      return [r, {
        files: [r.path],
        active: { name: cp.name, branch: cp.branch, saved: cp.saved, path: r.path },
        undo: r.replaced ? { folder: this.key, name: cp.name, trashPath: r.replaced, overwrite: true } : undefined,
      }];
    });
  }

  /**
   * Resumes a checkpoint (consumed unless `keep`; no name: the only one) and makes it the active one; a consumed one
   * can be undone.
   * A missing file's index bullet is removed and `OrphanRemovedError` thrown.
   */
  resume(name: string | undefined, opts: { keep: boolean }): Promise<ResumeResult> {
    return this.run('resume', async (store) => {
      let r: ResumeResult;
      try {
        r = await store.resume(name, opts);
      } catch (err) {
        if (err instanceof OrphanRemovedError && name) await this.refreshFileQuietly(store.pathFor(name));
        throw err;
      }
      const cp = r.checkpoint;
      const undo = r.consumed && r.trashPath ? { folder: this.key, name: cp.name, trashPath: r.trashPath } : undefined;
      return [r, {
        files: [name ? store.pathFor(name) : r.path],
        active: { name: cp.name, branch: cp.branch, saved: cp.saved, path: r.trashPath ?? r.path },
        undo,
      }];
    });
  }

  /**
   * Moves a checkpoint to the trash (index bullet removed). `summary`: its listing entry when known (a JSON or
   * unreadable file cannot be undone). Returns the trash path ('' when only a stale bullet was removed).
   */
  delete(name: string, summary?: CheckpointSummary): Promise<string> {
    return this.run('delete', async (store) => {
      const trashPath = await store.delete(name);
      const json = summary?.source === 'json';
      const undoable = trashPath !== '' && !json && !summary?.unreadable;
      return [trashPath, {
        files: json ? 'all' : [summary?.path ?? store.pathFor(name)],
        active: this.recorded()?.name === name ? null : undefined,
        undo: undoable ? { folder: this.key, name, trashPath } : undefined,
      }];
    });
  }

  /** Moves every checkpoint to the trash. Returns how many. */
  deleteAll(): Promise<number> {
    return this.run('deleteAll', async (store) => [(await store.deleteAll()).length, { files: 'all', active: null }]);
  }

  /**
   * Puts a trashed checkpoint back (file and index bullet), as Undo. `overwrite`: it is the version a save
   * replaced, and goes back over the newer one (which goes to the trash: `replaced`). Returns its name and path.
   */
  restore(trashPath: string, name?: string, opts: { overwrite?: boolean } = {}): Promise<{ name: string; path: string; replaced?: string }> {
    return this.run('restore', async (store) => {
      const cp = await store.restore(trashPath, { replaceLive: opts.overwrite === true });
      const restoredName = name || cp.name;
      const file = store.pathFor(restoredName);
      const recorded = this.recorded();
      const active =
        recorded?.path === trashPath || (opts.overwrite && recorded?.name === restoredName)
          ? { name: restoredName, branch: cp.branch, saved: cp.saved, path: file }
          : undefined;
      return [{ name: restoredName, path: file, ...(cp.replaced ? { replaced: cp.replaced } : {}) }, {
        files: [file],
        active,
        undo: this.host.lastUndo?.trashPath === trashPath ? null : undefined,
      }];
    });
  }

  /** Creates `checkpoint/<name>` at a snapshot (the work tree, the index and HEAD stay as they are). Returns the branch. */
  branchFromSnapshot(name: string, commit: string): Promise<string> {
    return this.run('branch', async (store) => [await branchFromSnapshot(store.cwd, name, commit), { files: [] }]);
  }

  /** Pushes checkpoints (`names`, else all) and their snapshots to a git remote. */
  push(names: string[], remote?: string): Promise<PushResult> {
    return this.run('push', async (store) => [await pushCheckpoints(store, names, remote), { files: [] }]);
  }

  /** Pulls the checkpoints pushed to a git remote into the memory folder (a differing local one goes to the trash first). */
  pull(remote?: string): Promise<PullResult> {
    return this.run('pull', async (store) => {
      const r = await pullCheckpoints(store, remote);
      return [r, { files: r.written.map((w) => w.path) }];
    });
  }

  /**
   * Combines saved checkpoints into a new one (core `combine`) and makes it the active one. An existing checkpoint of
   * the new name goes to the trash first, and Undo puts it back as after an overwrite; the sources go to the trash
   * too with `trashSources`.
   */
  combine(name: string, sources: string[], opts: CombineOptions = {}): Promise<CombineResult> {
    return this.run('combine', async (store) => {
      const r = await combine(store, name, sources, opts);
      const cp = r.checkpoint;
      return [r, {
        files: r.trashedSources.length ? [r.path, ...r.sourcePaths] : [r.path],
        active: { name: cp.name, branch: cp.branch, saved: cp.saved, path: r.path },
        undo: r.replaced ? { folder: this.key, name: cp.name, trashPath: r.replaced, overwrite: true } : undefined,
      }];
    });
  }

  /**
   * Commits the folder's work tree after a save (core `commitWork`: likely secrets and the memory folder left out;
   * `push` pushes too). Writes no checkpoint, so it needs no {@link run}. Never in Restricted Mode. Throws the core's
   * `CommitError` when git refuses; the checkpoint stays as saved.
   */
  async commit(cp: Pick<Checkpoint, 'name' | 'description' | 'done'>, opts: Pick<CommitOptions, 'push' | 'signal' | 'type'> = {}): Promise<CommitResult> {
    if (!this.host.trusted) throw new CheckpointError('Save and Commit runs git, which never runs in Restricted Mode: trust this workspace first.');
    const { memoryDir } = await this.store();
    return commitWork(cp, { ...opts, cwd: this.folder.uri.fsPath, memoryDir });
  }

  dispose(): void {
    this.disposed = true;
    this.memoryWatcher.dispose();
    this.branchOf.dispose();
  }
}
