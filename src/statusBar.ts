import * as vscode from 'vscode';
import { ContextKey, type ContextKeys } from './contextKeys';
import { branchDiffers } from './core/git';
import type { CheckpointSummary } from './core/store';
import { inlineCode } from './markdown';
import type { ActiveCheckpoint, WorkspaceModel } from './workspaceModel';

/**
 * The checkpoint files of a folder as the Checkpoints view already reads them (its one scan, then one re-read per
 * watcher event): the status bar takes the newest from there instead of listing the directory itself.
 */
export interface CheckpointListing {
  /** The folder's checkpoint files as last read, without I/O; undefined until the folder is listed. */
  cachedFiles(folder: vscode.WorkspaceFolder): Iterable<CheckpointSummary> | undefined;
  /** Lists the folder (once: later calls share the scan and its result). */
  summaries(folder: vscode.WorkspaceFolder): Promise<unknown>;
  /** Fires after any change of what `cachedFiles` returns (except the end of a scan: `summaries` resolves then). */
  readonly onDidChangeTreeData: vscode.Event<unknown>;
}

/** Milliseconds of an ISO time; -Infinity when it is not a date (never newer than anything). */
function timeOf(iso: string | undefined): number {
  const t = iso === undefined ? NaN : Date.parse(iso);
  return Number.isNaN(t) ? -Infinity : t;
}

/** When a checkpoint became the active one: saved or resumed in this window, else its `saved` time. */
function activeSince(a: ActiveCheckpoint): number {
  return timeOf(a.at ?? a.saved);
}

/** Everything the status bar item shows, derived from the model. */
export interface StatusBarState {
  readonly visible: boolean;
  /** The folder whose active checkpoint is shown. */
  readonly folder?: string;
  readonly name?: string;
  /** When the checkpoint was saved (ISO). */
  readonly saved?: string;
  /** The branch the checkpoint was saved on ('' outside a repository). */
  readonly savedBranch?: string;
  /** The folder's current branch: undefined while not read yet, '' when unknown. */
  readonly currentBranch?: string;
  readonly branchMismatch: boolean;
  /** Restricted Mode: git does not run, the current branch is unknown. */
  readonly restricted: boolean;
}

const HIDDEN: StatusBarState = { visible: false, branchMismatch: false, restricted: false };

function sameState(a: StatusBarState, b: StatusBarState): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof StatusBarState>;
  return [...keys].every((k) => a[k] === b[k]);
}

/**
 * The status bar item of the current folder's active checkpoint: `$(bookmark) name`, with a warning
 * background when the branch differs. The active checkpoint is the one last saved or resumed in this window
 * while it is still the newest, else the newest readable file of the folder's memory directory — so a
 * checkpoint saved by the CLI (an agent, a hook), before this window opened or while it is open, shows too.
 * One state object; `update()` derives it from the model and the view's listing, and the setter re-renders and
 * fires `onDidChangeState` only when it changed.
 */
