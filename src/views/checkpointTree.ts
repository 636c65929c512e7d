import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatRelative } from '../core/dates';
import { errorMessage } from '../core/errors';
import { branchDiffers } from '../core/git';
import { nameFromFileName } from '../core/names';
import { formatStep, planName, readPlanProgress } from '../core/plans';
import type { CheckpointSummary } from '../core/store';
import { tildify } from '../markdown';
import type { FileChange, ModelChange, WorkspaceModel } from '../workspaceModel';
import { checkpointTooltip } from './checkpointTooltip';

export interface FolderNode {
  readonly kind: 'folder';
  readonly folder: vscode.WorkspaceFolder;
}

export interface PlanNode {
  readonly kind: 'plan';
  readonly folder: vscode.WorkspaceFolder;
  /** The plan as the checkpoints name it (an absolute path, or a plan folder name for JSON checkpoints). */
  readonly plan: string;
  /** "fix-auth-race · step 3 of 7". */
  readonly label: string;
  /** "step 3 of 7" (the plan file's progress now, else as its newest checkpoint recorded it). */
  readonly step?: string;
  readonly children: ItemNode[];
}

export interface ItemNode {
  readonly kind: 'checkpoint';
  readonly folder: vscode.WorkspaceFolder;
  readonly summary: CheckpointSummary;
  /** Saved on another branch than the folder's current one. */
  readonly branchMismatch: boolean;
  readonly currentBranch: string | undefined;
  readonly restricted: boolean;
}

/** A line of text in the tree: an error listing a folder, or "no checkpoints" under a folder node. */
export interface MessageNode {
  readonly kind: 'message';
  readonly folder?: vscode.WorkspaceFolder;
  readonly message: string;
  readonly isError: boolean;
}

export type CheckpointNode = FolderNode | PlanNode | ItemNode | MessageNode;

/** What the tree knows of one folder's memory directory: one summary per file, keyed by path. */
interface FolderCache {
  dir: string;
  files: Map<string, CheckpointSummary>;
  /** Read-only JSON checkpoints (outside the memory directory; re-read on reload only). */
  json: CheckpointSummary[];
  /** What each file was when {@link CheckpointTreeProvider.refreshFile} last read it (see {@link fileStamp}). */
  stamps: Map<string, string>;
}

interface FolderState {
  cache?: FolderCache;
  loading?: Promise<FolderCache>;
  /** The generation `loading` was started in. */
  loadingGeneration?: number;
  /** Bumped on reload: a scan started before it does not fill the cache. */
  generation: number;
  /** File updates run one after the other, in event order. */
  queue: Promise<void>;
  /** Files with an update queued that has not started yet: another event for them adds nothing. */
  pending: Set<string>;
  node: FolderNode;
}

/**
 * Diagnostic counters of the tree's reads (for tests and the performance budget "one file re-read per file
 * changed"; not shown anywhere). Plain increments, no I/O.
 */
export interface TreeReadStats {
  /**
   * Checkpoint files read for the tree: one per entry a folder scan returns (Markdown and JSON checkpoints,
   * unreadable ones included) plus one per file {@link CheckpointTreeProvider.refreshFile} reads. A file that a
   * scan found but that vanished before it was read is not counted.
   */
  filesRead: number;
  /** Scans of a folder (each reads every checkpoint file of it). */
  scans: number;
}

/**
 * Identifies a version of a file without reading it: inode, size, modification and change times. Every write
 * changes the change time (an atomic write also the inode), so an unchanged stamp means the file was already read
 * as it is: VS Code reports one write as several events (create and change; this extension's own save, then the
 * watcher's event) and only the first is read. Undefined (always read) on a file system with whole-second times,
 * where two writes in the same second would share a stamp.
 */
function fileStamp(st: Stats): string | undefined {
  if (st.mtimeMs % 1000 === 0 || st.ctimeMs % 1000 === 0) return undefined;
  return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

const byNewest = (a: CheckpointSummary, b: CheckpointSummary): number =>
  b.saved.localeCompare(a.saved) || a.name.localeCompare(b.name);

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
  return parts.join(', ');
}

/**
 * The Checkpoints view. Per folder: plan nodes holding plan-scoped checkpoints, then the named ones,
 * newest first; a node per folder in a multi-root workspace. A folder is scanned once, then kept up to date
 * file by file from watcher events and from this extension's own writes. `getChildren` never throws and
 * never shows UI: failures become message nodes, unreadable files become items.
 */
export class CheckpointTreeProvider implements vscode.TreeDataProvider<CheckpointNode>, vscode.Disposable {
  private readonly folders = new Map<string, FolderState>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeTreeDataEmitter = new vscode.EventEmitter<CheckpointNode | undefined>();
  readonly onDidChangeTreeData = this.onDidChangeTreeDataEmitter.event;
  /** Diagnostic read counters (see {@link TreeReadStats}); exposed on the extension's API for tests. */
  readonly stats: TreeReadStats = { filesRead: 0, scans: 0 };

