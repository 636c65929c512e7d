import vscode = require('vscode');
import { CommandId } from './commandIds';
import { ContextKey, type ContextKeys } from './contextKeys';
import { branchDiffers } from '../core/git';
import { branchSentence } from '../core/wording';
import { inlineCode } from './markdown';
import { statusBarEnabled } from './settings';
import type { WorkspaceModel } from './workspaceModel';

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
 * The status bar item of the current folder's active checkpoint (`FolderCheckpoints.activePick`, the core's
 * `pickActive`): `$(bookmark) name`, with a warning background when the branch differs. One state object, derived
 * from the model on each of its events; the setter re-renders and fires `onDidChangeState` only when it changed.
 */
export class CheckpointStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeStateEmitter = new vscode.EventEmitter<StatusBarState>();
  private current: StatusBarState = HIDDEN;
  private started = false;

  readonly onDidChangeState = this.onDidChangeStateEmitter.event;

  constructor(
    private readonly model: WorkspaceModel,
    private readonly contextKeys: ContextKeys,
  ) {
    this.item = vscode.window.createStatusBarItem('checkpoint.active', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'Checkpoint';
    this.item.command = CommandId.statusBarActions;
    this.disposables.push(
      this.item,
      this.onDidChangeStateEmitter,
      model.onDidChange(() => this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('checkpoint.statusBar.enabled')) this.update();
      }),
      vscode.window.onDidChangeActiveTextEditor(() => this.update()),
    );
  }

  get state(): StatusBarState {
    return this.current;
  }

  /** Starts rendering (deferred from activation: reading the branch runs git, the listing reads files). */
  start(): void {
    this.started = true;
    this.update();
  }

  /**
   * Renders the model (synchronous): a listing or a branch not read yet is asked for, and arrives as a model event.
   */
  update(): void {
    if (!this.started) return;
    const current = this.model.currentFolder();
    if (!current || !statusBarEnabled()) {
      this.setState(HIDDEN);
      return;
    }
    const folder = this.model.folder(current);
    if (!folder.index.cachedFiles()) void folder.index.list().then(() => this.update(), () => undefined); // the view logs it
    const { active, dismissed } = folder.activePick();
    if (!active || dismissed) {
      this.setState(HIDDEN);
      return;
    }
    const currentBranch = folder.branch();
    if (currentBranch === undefined) void folder.currentBranch();
    this.setState({
      visible: true,
      folder: current.name,
      name: active.name,
      saved: active.saved,
      savedBranch: active.branch,
      currentBranch,
      branchMismatch: currentBranch !== undefined && branchDiffers(active.branch, currentBranch),
      restricted: !this.model.trusted,
    });
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
    this.item.text = s.branchMismatch ? `$(bookmark) ${s.name} $(warning) saved on ${saved}, you're on ${s.currentBranch}` : `$(bookmark) ${s.name}`;
    this.item.backgroundColor = s.branchMismatch ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const md = new vscode.MarkdownString('', true);
    md.appendMarkdown(`**Checkpoint** ${inlineCode(s.name)}${s.folder && this.model.folders().length > 1 ? ` in ${inlineCode(s.folder)}` : ''}\n\n`);
    md.appendMarkdown(branchSentence(saved, { currentBranch: s.currentBranch, restricted: s.restricted }, inlineCode));
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