export class CheckpointStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeStateEmitter = new vscode.EventEmitter<StatusBarState>();
  private current: StatusBarState = HIDDEN;
  private started = false;
  /** Folders whose listing was asked for by `update()` and has not arrived yet. */
  private readonly listing = new Set<string>();

  readonly onDidChangeState = this.onDidChangeStateEmitter.event;

  constructor(
    private readonly model: WorkspaceModel,
    private readonly contextKeys: ContextKeys,
    private readonly files: CheckpointListing,
  ) {
    this.item = vscode.window.createStatusBarItem('checkpoint.active', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'Checkpoint';
    this.item.command = 'checkpoint.statusBarActions';
    this.disposables.push(
      this.item,
      this.onDidChangeStateEmitter,
      model.onDidChange(() => this.update()),
      files.onDidChangeTreeData(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('checkpoint.statusBar.enabled')) this.update();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
    );
  }

  get state(): StatusBarState {
    return this.current;
  }

  /**
   * The folder's active checkpoint, Dismiss aside (synchronous, no I/O): the one last saved or resumed in this
   * window while its file is still there and no file was saved after it became active; otherwise the newest
   * readable checkpoint file (by its `saved` time); undefined when there is none. Until the folder is listed,
   * the one of this window.
   */
  activeCheckpoint(folder: vscode.WorkspaceFolder): ActiveCheckpoint | undefined {
    const own = this.model.active(folder);
    const files = this.files.cachedFiles(folder);
    if (!files) return own;
    let newest: CheckpointSummary | undefined;
    let ownFile: CheckpointSummary | undefined;
    for (const f of files) {
      if (f.unreadable || f.source !== 'markdown') continue;
      if (own && f.path === own.path) ownFile = f;
      // Newest first as in the view: by `saved`, then by name.
      const d = newest ? timeOf(f.saved) - timeOf(newest.saved) : 1;
      if (d > 0 || (d === 0 && newest && f.name < newest.name)) newest = f;
    }
    if (own && ownFile && !(newest && timeOf(newest.saved) > activeSince(own))) {
      return { name: ownFile.name, branch: ownFile.branch, saved: ownFile.saved, path: ownFile.path, at: own.at ?? own.saved };
    }
    return newest && { name: newest.name, branch: newest.branch, saved: newest.saved, path: newest.path, at: newest.saved };
  }

  /**
   * Dismiss: hides the folder's active checkpoint until a newer one is saved (or one is saved or resumed in this
   * window). Persisted per folder.
   */
  async dismiss(folder: vscode.WorkspaceFolder): Promise<void> {
    const active = this.activeCheckpoint(folder);
    // A `saved` time ahead of the clock still counts as dismissed.
    const until = Math.max(Date.now(), active ? activeSince(active) : -Infinity);
    await this.model.setDismissed(folder, new Date(until).toISOString());
  }

  /** Starts rendering (deferred from activation: reading the branch runs git, the listing reads files). */
  start(): void {
    this.started = true;
    this.update();
  }

  /** Derives the state from the model. Synchronous: a branch not read yet is requested and arrives as a model event. */
  update(): void {
    if (!this.started) return;
    const folder = this.model.currentFolder();
    if (!folder || !this.model.statusBarEnabled()) {
      this.setState(HIDDEN);
      return;
    }
    if (!this.files.cachedFiles(folder)) this.requestListing(folder);
    const active = this.activeCheckpoint(folder);
    const dismissed = this.model.dismissedUntil(folder);
    if (active && dismissed !== undefined && activeSince(active) > timeOf(dismissed)) {
      void this.model.setDismissed(folder, undefined); // a newer one: the Dismiss is over
    } else if (dismissed !== undefined) {
      this.setState(HIDDEN);
      return;
    }
    if (!active) {
      this.setState(HIDDEN);
      return;
    }
    const restricted = !this.model.trusted;
    const currentBranch = this.model.branch(folder);
    if (currentBranch === undefined) void this.model.currentBranch(folder);
    this.setState({
      visible: true,
      folder: folder.name,
      name: active.name,
      saved: active.saved,
      savedBranch: active.branch,
      currentBranch,
      branchMismatch: currentBranch !== undefined && branchDiffers(active.branch, currentBranch),
      restricted,
    });
  }

  /**
   * Asks the view's provider for the folder's listing (its own scan, shared with the view; nothing is read twice)
   * and updates when it arrives. A failed listing is not retried here: the next update asks again.
   */
  private requestListing(folder: vscode.WorkspaceFolder): void {
    const key = folder.uri.toString();
    if (this.listing.has(key)) return;
    this.listing.add(key);
    this.files.summaries(folder).then(
      () => {
        this.listing.delete(key);
        this.update();
      },
      () => this.listing.delete(key), // the view shows and logs the error
    );
  }

  private setState(state: StatusBarState): void {
    if (sameState(state, this.current)) return;
    this.current = state;
    this.render();
    this.contextKeys.set(ContextKey.hasActive, state.visible);
    this.contextKeys.set(ContextKey.branchMismatch, state.branchMismatch);
    this.onDidChangeStateEmitter.fire(state);
  }

  private render(): void {
    const s = this.current;
    if (!s.visible || !s.name) {
      this.item.hide();
      return;
    }
    const saved = s.savedBranch ?? '';
    this.item.text = s.branchMismatch ? `$(bookmark) ${s.name} $(warning) saved on ${saved}` : `$(bookmark) ${s.name}`;
    this.item.backgroundColor = s.branchMismatch ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const md = new vscode.MarkdownString('', true);
    md.appendMarkdown(`**Checkpoint** ${inlineCode(s.name)}${s.folder && this.model.folders().length > 1 ? ` in ${inlineCode(s.folder)}` : ''}\n\n`);
    if (s.branchMismatch) md.appendMarkdown(`Saved on ${inlineCode(saved)}; you are on ${inlineCode(s.currentBranch ?? '')}.`);
    else if (s.restricted) md.appendMarkdown(`${saved ? `Saved on ${inlineCode(saved)}; the` : 'The'} current branch is unknown: git does not run in Restricted Mode.`);
    else if (!saved) md.appendMarkdown('Saved without a branch (outside a git repository, or in Restricted Mode).');
    else md.appendMarkdown(`Saved on ${inlineCode(saved)}.`);
    md.appendMarkdown(`\n\nClick to ${s.branchMismatch ? 'switch branch, ' : ''}resume or dismiss.`);
    this.item.tooltip = md;
    this.item.accessibilityInformation = {
      label: `Checkpoint ${s.name}${s.branchMismatch ? `, saved on branch ${saved}, you are on ${s.currentBranch}` : ''}`,
      role: 'button',
    };
    this.item.show();
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
