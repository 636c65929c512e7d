/**
 * The watcher on a folder's memory directory: `checkpoint-*.md` in it, each event naming one file, set up again once
 * a directory that did not exist yet does.
 */
import * as vscode from 'vscode';
import { isFolder } from '../core/files';

export class MemoryDirWatcher implements vscode.Disposable {
  private watched?: { dir: string; existed: boolean; disposables: vscode.Disposable[] };

  /**
   * `onFile`: a checkpoint file was created, changed or deleted. `wanted`: whether `dir` is still the one to watch
   * once it has been looked at (it may have been resolved again meanwhile, or the folder closed).
   */
  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly onFile: (file: string, deleted: boolean) => void,
    private readonly wanted: (dir: string) => boolean,
  ) {}

  /**
   * Watches `checkpoint-*.md` in `dir` (non-recursive: cheap, and not subject to `files.watcherExclude`). Each event
   * names one file, so only that file is read again.
   */
  async watch(dir: string): Promise<void> {
    // Keep a working watcher: a new one takes a moment to go live, and events in that moment are lost.
    if (this.watched?.dir === dir && this.watched.existed) return;
    const existed = await isFolder(dir);
    if (!this.wanted(dir)) return;
    this.dispose();
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), 'checkpoint-*.md'));
    this.log.debug(`Watching ${dir}${existed ? '' : ' (not created yet)'} for checkpoint files`);
    const emit = (deleted: boolean) => (uri: vscode.Uri) => {
      this.log.trace(`File event: ${uri.fsPath}${deleted ? ' deleted' : ''}`);
      this.onFile(uri.fsPath, deleted);
    };
    this.watched = {
      dir,
      existed,
      disposables: [watcher, watcher.onDidCreate(emit(false)), watcher.onDidChange(emit(false)), watcher.onDidDelete(emit(true))],
    };
  }

  /** After a write: a watcher set up while the directory did not exist is set up again now that it does. */
  async written(): Promise<void> {
    const watched = this.watched;
    if (watched && !watched.existed) await this.watch(watched.dir);
  }

  dispose(): void {
    for (const d of this.watched?.disposables ?? []) d.dispose();
    this.watched = undefined;
  }
}
