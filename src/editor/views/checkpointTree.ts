import { isAbsolute } from 'node:path';
import vscode = require('vscode');
import { CommandId } from '../commandIds';
import type { CheckpointNode, FolderNode, ItemNode, PlanNode } from './nodes';
import { formatRelative } from '../../core/dates';
import { errorMessage } from '../../core/errors';
import type { CheckpointSummary } from '../../core/store';
import { branchDiffers } from '../../core/git';
import { branchAndTime, formatStep, frontMatterNote, unreadableReason } from '../../core/wording';
import { planName, readPlanProgress } from '../../core/plans';
import { afterResume } from '../settings';
import { tildify } from '../markdown';
import type { ModelChange } from '../folderHost';
import type { WorkspaceModel } from '../workspaceModel';
import { checkpointTooltip } from './checkpointTooltip';

/** "1 checkpoint", "3 checkpoints". */
export function countCheckpoints(n: number): string {
  return `${n} checkpoint${n === 1 ? '' : 's'}`;
}

/** A relative time as said aloud: "2 h ago" → "2 hours ago", "1 min ago" → "1 minute ago". */
export function spokenRelative(text: string): string {
  return text.replace(/^(\d+) (h|min) ago$/, (_m, n: string, unit: string) => `${n} ${unit === 'h' ? 'hour' : 'minute'}${n === '1' ? '' : 's'} ago`);
}

/**
 * What a screen reader says for a checkpoint item (its label, as VS Code reads a string tooltip or the
 * label and description otherwise): name, branch, when, and the warning the icon shows.
 */
export function checkpointAccessibilityLabel(node: ItemNode): string {
  const s = node.summary;
  if (s.unreadable) return `${s.name}, unreadable checkpoint file: ${s.unreadable}`;
  const parts = [s.name, s.branch ? `saved on branch ${s.branch}` : 'saved without a branch', spokenRelative(formatRelative(s.saved))];
  if (node.branchMismatch) parts.push(`warning: you are on another branch${node.currentBranch ? ` (${node.currentBranch})` : ''}`);
  else if (node.restricted && s.branch) parts.push('branch not checked in Restricted Mode');
  if (s.source === 'json') parts.push('history checkpoint, kept when resumed');
  if (s.frontMatterSkipped) parts.push(frontMatterNote(s.frontMatterSkipped));
  return parts.join(', ');
}

/**
 * The Checkpoints view. Per folder: plan nodes holding plan-scoped checkpoints, then the named ones, newest first; a
 * node per folder in a multi-root workspace. It renders the model's listings (one per folder, see
 * `FolderCheckpoints.index`) and redraws on the model's events; it holds no data of its own. `getChildren` never
 * throws and never shows UI: failures become message nodes, unreadable files become items.
 */
export class CheckpointTreeProvider implements vscode.TreeDataProvider<CheckpointNode>, vscode.Disposable {
  private readonly folderNodes = new Map<string, FolderNode>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeTreeDataEmitter = new vscode.EventEmitter<CheckpointNode | undefined>();
  readonly onDidChangeTreeData = this.onDidChangeTreeDataEmitter.event;

  constructor(
    private readonly model: WorkspaceModel,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(this.onDidChangeTreeDataEmitter, model.onDidChange((e) => this.onModelChange(e)));
  }

  /** Shows a note at the top of the view in Restricted Mode, kept up to date. */
  bindView(view: vscode.TreeView<CheckpointNode>): void {
    const update = (): void => {
      const message = this.model.trusted ? undefined : 'Restricted Mode: git does not run, so branches are neither recorded nor compared.';
      // Each assignment is a message to the window (about a millisecond at activation): only a change is sent. VS Code
      // starts a view's message as ''.
      if ((view.message || undefined) !== message) view.message = message;
    };
    update();
    this.disposables.push(this.model.onDidChange((e) => e.kind === 'trust' && update()));
  }

  // ---- TreeDataProvider -------------------------------------------------------------------------

