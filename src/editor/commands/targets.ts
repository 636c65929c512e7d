import vscode = require('vscode');
import { CheckpointError } from '../../core/errors';
import { resolveName } from '../../core/names';
import type { CheckpointSummary } from '../../core/store';
import { NO_CHECKPOINTS, branchAndTime } from '../../core/wording';
import type { TargetOptions } from '../commandIds';
import type { CheckpointNode, ItemNode } from '../views/nodes';
import type { Services } from '../services';

/**
 * Resolving what a command acts on. A command gets a tree node (from the view), an options object
 * (from tests and other commands: `{ name, folder? }`), or nothing (from the palette or a keybinding:
 * then it asks with a pick list).
 */

export interface CheckpointTarget {
  folder: vscode.WorkspaceFolder;
  name: string;
  /** Known when picked from the tree or a list. */
  summary?: CheckpointSummary;
}

const NODE_KINDS = new Set(['folder', 'plan', 'checkpoint', 'message']);

export function isNode(arg: unknown): arg is CheckpointNode {
  return typeof arg === 'object' && arg !== null && NODE_KINDS.has((arg as { kind?: unknown }).kind as string);
}

export function isItemNode(arg: unknown): arg is ItemNode {
  return isNode(arg) && arg.kind === 'checkpoint';
}

/** An options object (not a node, not a Uri). */
export function isOptions<T extends object>(arg: unknown): arg is Partial<T> {
  return typeof arg === 'object' && arg !== null && !isNode(arg) && !(arg instanceof vscode.Uri);
}

/** The folder an argument names: a node's, an options object's, a Uri's; undefined when it names none. */
export function folderFromArg(s: Services, arg: unknown): vscode.WorkspaceFolder | undefined {
  if (isNode(arg)) return arg.folder;
  if (arg instanceof vscode.Uri) return vscode.workspace.getWorkspaceFolder(arg);
  if (isOptions<TargetOptions>(arg) && typeof arg.folder === 'string') return s.model.folderFromOption(arg.folder);
  return undefined;
}

/** The folder of an argument, else the only folder, else a folder pick. Undefined when cancelled. */
export async function resolveFolder(s: Services, arg: unknown, placeHolder: string): Promise<vscode.WorkspaceFolder | undefined> {
  const fromArg = folderFromArg(s, arg);
  if (fromArg) return fromArg;
  const folders = s.model.folders();
  if (folders.length === 0) throw new CheckpointError('Open a folder to use checkpoints.');
  if (folders.length === 1) return folders[0];
  return vscode.window.showWorkspaceFolderPick({ placeHolder, ignoreFocusOut: true });
}

export interface PickOptions {
  placeHolder: string;
  /** List unreadable files too (Open, Delete). */
  includeUnreadable?: boolean;
  /** Only Markdown checkpoints (not the read-only JSON ones). */
  markdownOnly?: boolean;
  /** With exactly one candidate, take it without asking (Resume). */
  autoPickSingle?: boolean;
}

interface CheckpointPickItem extends vscode.QuickPickItem {
  target: CheckpointTarget;
}

/** Every checkpoint of every folder as a pick list (name, branch, relative date). */
export async function pickCheckpoint(s: Services, opts: PickOptions): Promise<CheckpointTarget | undefined> {
  const folders = s.model.folders();
  if (folders.length === 0) throw new CheckpointError('Open a folder to use checkpoints.');
  const multiRoot = folders.length > 1;
  const lists = await Promise.all(folders.map(async (folder) => ({ folder, items: await s.model.folder(folder).index.list() })));
  const candidates: CheckpointPickItem[] = [];
  for (const { folder, items } of lists) {
    for (const summary of items) {
      if (summary.unreadable && !opts.includeUnreadable) continue;
      if (summary.source === 'json' && opts.markdownOnly) continue;
      const where = multiRoot ? ` · ${folder.name}` : '';
      candidates.push({
        label: `${summary.unreadable ? '$(error)' : summary.plan ? '$(checklist)' : '$(bookmark)'} ${summary.name}`,
        description: summary.unreadable ? `unreadable${where}` : `${branchAndTime(summary)}${where}`,
        detail: summary.unreadable ?? summary.description,
        target: { folder, name: summary.name, summary },
      });
    }
  }
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage(NO_CHECKPOINTS);
    return undefined;
  }
  if (candidates.length === 1 && opts.autoPickSingle) return candidates[0].target;
  const chosen = await vscode.window.showQuickPick(candidates, {
    placeHolder: opts.placeHolder,
    matchOnDescription: true,
    matchOnDetail: true,
    ignoreFocusOut: false,
  });
  return chosen?.target;
}

/** The checkpoint an argument names (tree item, or `{ name, folder? }`), else a pick list. */
export async function resolveCheckpoint(s: Services, arg: unknown, opts: PickOptions): Promise<CheckpointTarget | undefined> {
  if (isItemNode(arg)) return { folder: arg.folder, name: arg.summary.name, summary: arg.summary };
  if (isOptions<TargetOptions>(arg) && typeof arg.name === 'string') {
    const folder = s.model.folderFromOption(arg.folder);
    // The listing's entry when there is one (Markdown first, as the core's `find`), for its path and kind: found by
    // the core's one lookup, so a name as a person typed it ("fix: login") is the agent's `fix:-login`.
    const all = await s.model.folder(folder).index.list().catch(() => []);
    const markdown = all.filter((c) => c.source === 'markdown');
    const name = resolveName(arg.name, markdown.map((c) => c.name)) ?? resolveName(arg.name, all.map((c) => c.name)) ?? arg.name;
    const summary = markdown.find((c) => c.name === name) ?? all.find((c) => c.name === name);
    return { folder, name, summary };
  }
  return pickCheckpoint(s, opts);
}