  constructor(
    private readonly model: WorkspaceModel,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(
      this.onDidChangeTreeDataEmitter,
      model.onDidChange((e) => this.onModelChange(e)),
      model.onDidChangeFiles((e) => this.onFileChange(e)),
    );
  }

  /** Shows a note at the top of the view in Restricted Mode, kept up to date. */
  bindView(view: vscode.TreeView<CheckpointNode>): void {
    const update = (): void => {
      view.message = this.model.trusted
        ? undefined
        : 'Restricted Mode: git does not run, so branches are neither recorded nor compared.';
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
          item.command = { command: 'checkpoint.save', title: 'Save a Checkpoint', arguments: [{ kind: 'folder', folder: node.folder }] };
        }
        return item;
      }
    }
  }

  getParent(node: CheckpointNode): CheckpointNode | undefined {
    if (node.kind === 'folder' || !node.folder || this.model.folders().length < 2) return undefined;
    return this.state(node.folder).node;
  }

  // ---- data -----------------------------------------------------------------------------------

  /** Every checkpoint of a folder (unreadable ones included), newest first. Scans the folder once. */
  async summaries(folder: vscode.WorkspaceFolder): Promise<CheckpointSummary[]> {
    const cache = await this.load(folder);
    return [...cache.files.values(), ...cache.json].sort(byNewest);
  }

  /**
   * The folder's checkpoint files as last read (Markdown ones, unreadable included; no JSON checkpoints), without
   * any I/O; undefined until the folder is scanned ({@link summaries} scans it). Kept up to date file by file, like
   * the tree; every change fires `onDidChangeTreeData`.
   */
  cachedFiles(folder: vscode.WorkspaceFolder): Iterable<CheckpointSummary> | undefined {
    return this.folders.get(folder.uri.toString())?.cache?.files.values();
  }

  /** Forgets what is cached (one folder, or all) and redraws; the next look scans again. */
  reload(folder?: vscode.WorkspaceFolder): void {
    const states = folder ? [this.state(folder)] : [...this.folders.values()];
    for (const st of states) {
      st.generation++;
      st.cache = undefined;
    }
    this.onDidChangeTreeDataEmitter.fire(undefined);
  }

  /**
   * Re-reads one checkpoint file (after this extension wrote, moved or deleted it, or a watcher event):
   * its entry is replaced, added or removed, nothing else is read. A JSON checkpoint reloads the folder.
   * Reads nothing when the file is as it was last read (duplicate events) or when an update of it is already
   * queued; never reads a file a scan would not list (the temp file of an atomic write, MEMORY.md).
   */
  refreshFile(folder: vscode.WorkspaceFolder, file: string): Promise<void> {
    const st = this.state(folder);
    // The queued update stats and reads the file when it starts, so it sees this change too.
    if (st.pending.has(file)) return st.queue;
    st.pending.add(file);
    const run = async (): Promise<void> => {
      st.pending.delete(file);
      if (st.loading) await st.loading.catch(() => undefined);
      const cache = st.cache;
      if (!cache) return; // not scanned yet: the scan will read it
      if (path.resolve(path.dirname(file)) !== path.resolve(cache.dir)) {
        if (cache.json.some((j) => j.path === file)) this.reload(folder);
        return;
      }
      // Only checkpoint files, as a scan lists them: never a temp file of an atomic write or MEMORY.md.
      if (nameFromFileName(path.basename(file)) === undefined) return;
      const stat = await fs.stat(file).catch(() => undefined);
      let summary: CheckpointSummary | undefined;
      let stamp: string | undefined;
      if (stat?.isFile()) {
        stamp = fileStamp(stat);
        if (stamp !== undefined && cache.stamps.get(file) === stamp && cache.files.has(file)) return; // read as it is
        const store = await this.model.store(folder);
        this.stats.filesRead++;
        summary = await store.summarize(file);
      }
      if (st.cache !== cache) return; // reloaded meanwhile
      if (stamp !== undefined) cache.stamps.set(file, stamp);
      else cache.stamps.delete(file);
      if (summary) cache.files.set(file, summary);
      else if (!cache.files.delete(file)) return;
      this.onDidChangeTreeDataEmitter.fire(undefined);
    };
    st.queue = st.queue.then(run).catch((err: unknown) => this.log.warn(`Could not re-read ${file}: ${errorMessage(err)}`));
    return st.queue;
  }

  private state(folder: vscode.WorkspaceFolder): FolderState {
    const key = folder.uri.toString();
    let st = this.folders.get(key);
    if (!st) {
      st = { generation: 0, queue: Promise.resolve(), pending: new Set(), node: { kind: 'folder', folder } };
      this.folders.set(key, st);
    }
    return st;
  }

  private load(folder: vscode.WorkspaceFolder): Promise<FolderCache> {
    const st = this.state(folder);
    if (st.cache) return Promise.resolve(st.cache);
    // A scan started before a reload would list what was there before it (another directory, maybe): start anew.
    if (!st.loading || st.loadingGeneration !== st.generation) {
      const generation = st.generation;
      const loading = (async () => {
        const store = await this.model.store(folder);
        const all = await store.list();
        this.stats.scans++;
        this.stats.filesRead += all.length;
        const cache: FolderCache = {
          dir: store.memoryDir,
          files: new Map(all.filter((s) => s.source === 'markdown').map((s) => [s.path, s])),
          json: all.filter((s) => s.source === 'json'),
          stamps: new Map(),
        };
        if (st.generation === generation) st.cache = cache;
        this.log.debug(`Scanned ${store.memoryDir}: ${all.length} checkpoint(s)`);
        return cache;
      })();
      st.loading = loading;
      st.loadingGeneration = generation;
      // Clear the in-flight promise either way: a failed scan is retried on the next look, never cached.
      const clear = (): void => {
        if (st.loading === loading) st.loading = undefined;
      };
      loading.then(clear, clear);
    }
    return st.loading;
  }

  private async roots(): Promise<CheckpointNode[]> {
    const folders = this.model.folders();
    if (folders.length === 0) return [];
    if (folders.length === 1) return this.folderChildren(folders[0], false);
    // Multi-root: a node per folder, unless no folder has any checkpoint (then the welcome view shows).
    const counts = await Promise.all(folders.map((f) => this.summaries(f).then((s) => s.length, () => 1)));
    if (counts.every((n) => n === 0)) return [];
    return folders.map((f) => this.state(f).node);
  }

  private async folderChildren(folder: vscode.WorkspaceFolder, underFolderNode: boolean): Promise<CheckpointNode[]> {
    let all: CheckpointSummary[];
    try {
      all = await this.summaries(folder);
    } catch (err) {
      this.log.error(`Could not list the checkpoints of ${folder.name}: ${errorMessage(err)}`);
      return [{ kind: 'message', folder, message: `Could not list checkpoints: ${errorMessage(err)}`, isError: true }];
    }
    if (all.length === 0) {
      return underFolderNode ? [{ kind: 'message', folder, message: 'No checkpoints yet — save one', isError: false }] : [];
    }
    const restricted = !this.model.trusted;
    const currentBranch = restricted ? '' : await this.model.currentBranch(folder);
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
        const live = path.isAbsolute(plan) ? await readPlanProgress(plan) : undefined;
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
    const dir = this.model.memoryDirNow(node.folder)?.dir;
    item.tooltip = dir ? `Checkpoints of ${node.folder.name} are stored in ${dir}` : node.folder.uri.fsPath;
    // Without it a screen reader reads the (string) tooltip: a path instead of the folder.
    const cache = this.folders.get(node.folder.uri.toString())?.cache;
    const count = cache ? countCheckpoints(cache.files.size + cache.json.length) : undefined;
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
    const where = path.isAbsolute(node.plan) ? tildify(node.plan) : node.plan;
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
    item.tooltip = checkpointTooltip(s, { currentBranch: node.currentBranch, restricted: node.restricted });
    if (s.unreadable) {
      item.description = `unreadable: ${s.unreadable}`;
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
      item.contextValue = 'checkpoint:unreadable';
      item.command = { command: 'checkpoint.open', title: 'Open Checkpoint', arguments: [node] };
      item.accessibilityInformation = { label: checkpointAccessibilityLabel(node) };
      return item;
    }
    item.description = `${s.branch || 'no branch'} · ${formatRelative(s.saved)}`;
    item.iconPath = node.branchMismatch
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
      : new vscode.ThemeIcon(s.source === 'json' ? 'history' : 'bookmark');
    // Flags matched in package.json menus: `viewItem =~ /checkpoint:item/`.
    item.contextValue = ['checkpoint:item', `checkpoint:${s.source}`, ...(node.branchMismatch ? ['checkpoint:mismatch'] : [])].join(' ');
    item.command = { command: 'checkpoint.resume', title: 'Resume', arguments: [node] };
    item.accessibilityInformation = { label: checkpointAccessibilityLabel(node) };
    return item;
  }

  // ---- events ---------------------------------------------------------------------------------

  private onModelChange(e: ModelChange): void {
    switch (e.kind) {
      case 'memoryDir':
        this.reload(e.folder);
        break;
      case 'folders':
        for (const key of [...this.folders.keys()]) {
          if (!this.model.folders().some((f) => f.uri.toString() === key)) this.folders.delete(key);
        }
        this.onDidChangeTreeDataEmitter.fire(undefined);
        break;
      case 'branch':
      case 'trust':
      case 'plansDir':
        this.onDidChangeTreeDataEmitter.fire(undefined);
        break;
      default:
        break;
    }
  }

  private onFileChange(e: FileChange): void {
    void this.refreshFile(e.folder, e.path);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