  async getChildren(node?: CheckpointNode): Promise<CheckpointNode[]> {
    try {
      if (!node) return await this.roots();
      if (node.kind === 'folder') return await this.folderChildren(node.folder, true);
      if (node.kind === 'plan') return node.children;
      return [];
    } catch (err) {
      this.log.error(`Listing checkpoints failed: ${errorMessage(err)}`);
      return [{ kind: 'message', folder: node?.folder, message: `Could not list checkpoints: ${errorMessage(err)}`, isError: true }];
    }
  }

  getTreeItem(node: CheckpointNode): vscode.TreeItem {
    switch (node.kind) {
      case 'folder':
        return this.folderItem(node);
      case 'plan':
        return this.planItem(node);
      case 'checkpoint':
        return this.checkpointItem(node);
      case 'message': {
        const item = new vscode.TreeItem(node.message, vscode.TreeItemCollapsibleState.None);
        item.id = `${node.folder?.uri.toString() ?? ''}#message`;
        item.iconPath = new vscode.ThemeIcon(node.isError ? 'error' : 'info');
        item.contextValue = 'checkpoint:message';
        if (!node.isError && node.folder) {
          item.command = { command: CommandId.save, title: 'Save a Checkpoint', arguments: [{ kind: 'folder', folder: node.folder }] };
        }
        return item;
      }
    }
  }

  getParent(node: CheckpointNode): CheckpointNode | undefined {
    if (node.kind === 'folder' || !node.folder || this.model.folders().length < 2) return undefined;
    return this.folderNode(node.folder);
  }

  /** One node object per folder, so that `getParent` returns the node the view knows. */
  private folderNode(folder: vscode.WorkspaceFolder): FolderNode {
    const key = folder.uri.toString();
    let node = this.folderNodes.get(key);
    if (!node) {
      node = { kind: 'folder', folder };
      this.folderNodes.set(key, node);
    }
    return node;
  }

  private async roots(): Promise<CheckpointNode[]> {
    const folders = this.model.folders();
    if (folders.length === 0) return [];
    if (folders.length === 1) return this.folderChildren(folders[0], false);
    // Multi-root: a node per folder, unless no folder has any checkpoint (then the welcome view shows).
    const counts = await Promise.all(folders.map((f) => this.model.folder(f).index.list().then((s) => s.length, () => 1)));
    if (counts.every((n) => n === 0)) return [];
    return folders.map((f) => this.folderNode(f));
  }

  private async folderChildren(folder: vscode.WorkspaceFolder, underFolderNode: boolean): Promise<CheckpointNode[]> {
    let all: CheckpointSummary[];
    try {
      all = await this.model.folder(folder).index.list();
    } catch (err) {
      this.log.error(`Could not list the checkpoints of ${folder.name}: ${errorMessage(err)}`);
      return [{ kind: 'message', folder, message: `Could not list checkpoints: ${errorMessage(err)}`, isError: true }];
    }
    if (all.length === 0) {
      return underFolderNode ? [{ kind: 'message', folder, message: 'No checkpoints yet — save one', isError: false }] : [];
    }
    const restricted = !this.model.trusted;
    const currentBranch = await this.model.folder(folder).currentBranch();
    const item = (summary: CheckpointSummary): ItemNode => ({
      kind: 'checkpoint',
      folder,
      summary,
      currentBranch,
      restricted,
      branchMismatch: !summary.unreadable && branchDiffers(summary.branch, currentBranch),
    });
    // `all` is newest first, so plans come out ordered by their newest checkpoint.
    const byPlan = new Map<string, CheckpointSummary[]>();
    const named: CheckpointSummary[] = [];
    for (const s of all) {
      if (s.plan) byPlan.set(s.plan, [...(byPlan.get(s.plan) ?? []), s]);
      else named.push(s);
    }
    const plans = await Promise.all(
      [...byPlan].map(async ([plan, items]): Promise<PlanNode> => {
        // The plan file's progress now; else what its newest checkpoint recorded.
        const live = isAbsolute(plan) ? await readPlanProgress(plan) : undefined;
        const recorded = items.find((s) => s.planStep !== undefined && s.planSteps !== undefined);
        const step = live ?? (recorded ? { step: recorded.planStep!, steps: recorded.planSteps! } : undefined);
        const stepText = step ? formatStep(step.step, step.steps) : undefined;
        const label = stepText ? `${planName(plan)} · ${stepText}` : planName(plan);
        return { kind: 'plan', folder, plan, label, step: stepText, children: items.map(item) };
      }),
    );
    return [...plans, ...named.map(item)];
  }

