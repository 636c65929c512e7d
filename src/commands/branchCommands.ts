import * as vscode from 'vscode';
import { CheckpointError } from '../core/errors';
import { exists } from '../core/files';
import { switchBranch } from '../core/git';
import { tildify } from '../markdown';
import type { Services } from '../services';
import { folderFromOption, isItemNode, isOptions, type TargetOptions } from './targets';

/** `checkpoint.switchBranch` options; without `branch`, the active checkpoint's branch (the status bar's). */
export interface SwitchBranchOptions extends TargetOptions {
  branch?: string;
}

/**
 * Checks out the branch a checkpoint was saved on (core `switchBranch`: the name is validated, git's
 * refusal comes back as the error shown, nothing changes). Returns true when switched.
 */
export async function switchBranchCommand(s: Services, arg: unknown): Promise<boolean | undefined> {
  let folder: vscode.WorkspaceFolder;
  let branch: string | undefined;
  if (isItemNode(arg)) {
    folder = arg.folder;
    branch = arg.summary.branch;
  } else {
    const opts = isOptions<SwitchBranchOptions>(arg) ? arg : {};
    folder = folderFromOption(s, opts.folder);
    branch = opts.branch ?? s.statusBar.activeCheckpoint(folder)?.branch;
  }
  if (!branch) throw new CheckpointError('There is no branch to switch to: the checkpoint was saved outside a git repository.');
  if (!s.model.trusted) throw new CheckpointError('Git does not run in Restricted Mode: trust this workspace to switch branches.');
  await switchBranch(folder.uri.fsPath, branch);
  await s.model.refreshBranch(folder); // now, rather than when the HEAD watcher reports it
  s.log.info(`Switched ${folder.name} to ${branch}`);
  void vscode.window.showInformationMessage(`Switched to ${branch}.`);
  return true;
}

type StatusBarAction = 'switch' | 'resume' | 'open' | 'dismiss';

interface ActionItem extends vscode.QuickPickItem {
  action: StatusBarAction;
}

/** `checkpoint.statusBarActions` without the pick: `{ action }` (one the pick would offer). */
export interface StatusBarActionsOptions {
  action: StatusBarAction;
}

/**
 * The status bar item's click: Switch (on a branch mismatch) / Resume / Open / Dismiss, on the checkpoint the
 * status bar shows. Returns the action taken.
 */
export async function statusBarActionsCommand(s: Services, arg?: unknown): Promise<string | undefined> {
  const folder = s.model.currentFolder();
  const state = s.statusBar.state;
  const active = folder && state.visible ? s.statusBar.activeCheckpoint(folder) : undefined;
  if (!folder || !active) {
    void vscode.window.showInformationMessage('No active checkpoint: save or resume one first.');
    return undefined;
  }
  const store = await s.model.store(folder);
  const items: ActionItem[] = [];
  if (state.branchMismatch) {
    items.push({
      label: `$(git-branch) Switch to ${active.branch}`,
      detail: `You are on ${state.currentBranch}; "${active.name}" was saved on ${active.branch}.`,
      action: 'switch',
    });
  }
  if (await exists(store.pathFor(active.name))) items.push({ label: '$(debug-continue) Resume', description: active.name, action: 'resume' });
  if (await exists(active.path)) items.push({ label: '$(go-to-file) Open Checkpoint', description: tildify(active.path), action: 'open' });
  items.push({ label: '$(close) Dismiss', description: 'hide it from the status bar until a newer checkpoint is saved', action: 'dismiss' });
  const wanted = isOptions<StatusBarActionsOptions>(arg) ? arg.action : undefined;
  const chosen = wanted
    ? items.find((i) => i.action === wanted)
    : await vscode.window.showQuickPick(items, { title: `Checkpoint "${active.name}"`, placeHolder: 'What do you want to do?' });
  if (!chosen) {
    if (wanted) throw new CheckpointError(`"${wanted}" is not offered for checkpoint "${active.name}".`);
    return undefined;
  }
  const target = { folder: folder.uri.toString(), name: active.name };
  switch (chosen.action) {
    case 'switch':
      await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: target.folder, branch: active.branch });
      break;
    case 'resume':
      await vscode.commands.executeCommand('checkpoint.resume', target);
      break;
    case 'open':
      await vscode.window.showTextDocument(vscode.Uri.file(active.path), { preview: true });
      break;
    case 'dismiss':
      await s.statusBar.dismiss(folder);
      break;
  }
  return chosen.action;
}
