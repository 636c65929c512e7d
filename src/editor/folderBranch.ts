/**
 * A workspace folder's current branch: read once, then read again whenever git rewrites HEAD (a watcher on it, no
 * polling); '' when unknown (no repository, or Restricted Mode, where git never runs).
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../core/errors';
import { readBranch } from '../core/git';
import { resolveGitDir } from '../core/gitDir';
import type { FolderHost } from './folderHost';

export class FolderBranch implements vscode.Disposable {
  private headWatcher?: Promise<void>;
  private readonly headDisposables: vscode.Disposable[] = [];
  /** Current branch; undefined until read ('' when unknown: no repository, or Restricted Mode). */
  private branchValue?: string;
  private branchRead?: Promise<string>;
  /** HEAD changed while a read was running: read again when it ends. */
  private branchStale = false;
  private disposed = false;

  constructor(
    private readonly folder: vscode.WorkspaceFolder,
    private readonly host: Pick<FolderHost, 'log' | 'trusted' | 'fire'>,
  ) {}

  /** Whether the branch was read (it is then read again on a Refresh). */
  get known(): boolean {
    return this.branchValue !== undefined;
  }

  /** The current branch as last read: undefined until read; '' when unknown. Synchronous. */
  now(): string | undefined {
    return this.host.trusted ? this.branchValue : '';
  }

  /** The current branch, read once and then kept up to date by a watcher on git's HEAD. '' when unknown. */
  async current(): Promise<string> {
    if (!this.host.trusted) return '';
    this.watchHead();
    if (this.branchRead) return this.branchRead;
    if (this.branchValue !== undefined) return this.branchValue;
    return this.startBranchRead();
  }

  /** Reads the branch again now (after a checkout of our own), without waiting for the HEAD watcher. */
  async refresh(): Promise<string> {
    if (!this.host.trusted) return '';
    this.watchHead();
    if (this.branchRead) {
      this.branchStale = true;
      return this.branchRead;
    }
    return this.startBranchRead();
  }

  /** Workspace trust was granted: the branch is read again on the next look. */
  trustGranted(): void {
    this.branchValue = undefined;
  }

  private startBranchRead(): Promise<string> {
    const reading = (async () => {
      let branch: string;
      do {
        this.branchStale = false;
        branch = await readBranch(this.folder.uri.fsPath);
      } while (this.branchStale);
      return branch;
    })().then(
      (branch) => {
        this.branchRead = undefined;
        if (this.branchValue !== branch && !this.disposed) {
          this.branchValue = branch;
          this.host.log.debug(`Branch of ${this.folder.name}: ${branch || '(none)'}`);
          this.host.fire({ kind: 'branch', folder: this.folder });
        }
        return branch;
      },
      (err: unknown) => {
        this.branchRead = undefined;
        this.host.log.warn(`Could not read the branch of ${this.folder.name}: ${errorMessage(err)}`);
        return this.branchValue ?? '';
      },
    );
    this.branchRead = reading;
    return reading;
  }

  /** Watches `<git dir>/HEAD` (a checkout rewrites it), once. No polling. */
  private watchHead(): void {
    this.headWatcher ??= (async () => {
      const gitDir = await resolveGitDir(this.folder.uri.fsPath).catch(() => undefined);
      if (!gitDir || this.disposed) return;
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(gitDir), 'HEAD'));
      const onHead = (): void => {
        if (!this.host.trusted) return;
        if (this.branchRead) this.branchStale = true;
        else void this.startBranchRead();
      };
      this.headDisposables.push(watcher, watcher.onDidCreate(onHead), watcher.onDidChange(onHead), watcher.onDidDelete(onHead));
      this.host.log.debug(`Watching ${join(gitDir, 'HEAD')} for branch changes of ${this.folder.name}`);
    })();
  }

  dispose(): void {
    this.disposed = true;
    for (const d of this.headDisposables.splice(0)) d.dispose();
  }
}