  // ---- tree items -----------------------------------------------------------------------------

  private folderItem(node: FolderNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.folder.name, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `folder:${node.folder.uri.toString()}`;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = 'checkpoint:folder';
    const folder = this.model.folder(node.folder);
    const dir = folder.memoryDirNow()?.dir;
    item.tooltip = dir ? `Checkpoints of ${node.folder.name} are stored in ${dir}` : node.folder.uri.fsPath;
    // Without it a screen reader reads the (string) tooltip: a path instead of the folder.
    const listed = folder.index.cachedCount();
    const count = listed === undefined ? undefined : countCheckpoints(listed);
    item.accessibilityInformation = { label: [node.folder.name, 'workspace folder', count].filter(Boolean).join(', ') };
    return item;
  }

  private planItem(node: PlanNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `${node.folder.uri.toString()}#plan:${node.plan}`;
    item.iconPath = new vscode.ThemeIcon('checklist');
    item.contextValue = 'checkpoint:plan';
    const count = countCheckpoints(node.children.length);
    item.description = count;
    const where = isAbsolute(node.plan) ? tildify(node.plan) : node.plan;
    item.tooltip = node.step ? `Plan ${where} (${node.step})` : `Plan ${where}`;
    // Without it a screen reader reads the (string) tooltip, "Plan <path>", not the step and the count.
    item.accessibilityInformation = { label: [`Plan ${planName(node.plan)}`, node.step, count].filter(Boolean).join(', ') };
    return item;
  }

  private checkpointItem(node: ItemNode): vscode.TreeItem {
    const s = node.summary;
    const item = new vscode.TreeItem(s.name, vscode.TreeItemCollapsibleState.None);
    // Stable identity: folder + name (JSON history checkpoints by path, as their names come from file names).
    item.id = `${node.folder.uri.toString()}#${s.source === 'json' ? `json:${s.path}` : s.name}`;
    item.tooltip = checkpointTooltip(s, { currentBranch: node.currentBranch, restricted: node.restricted, consumes: afterResume(node.folder) !== 'keep' });
    if (s.unreadable) {
      item.description = `unreadable: ${unreadableReason(s.unreadable)}`;
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
      item.contextValue = 'checkpoint:unreadable';
      item.command = { command: CommandId.open, title: 'Open Checkpoint', arguments: [node] };
      item.accessibilityInformation = { label: checkpointAccessibilityLabel(node) };
      return item;
    }
    item.description = s.frontMatterSkipped ? `${branchAndTime(s)} · front matter skipped` : branchAndTime(s);
    item.iconPath = node.branchMismatch
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
      : new vscode.ThemeIcon(s.source === 'json' ? 'history' : 'bookmark');
    // Flags matched in package.json menus: `viewItem =~ /checkpoint:item/`.
    item.contextValue = ['checkpoint:item', `checkpoint:${s.source}`, ...(node.branchMismatch ? ['checkpoint:mismatch'] : []), ...(s.checkpoint?.snapshot ? ['checkpoint:snapshot'] : [])].join(' ');
    item.command = { command: CommandId.resume, title: 'Resume', arguments: [node] };
    item.accessibilityInformation = { label: checkpointAccessibilityLabel(node) };
    return item;
  }

  // ---- events ---------------------------------------------------------------------------------

  private onModelChange(e: ModelChange): void {
    switch (e.kind) {
      case 'folders':
        for (const key of [...this.folderNodes.keys()]) {
          if (!this.model.folders().some((f) => f.uri.toString() === key)) this.folderNodes.delete(key);
        }
        this.onDidChangeTreeDataEmitter.fire(undefined);
        break;
      case 'memoryDir':
      case 'checkpoints':
      case 'write':
      case 'branch':
      case 'trust':
      case 'plansDir':
        this.onDidChangeTreeDataEmitter.fire(undefined);
        break;
      default:
        break;
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
