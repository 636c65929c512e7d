import { isAbsolute, resolve } from 'node:path';
import vscode = require('vscode');
import { CheckpointState } from './checkpointState';
import { ContextKey, type ContextKeys } from './contextKeys';
import type { IndexReadStats } from '../core/checkpointIndex';
import { CheckpointError } from '../core/errors';
import type { MemoryDirSource, ResolvedMemoryDir } from '../core/memoryDir';
import { printable } from '../core/names';
import { claudeMemoryKind, type ClaudeMemoryKind } from '../core/memoryDir';
import { autoMemoryOffNotice } from '../core/wording';
import { FolderCheckpoints } from './folderCheckpoints';
import type { FileChange, FolderHost, ModelChange, UndoEntry } from './folderHost';
import { affects } from './settings';

/**
 * The registry of the workspace's folders (one {@link FolderCheckpoints} each, made on first use), the folder being
 * worked in, workspace trust, the last Undo-able action, and the events every part of the extension subscribes to.
 * The git extension's `model.ts` is the pattern: `folder(f)` is its `getRepository`.
 */
export class WorkspaceModel implements vscode.Disposable {
  private readonly entries = new Map<string, FolderCheckpoints>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeEmitter = new vscode.EventEmitter<ModelChange>();
  private readonly onDidChangeFilesEmitter = new vscode.EventEmitter<FileChange>();
  private currentFolderKey: string | undefined;
  private undoEntry: UndoEntry | undefined;
  private readonly host: FolderHost;
  /** Files the folders' indexes read (a diagnostic for tests and the performance budget). */
  readonly stats: IndexReadStats = { filesRead: 0, scans: 0 };

  /** Settings, branch, listing, active checkpoint, Undo, trust or folders changed; a write ended. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  /** A checkpoint file changed on disk (from a memory-directory watcher). */
  readonly onDidChangeFiles = this.onDidChangeFilesEmitter.event;

