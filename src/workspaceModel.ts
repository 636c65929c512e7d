import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from './core/errors';
import { readBranch } from './core/git';
import { resolveGitDir } from './core/gitDir';
import { autoMemoryOffNotice, resolveMemoryDir, type MemoryDirSource, type ResolvedMemoryDir } from './core/memoryDir';
import { resolvePlansDir } from './core/plans';
import { CheckpointStore } from './core/store';
import { ContextKey, type ContextKeys } from './contextKeys';

/**
 * A folder's active checkpoint. As recorded by the model ({@link WorkspaceModel.active}): the last one saved or
 * resumed in this window; as the status bar shows it: that one while it is still the newest, else the newest
 * checkpoint file of the folder's memory directory (see `CheckpointStatusBar.activeCheckpoint`).
 */
export interface ActiveCheckpoint {
  name: string;
  /** Branch it was saved on ('' when unknown). */
  branch: string;
  saved: string;
  /** Where the file is now (its trash path once consumed). */
  path: string;
  /**
   * When it became the active one (ISO): when it was saved or resumed in this window, or its `saved` time when it
   * is the newest file. Records written before this field existed lack it: their `saved` time counts.
   */
  at?: string;
}

/** A consumed or deleted checkpoint that Undo can put back. */
export interface UndoEntry {
  /** `folder.uri.toString()`. */
  folder: string;
  name: string;
  trashPath: string;
}

export type ModelChangeKind = 'memoryDir' | 'plansDir' | 'branch' | 'active' | 'trust' | 'folders' | 'currentFolder' | 'undo';

export interface ModelChange {
  kind: ModelChangeKind;
  /** The folder concerned; undefined for workspace-wide changes. */
  folder?: vscode.WorkspaceFolder;
}

/** A checkpoint file in a folder's memory directory was created, changed or deleted. */
export interface FileChange {
  folder: vscode.WorkspaceFolder;
  path: string;
  deleted: boolean;
}

export type AfterResume = 'trash' | 'keep';

const ACTIVE_KEY = 'checkpoint.activeCheckpoints';
/** Per folder: the time (ISO) up to which saved checkpoints stay hidden from the status bar (its Dismiss). */
const DISMISSED_KEY = 'checkpoint.dismissedCheckpoints';
const SECTION = 'checkpoint';
/** Memory folders whose user was told that Claude Code's auto memory is off. */
const AUTO_MEMORY_OFF_TOLD_KEY = 'checkpoint.autoMemoryOffTold';

/** What the model knows about one workspace folder. Everything is resolved lazily and cached. */
class FolderEntry implements vscode.Disposable {
  /** Bumped whenever the memory directory must be resolved again; late results of older rounds are dropped. */
  generation = 0;
  memoryDir?: Promise<ResolvedMemoryDir>;
  resolvedMemoryDir?: ResolvedMemoryDir;
  plansDir?: Promise<string>;
  /** Current branch; undefined until read ('' when unknown: no repository, or Restricted Mode). */
  branch?: string;
  branchRead?: Promise<string>;
  /** HEAD changed while a read was running: read again when it ends. */
  branchStale = false;
  memoryWatcher?: { dir: string; existed: boolean; disposables: vscode.Disposable[] };
  headWatcher?: Promise<void>;
  readonly headDisposables: vscode.Disposable[] = [];
  disposed = false;

  constructor(readonly folder: vscode.WorkspaceFolder) {}

  disposeMemoryWatcher(): void {
    for (const d of this.memoryWatcher?.disposables ?? []) d.dispose();
    this.memoryWatcher = undefined;
  }

  dispose(): void {
    this.disposed = true;
    this.disposeMemoryWatcher();
    for (const d of this.headDisposables.splice(0)) d.dispose();
  }
}

/**
 * The per-folder state the views and commands share: memory and plans directories resolved from
 * settings (re-resolved only when `checkpoint.*` changes for that folder), the current branch (watched
 * through git's HEAD, never polled), the checkpoint last saved or resumed in this window and the status bar's
 * Dismiss (both persisted in workspaceState), file events
 * from the memory directory, and the last Undo-able action.
 */
export class WorkspaceModel implements vscode.Disposable {
  private readonly entries = new Map<string, FolderEntry>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeEmitter = new vscode.EventEmitter<ModelChange>();
  private readonly onDidChangeFilesEmitter = new vscode.EventEmitter<FileChange>();
  private currentFolderKey: string | undefined;
  private undoEntry: UndoEntry | undefined;

