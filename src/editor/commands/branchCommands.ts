import { basename } from 'node:path';
import vscode = require('vscode');
import { CheckpointError } from '../../core/errors';
import { exists } from '../../core/files';
import { switchBranch } from '../../core/git';
import type { Services } from '../services';
import { CommandId, type StatusBarAction, type StatusBarActionsOptions, type SwitchBranchOptions } from '../commandIds';
import { isItemNode, isOptions } from './targets';

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
    folder = s.model.folderFromOption(opts.folder);
    branch = opts.branch ?? s.model.folder(folder).active()?.branch;
  }
  if (!branch) throw new CheckpointError('There is no branch to switch to: the checkpoint was saved outside a git repository.');
  await switchFolderBranch(s, folder, branch);
  void vscode.window.showInformationMessage(`Switched to ${branch}.`);
  return true;
}

/** Checks out `branch` in the folder (never in Restricted Mode) and reads the branch again at once. */
export async function switchFolderBranch(s: Services, folder: vscode.WorkspaceFolder, branch: string): Promise<void> {
  if (!s.model.trusted) throw new CheckpointError('Git does not run in Restricted Mode: trust this workspace to switch branches.');
  await switchBranch(folder.uri.fsPath, branch);
  await s.model.folder(folder).refreshBranch(); // now, rather than when the HEAD watcher reports it
  s.log.info(`Switched ${folder.name} to ${branch}`);
}

interface ActionItem extends vscode.QuickPickItem {
  action: StatusBarAction;
}

/**
 * The status bar item's click: Switch (on a branch mismatch) / Resume / Open / Dismiss, on the checkpoint the
 * status bar shows. Returns the action taken.
 */
export async function statusBarActionsCommand(s: Services, arg?: unknown): Promise<string | undefined> {
  const folder = s.model.currentFolder();
  const state = s.statusBar.state;
  const checkpoints = folder && s.model.folder(folder);
  const active = checkpoints && state.visible ? checkpoints.active() : undefined;
  if (!folder || !checkpoints || !active) {
    void vscode.window.showInformationMessage('No active checkpoint: save or resume one first.');
    return undefined;
  }
  const store = await checkpoints.store();
  const items: ActionItem[] = [];
  if (state.branchMismatch) {
    items.push({
      label: `$(git-branch) Switch to ${active.branch}`,
      detail: `You are on ${state.currentBranch}; "${active.name}" was saved on ${active.branch}.`,
      action: 'switch',
    });
  }
  if (await exists(store.pathFor(active.name))) items.push({ label: '$(debug-continue) Resume', description: active.name, action: 'resume' });
  if (await exists(active.path)) items.push({ label: '$(go-to-file) Open Checkpoint', description: basename(active.path), action: 'open' });
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
      await vscode.commands.executeCommand(CommandId.switchBranch, { folder: target.folder, branch: active.branch });
      break;
    case 'resume':
      await vscode.commands.executeCommand(CommandId.resume, target);
      break;
    case 'open':
      await vscode.window.showTextDocument(vscode.Uri.file(active.path), { preview: true });
      break;
    case 'dismiss':
      await checkpoints.dismiss();
      break;
  }
  return chosen.action;
}
