import * as path from 'node:path';
import * as vscode from 'vscode';
import { CheckpointError, errorMessage } from '../core/errors';
import { exists } from '../core/files';
import { printable } from '../core/names';
import { failedWarnings, resumePrompt, resumeSummary } from '../core/resumeText';
import { OrphanRemovedError, type ResumeResult } from '../core/store';
import { CommandId, type ResumeOptions, type UndoOptions } from '../commandIds';
import type { UndoEntry } from '../folderCheckpoints';
import type { Services } from '../services';
import { afterResume } from '../settings';
import { isOptions, resolveCheckpoint } from './targets';

/** How many "Previously failed" warnings pop up; the rest are summed up in one. */
const MAX_FAILED_WARNINGS = 3;

/**
 * Resume: picks (the only one directly), resumes through the core (branch check; consumed per
 * `checkpoint.afterResume`), opens the checkpoint and its plan, warns about the branch and failed
 * approaches, and offers Copy Resume Prompt and Undo. Returns the core's ResumeResult.
 */
export async function resumeCommand(s: Services, arg: unknown): Promise<ResumeResult | undefined> {
  const target = await resolveCheckpoint(s, arg, { placeHolder: 'Resume which checkpoint?', autoPickSingle: true });
  if (!target) return undefined;
  const { folder } = target;
  const optionKeep = isOptions<ResumeOptions>(arg) ? arg.keep : undefined;
  const keep = optionKeep ?? afterResume(folder) === 'keep';
  let r: ResumeResult;
  try {
    r = await s.model.folder(folder).resume(target.name, { keep });
  } catch (err) {
    // The file was gone but its index bullet remained: the core removed the bullet. Not a failure.
    if (!(err instanceof OrphanRemovedError)) throw err;
    s.log.info(err.message);
    void vscode.window.showInformationMessage(err.message);
    return undefined;
  }
  const cp = r.checkpoint;
  const location = r.trashPath ?? r.path;
  s.log.info(`Resumed ${r.path}${r.consumed ? ` (moved to ${r.trashPath})` : ''}\n${resumeSummary(cp, r)}`);

  await openCheckpointAndPlan(s, r);

  if (r.branchMismatch) {
    const action = `Switch to ${cp.branch}`;
    void vscode.window
      .showWarningMessage(`Checkpoint "${cp.name}" was saved on ${cp.branch}; you are on ${r.currentBranch}.`, action)
      .then((choice) => {
        if (choice === action) void vscode.commands.executeCommand(CommandId.switchBranch, { folder: folder.uri.toString(), branch: cp.branch });
      });
  }
  const failed = failedWarnings(cp);
  for (const line of failed.slice(0, MAX_FAILED_WARNINGS)) void vscode.window.showWarningMessage(line);
  if (failed.length > MAX_FAILED_WARNINGS) {
    void vscode.window.showWarningMessage(`… and ${failed.length - MAX_FAILED_WARNINGS} more previously failed approaches (see the checkpoint).`);
  }

  const unchecked = !s.model.trusted && cp.branch ? ` Saved on ${cp.branch}; the branch was not checked (Restricted Mode).` : '';
  const consumed = r.consumed ? ' Moved to trash.' : '';
  const actions = ['Copy Resume Prompt', ...(r.consumed ? ['Undo'] : [])];
  void vscode.window
    .showInformationMessage(`Resumed "${cp.name}": ${printable(cp.description, 120)}.${consumed}${unchecked}`, ...actions)
    .then(async (choice) => {
      if (choice === 'Copy Resume Prompt') await copyPrompt(resumePrompt(cp, { currentBranch: r.currentBranch, path: location }), cp.name);
      if (choice === 'Undo' && r.trashPath) await vscode.commands.executeCommand(CommandId.undo, { folder: folder.uri.toString(), name: cp.name, trashPath: r.trashPath });
    });
  return r;
}

/**
 * Opens the plan (when the checkpoint has one and it exists) and the checkpoint in a Markdown preview
 * (beside the plan). The consumed checkpoint is opened where it now is, in the trash. Failures are logged.
 */
async function openCheckpointAndPlan(s: Services, r: ResumeResult): Promise<void> {
  const file = vscode.Uri.file(r.trashPath ?? r.path);
  const plan = r.checkpoint.plan;
  let planOpened = false;
  try {
    if (plan && path.isAbsolute(plan) && (await exists(plan))) {
      await vscode.window.showTextDocument(vscode.Uri.file(plan), { preview: true });
      planOpened = true;
    }
  } catch (err) {
    s.log.warn(`Could not open the plan ${plan}: ${errorMessage(err)}`);
  }
  try {
    if (r.source === 'markdown') await vscode.commands.executeCommand(planOpened ? 'markdown.showPreviewToSide' : 'markdown.showPreview', file);
    else await vscode.window.showTextDocument(file, { preview: true, viewColumn: planOpened ? vscode.ViewColumn.Beside : undefined });
  } catch (err) {
    s.log.warn(`Could not open ${file.fsPath}: ${errorMessage(err)}`);
  }
}

export async function copyPrompt(text: string, name: string): Promise<void> {
  await vscode.env.clipboard.writeText(text);
  void vscode.window.showInformationMessage(`Resume prompt for "${name}" copied: paste it into your agent.`);
}

/** Puts back the last consumed or deleted checkpoint (or the one named): file and index bullet. Returns its path. */
export async function undoCommand(s: Services, arg: unknown): Promise<string | undefined> {
  let entry: UndoEntry | undefined = s.model.lastUndo;
  let folder: vscode.WorkspaceFolder | undefined;
  if (isOptions<UndoOptions>(arg) && typeof arg.trashPath === 'string') {
    folder = s.model.folderFromOption(arg.folder);
    entry = { folder: folder.uri.toString(), name: arg.name ?? '', trashPath: arg.trashPath, overwrite: arg.overwrite === true };
  }
  if (!entry) {
    void vscode.window.showInformationMessage('Nothing to undo.');
    return undefined;
  }
  folder ??= s.model.folders().find((f) => f.uri.toString() === entry.folder);
  if (!folder) throw new CheckpointError('The folder of that checkpoint is no longer open.');
  const restored = await s.model.folder(folder).restore(entry.trashPath, entry.name, { overwrite: entry.overwrite });
  const file = restored.path;
  s.log.info(`Restored ${entry.trashPath} to ${file}${restored.replaced ? `; the newer version is in ${restored.replaced}` : ''}`);
  void vscode.window.showInformationMessage(
    restored.replaced
      ? `Restored the previous version of checkpoint "${restored.name}"; the version that replaced it is in the trash.`
      : `Restored checkpoint "${restored.name}".`,
  );
  return file;
}