  /** Settings, branch, active checkpoint, trust or folders changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  /** A checkpoint file changed on disk (from the memory-directory watcher). */
  readonly onDidChangeFiles = this.onDidChangeFilesEmitter.event;

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    private readonly contextKeys: ContextKeys,
  ) {
    this.disposables.push(
      this.onDidChangeEmitter,
      this.onDidChangeFilesEmitter,
      vscode.workspace.onDidChangeConfiguration((e) => this.onDidChangeConfiguration(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.onDidGrantTrust()),
      vscode.workspace.onDidChangeWorkspaceFolders((e) => this.onDidChangeFolders(e)),
      vscode.window.onDidChangeActiveTextEditor((editor) => this.onDidChangeEditor(editor)),
    );
  }

  /** False in Restricted Mode: git never runs and branches are unknown. */
  get trusted(): boolean {
    return vscode.workspace.isTrusted;
  }

  folders(): readonly vscode.WorkspaceFolder[] {
    return vscode.workspace.workspaceFolders ?? [];
  }

  /** A workspace folder by path, name or URI string (the `folder` option of commands). */
  folderByArg(value: string): vscode.WorkspaceFolder | undefined {
    const folders = this.folders();
    const resolved = path.isAbsolute(value) ? path.resolve(value) : undefined;
    return (
      folders.find((f) => resolved !== undefined && path.resolve(f.uri.fsPath) === resolved) ??
      folders.find((f) => f.uri.toString() === value) ??
      folders.find((f) => f.name === value)
    );
  }

  /** The folder the user works in: the active editor's, else the last one used, else the first. */
  currentFolder(): vscode.WorkspaceFolder | undefined {
    const folders = this.folders();
    if (folders.length <= 1) return folders[0];
    const uri = vscode.window.activeTextEditor?.document.uri;
    const fromEditor = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    return fromEditor ?? folders.find((f) => f.uri.toString() === this.currentFolderKey) ?? folders[0];
  }

  /** Marks a folder as the one being worked in (after a save or resume there). */
  useFolder(folder: vscode.WorkspaceFolder): void {
    if (this.currentFolderKey === folder.uri.toString()) return;
    this.currentFolderKey = folder.uri.toString();
    this.fire({ kind: 'currentFolder', folder });
  }

  // ---- settings -------------------------------------------------------------------------------

  private setting(folder: vscode.WorkspaceFolder, key: string): string {
    return vscode.workspace.getConfiguration(SECTION, folder.uri).get<string>(key, '') ?? '';
  }

  afterResume(folder: vscode.WorkspaceFolder): AfterResume {
    return vscode.workspace.getConfiguration(SECTION, folder.uri).get<string>('afterResume') === 'keep' ? 'keep' : 'trash';
  }

  statusBarEnabled(): boolean {
    return vscode.workspace.getConfiguration(SECTION).get<boolean>('statusBar.enabled', true);
  }

  /** The folder's memory directory (cached until its setting changes). Also starts watching it. */
  memoryDir(folder: vscode.WorkspaceFolder): Promise<ResolvedMemoryDir> {
    const entry = this.entry(folder);
    if (!entry.memoryDir) {
      const generation = entry.generation;
      const resolving = (async () => {
        // The folder's own Claude Code settings count only in a trusted workspace.
        const resolved = await resolveMemoryDir({ cwd: folder.uri.fsPath, configured: this.setting(folder, 'memoryDirectory'), trusted: this.trusted });
        if (generation === entry.generation && !entry.disposed) {
          entry.resolvedMemoryDir = resolved;
          this.tellAutoMemoryOff(resolved);
          this.updateMemoryDirSource();
          await this.watchMemoryDir(entry, resolved.dir);
        }
        return resolved;
      })();
      entry.memoryDir = resolving;
      // Never keep a rejected promise: the next call tries again.
      resolving.catch(() => {
        if (entry.memoryDir === resolving) entry.memoryDir = undefined;
      });
    }
    return entry.memoryDir;
  }

  /** Tells the user, once per memory folder, that Claude Code will not load it (its auto memory is off). */
  private tellAutoMemoryOff(resolved: ResolvedMemoryDir): void {
    const notice = autoMemoryOffNotice(resolved);
    if (!notice) return;
    const told = this.state.get<string[]>(AUTO_MEMORY_OFF_TOLD_KEY, []);
    if (told.includes(resolved.dir)) return;
    void this.state.update(AUTO_MEMORY_OFF_TOLD_KEY, [...told, resolved.dir]);
    this.log.warn(notice);
    void vscode.window.showInformationMessage(notice);
  }

  /** The memory directory if already resolved (synchronous; for tooltips and tests). */
  memoryDirNow(folder: vscode.WorkspaceFolder): ResolvedMemoryDir | undefined {
    return this.entries.get(folder.uri.toString())?.resolvedMemoryDir;
  }

  /**
   * Where the workspace's checkpoints are stored (the welcome view names it): the memory directory's
   * source when every folder's is resolved and they agree, 'mixed' when folders differ, undefined while
   * some folder's is not resolved yet.
   */
  memoryDirSource(): MemoryDirSource | 'mixed' | undefined {
    const sources = new Set<MemoryDirSource>();
    for (const folder of this.folders()) {
      const source = this.memoryDirNow(folder)?.source;
      if (!source) return undefined;
      sources.add(source);
    }
    if (sources.size > 1) return 'mixed';
    return sources.values().next().value;
  }

  /** Sets the `checkpoint.memoryDirSource` context key (unchanged while a folder is being resolved again). */
  private updateMemoryDirSource(): void {
    const source = this.memoryDirSource();
    if (source) this.contextKeys.set(ContextKey.memoryDirSource, source);
  }

  /** The folder's plans directory (cached until `checkpoint.plansDirectory` changes). */
  plansDir(folder: vscode.WorkspaceFolder): Promise<string> {
    const entry = this.entry(folder);
    if (!entry.plansDir) {
      const resolving = resolvePlansDir({ cwd: folder.uri.fsPath, configured: this.setting(folder, 'plansDirectory') });
      entry.plansDir = resolving;
      resolving.catch(() => {
        if (entry.plansDir === resolving) entry.plansDir = undefined;
      });
    }
    return entry.plansDir;
  }

  /** A store over the folder's memory directory; git runs only in a trusted workspace. */
  async store(folder: vscode.WorkspaceFolder): Promise<CheckpointStore> {
    const { dir, ignoreInGit } = await this.memoryDir(folder);
    return new CheckpointStore({ memoryDir: dir, cwd: folder.uri.fsPath, allowGit: this.trusted, ignoreInGit });
  }

  private onDidChangeConfiguration(e: vscode.ConfigurationChangeEvent): void {
    for (const folder of this.folders()) {
      if (e.affectsConfiguration(`${SECTION}.memoryDirectory`, folder)) void this.reresolveMemoryDir(folder);
      if (e.affectsConfiguration(`${SECTION}.plansDirectory`, folder)) {
        const entry = this.entries.get(folder.uri.toString());
        if (entry) entry.plansDir = undefined;
        this.fire({ kind: 'plansDir', folder });
      }
    }
  }

  /** Drops the cached memory directory and its watcher, resolves it again, then tells listeners. */
  private async reresolveMemoryDir(folder: vscode.WorkspaceFolder): Promise<void> {
    const entry = this.entry(folder);
    entry.generation++;
    entry.memoryDir = undefined;
    entry.resolvedMemoryDir = undefined;
    // The watcher stays until the new directory is known: it is kept when the directory did not change.
    try {
      const { dir, source } = await this.memoryDir(folder);
      this.log.info(`Memory directory of ${folder.name}: ${dir} (from ${source})`);
    } catch (err) {
      this.log.error(`Could not resolve the memory directory of ${folder.name}: ${errorMessage(err)}`);
    }
    this.fire({ kind: 'memoryDir', folder });
  }

  /** Resolves every folder's directories again and re-reads branches (the Refresh command). */
  async refresh(): Promise<void> {
    await Promise.all(
      this.folders().map(async (folder) => {
        const entry = this.entry(folder);
        entry.plansDir = undefined;
        await this.reresolveMemoryDir(folder);
        if (entry.branch !== undefined) await this.refreshBranch(folder);
      }),
    );
  }

  // ---- memory directory watcher ---------------------------------------------------------------

  /**
   * Watches `checkpoint-*.md` in the memory directory (a non-recursive watcher: cheap, and not subject to
   * `files.watcherExclude`). Each event names one file, so listeners re-read only that file.
   */
  private async watchMemoryDir(entry: FolderEntry, dir: string): Promise<void> {
    // Keep a working watcher: a new one takes a moment to go live, and events in that moment are lost.
    if (entry.memoryWatcher?.dir === dir && entry.memoryWatcher.existed) return;
    const existed = await fs.stat(dir).then((s) => s.isDirectory(), () => false);
    if (entry.disposed || entry.resolvedMemoryDir?.dir !== dir) return;
    entry.disposeMemoryWatcher();
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), 'checkpoint-*.md'));
    this.log.debug(`Watching ${dir}${existed ? '' : ' (not created yet)'} for checkpoint files`);
    const emit = (deleted: boolean) => (uri: vscode.Uri) => {
      this.log.trace(`File event: ${uri.fsPath}${deleted ? ' deleted' : ''}`);
      this.onDidChangeFilesEmitter.fire({ folder: entry.folder, path: uri.fsPath, deleted });
    };
    entry.memoryWatcher = {
      dir,
      existed,
      disposables: [watcher, watcher.onDidCreate(emit(false)), watcher.onDidChange(emit(false)), watcher.onDidDelete(emit(true))],
    };
  }

  /**
   * Called after this extension wrote to a folder's memory directory: when the directory did not exist
   * while the watcher was set up, the watcher is set up again now that it does.
   */
  async noteWritten(folder: vscode.WorkspaceFolder): Promise<void> {
    const entry = this.entries.get(folder.uri.toString());
    const watched = entry?.memoryWatcher;
    if (entry && watched && !watched.existed) await this.watchMemoryDir(entry, watched.dir);
  }

  // ---- branch ---------------------------------------------------------------------------------

  /** The cached current branch: undefined until read; '' when unknown. Synchronous. */
  branch(folder: vscode.WorkspaceFolder): string | undefined {
    if (!this.trusted) return '';
    return this.entries.get(folder.uri.toString())?.branch;
  }

  /** The current branch, read once and then kept up to date by a watcher on git's HEAD. '' when unknown. */
  async currentBranch(folder: vscode.WorkspaceFolder): Promise<string> {
    if (!this.trusted) return '';
    const entry = this.entry(folder);
    this.watchHead(entry);
    if (entry.branchRead) return entry.branchRead;
    if (entry.branch !== undefined) return entry.branch;
    return this.startBranchRead(entry);
  }

  /** Reads the branch again now (after a checkout of our own), without waiting for the HEAD watcher. */
  async refreshBranch(folder: vscode.WorkspaceFolder): Promise<string> {
    if (!this.trusted) return '';
    const entry = this.entry(folder);
    this.watchHead(entry);
    if (entry.branchRead) {
      entry.branchStale = true;
      return entry.branchRead;
    }
    return this.startBranchRead(entry);
  }

  private startBranchRead(entry: FolderEntry): Promise<string> {
    const reading = (async () => {
      let branch: string;
      do {
        entry.branchStale = false;
        branch = await readBranch(entry.folder.uri.fsPath);
      } while (entry.branchStale);
      return branch;
    })().then(
      (branch) => {
        entry.branchRead = undefined;
        if (entry.branch !== branch && !entry.disposed) {
          entry.branch = branch;
          this.log.debug(`Branch of ${entry.folder.name}: ${branch || '(none)'}`);
          this.fire({ kind: 'branch', folder: entry.folder });
        }
        return branch;
      },
      (err: unknown) => {
        entry.branchRead = undefined;
        this.log.warn(`Could not read the branch of ${entry.folder.name}: ${errorMessage(err)}`);
        return entry.branch ?? '';
      },
    );
    entry.branchRead = reading;
    return reading;
  }

  /** Watches `<git dir>/HEAD` (a checkout rewrites it), once per folder. No polling. */
  private watchHead(entry: FolderEntry): void {
    entry.headWatcher ??= (async () => {
      const gitDir = await resolveGitDir(entry.folder.uri.fsPath).catch(() => undefined);
      if (!gitDir || entry.disposed) return;
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(gitDir), 'HEAD'));
      const onHead = (): void => {
        if (!this.trusted) return;
        if (entry.branchRead) entry.branchStale = true;
        else void this.startBranchRead(entry);
      };
      entry.headDisposables.push(watcher, watcher.onDidCreate(onHead), watcher.onDidChange(onHead), watcher.onDidDelete(onHead));
      this.log.debug(`Watching ${path.join(gitDir, 'HEAD')} for branch changes of ${entry.folder.name}`);
    })();
  }

  private onDidGrantTrust(): void {
    this.log.info('Workspace trusted: git runs again; re-reading branches and the folders\' Claude Code settings.');
    for (const entry of this.entries.values()) entry.branch = undefined;
    for (const folder of this.folders()) void this.reresolveMemoryDir(folder);
    this.fire({ kind: 'trust' });
  }

  // ---- active checkpoint and undo -------------------------------------------------------------

  /** The checkpoint last saved or resumed in this window (kept once consumed: its `path` is then in the trash). */
  active(folder: vscode.WorkspaceFolder): ActiveCheckpoint | undefined {
    return this.state.get<Record<string, ActiveCheckpoint>>(ACTIVE_KEY, {})[folder.uri.toString()];
  }

  /**
   * Sets (or clears) the checkpoint saved or resumed in this window; persisted in workspaceState. `at` defaults to
   * now. Setting one ends a Dismiss of the status bar item: the user acted on a checkpoint.
   */
  async setActive(folder: vscode.WorkspaceFolder, active: ActiveCheckpoint | undefined): Promise<void> {
    const all = { ...this.state.get<Record<string, ActiveCheckpoint>>(ACTIVE_KEY, {}) };
    if (active) all[folder.uri.toString()] = { ...active, at: active.at ?? new Date().toISOString() };
    else delete all[folder.uri.toString()];
    await this.state.update(ACTIVE_KEY, all);
    if (active) await this.updateDismissed(folder, undefined);
    if (active) this.useFolder(folder);
    this.fire({ kind: 'active', folder });
  }

  /** Until when (ISO) the folder's checkpoints are dismissed from the status bar: those saved up to then stay hidden. */
  dismissedUntil(folder: vscode.WorkspaceFolder): string | undefined {
    return this.state.get<Record<string, string>>(DISMISSED_KEY, {})[folder.uri.toString()];
  }

  /** Hides the folder's checkpoints saved up to `until` from the status bar (undefined: shows them again); persisted. */
  async setDismissed(folder: vscode.WorkspaceFolder, until: string | undefined): Promise<void> {
    if (await this.updateDismissed(folder, until)) this.fire({ kind: 'active', folder });
  }

  /** Writes the dismissal when it changes; true when it did. */
  private async updateDismissed(folder: vscode.WorkspaceFolder, until: string | undefined): Promise<boolean> {
    const key = folder.uri.toString();
    const all = { ...this.state.get<Record<string, string>>(DISMISSED_KEY, {}) };
    if (all[key] === until) return false;
    if (until) all[key] = until;
    else delete all[key];
    await this.state.update(DISMISSED_KEY, all);
    return true;
  }

  get lastUndo(): UndoEntry | undefined {
    return this.undoEntry;
  }

  setUndo(entry: UndoEntry | undefined): void {
    this.undoEntry = entry;
    this.contextKeys.set(ContextKey.canUndo, entry !== undefined);
    this.fire({ kind: 'undo' });
  }

  // ---- folders --------------------------------------------------------------------------------

  private entry(folder: vscode.WorkspaceFolder): FolderEntry {
    const key = folder.uri.toString();
    let entry = this.entries.get(key);
    if (!entry) {
      entry = new FolderEntry(folder);
      this.entries.set(key, entry);
    }
    return entry;
  }

  private onDidChangeFolders(e: vscode.WorkspaceFoldersChangeEvent): void {
    for (const folder of e.removed) {
      const key = folder.uri.toString();
      this.entries.get(key)?.dispose();
      this.entries.delete(key);
    }
    this.updateMemoryDirSource();
    this.fire({ kind: 'folders' });
  }

  private onDidChangeEditor(editor: vscode.TextEditor | undefined): void {
    const folder = editor ? vscode.workspace.getWorkspaceFolder(editor.document.uri) : undefined;
    if (folder) this.useFolder(folder);
  }

  private fire(change: ModelChange): void {
    this.onDidChangeEmitter.fire(change);
  }

  dispose(): void {
    for (const entry of this.entries.values()) entry.dispose();
    this.entries.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