  constructor(
    memento: vscode.Memento,
    readonly log: vscode.LogOutputChannel,
    private readonly contextKeys: ContextKeys,
  ) {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the host's getters read the model's live values
    const model = this;
    this.host = {
      log,
      state: new CheckpointState(memento),
      stats: this.stats,
      get trusted() {
        return model.trusted;
      },
      get lastUndo() {
        return model.undoEntry;
      },
      fire: (change) => this.onDidChangeEmitter.fire(change),
      fireFile: (change) => this.onDidChangeFilesEmitter.fire(change),
      setUndo: (entry) => this.updateUndo(entry),
      useFolder: (folder) => this.useFolder(folder),
      memoryDirResolved: (resolved) => {
        this.tellAutoMemoryOff(resolved);
        this.updateMemoryDirSource();
      },
    };
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

  /** The folder's checkpoints (made on first use). */
  folder(folder: vscode.WorkspaceFolder): FolderCheckpoints {
    const key = folder.uri.toString();
    let entry = this.entries.get(key);
    if (!entry) {
      entry = new FolderCheckpoints(folder, this.host);
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** A workspace folder by path, name or URI string (the `folder` option of commands). */
  folderByArg(value: string): vscode.WorkspaceFolder | undefined {
    const folders = this.folders();
    const resolved = isAbsolute(value) ? resolve(value) : undefined;
    return (
      folders.find((f) => resolved !== undefined && resolve(f.uri.fsPath) === resolved) ??
      folders.find((f) => f.uri.toString() === value) ??
      folders.find((f) => f.name === value)
    );
  }

  /** The folder a command acts on: the one its `folder` option names, else the current folder. */
  folderFromOption(value: string | undefined): vscode.WorkspaceFolder {
    if (value !== undefined) {
      const found = this.folderByArg(value);
      if (!found) throw new CheckpointError(`"${printable(value)}" is not a folder of this workspace.`);
      return found;
    }
    const current = this.currentFolder();
    if (!current) throw new CheckpointError('Open a folder to use checkpoints.');
    return current;
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
    this.onDidChangeEmitter.fire({ kind: 'currentFolder', folder });
  }

  /**
   * Where the workspace's checkpoints are stored (the welcome view names it): the memory directory's source when
   * every folder's is resolved and they agree, 'mixed' when folders differ, undefined while one is not resolved yet.
   */
  memoryDirSource(): MemoryDirSource | 'mixed' | undefined {
    return this.common((resolved) => resolved.source) || undefined;
  }

  /** Which of Claude Code's folders the workspace's checkpoints are in ('' when none is Claude's), as {@link memoryDirSource}. */
  claudeMemory(): ClaudeMemoryKind | '' | 'mixed' | undefined {
    return this.common((resolved, folder) => claudeMemoryKind(resolved, folder.uri.fsPath), true);
  }

  /**
   * What every folder's resolved memory directory says: the one value when they agree, 'mixed' when they differ,
   * undefined while a folder is not resolved yet. `skipUndefined`: folders that say nothing do not count ('' if none does).
   */
  private common<T extends string>(
    of: (resolved: ResolvedMemoryDir, folder: vscode.WorkspaceFolder) => T | undefined,
    skipUndefined = false,
  ): T | '' | 'mixed' | undefined {
    const values = new Set<T>();
    for (const folder of this.folders()) {
      const resolved = this.entries.get(folder.uri.toString())?.memoryDirNow();
      if (!resolved) return undefined;
      const value = of(resolved, folder);
      if (value !== undefined) values.add(value);
      else if (!skipUndefined) return undefined;
    }
    if (values.size > 1) return 'mixed';
    return values.values().next().value ?? '';
  }

  /** Tells the user, once per memory folder, that Claude Code will not load it (its auto memory is off). */
  private tellAutoMemoryOff(resolved: ResolvedMemoryDir): void {
    const notice = autoMemoryOffNotice(resolved);
    if (!notice || !this.host.state.firstAutoMemoryOffNotice(resolved.dir)) return;
    this.log.warn(notice);
    void vscode.window.showInformationMessage(notice);
  }

  /** Sets the `checkpoint.memoryDirSource` context key (unchanged while a folder is being resolved again). */
  private updateMemoryDirSource(): void {
    const source = this.memoryDirSource();
    if (source) this.contextKeys.set(ContextKey.memoryDirSource, source);
    const claude = this.claudeMemory();
    if (claude !== undefined) this.contextKeys.set(ContextKey.claudeMemory, claude);
  }

  /** Resolves every folder's directories again, re-reads branches and lists again (the Refresh command). */
  async refresh(): Promise<void> {
    await Promise.all(this.folders().map((f) => this.folder(f).refresh()));
  }

  // ---- Undo -------------------------------------------------------------------------------------------

  get lastUndo(): UndoEntry | undefined {
    return this.undoEntry;
  }

  private updateUndo(entry: UndoEntry | undefined): void {
    this.undoEntry = entry;
    this.contextKeys.set(ContextKey.canUndo, entry !== undefined);
  }

  // ---- events -----------------------------------------------------------------------------------------

  private onDidChangeConfiguration(e: vscode.ConfigurationChangeEvent): void {
    for (const folder of this.folders()) {
      if (affects(e, 'memoryDirectory', folder)) void this.folder(folder).reresolveMemoryDir();
      if (affects(e, 'plansDirectory', folder)) this.folder(folder).plansDirChanged();
    }
  }

  private onDidGrantTrust(): void {
    this.log.info('Workspace trusted: git runs again; re-reading branches and the folders\' Claude Code settings.');
    for (const entry of this.entries.values()) entry.trustGranted();
    for (const folder of this.folders()) void this.folder(folder).reresolveMemoryDir();
    this.onDidChangeEmitter.fire({ kind: 'trust' });
  }

  private onDidChangeFolders(e: vscode.WorkspaceFoldersChangeEvent): void {
    for (const folder of e.removed) {
      const key = folder.uri.toString();
      this.entries.get(key)?.dispose();
      this.entries.delete(key);
    }
    this.updateMemoryDirSource();
    this.onDidChangeEmitter.fire({ kind: 'folders' });
  }

  private onDidChangeEditor(editor: vscode.TextEditor | undefined): void {
    const folder = editor ? vscode.workspace.getWorkspaceFolder(editor.document.uri) : undefined;
    if (folder) this.useFolder(folder);
  }

  dispose(): void {
    for (const entry of this.entries.values()) entry.dispose();
    this.entries.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
