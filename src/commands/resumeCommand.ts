import * as path from 'node:path';
import * as vscode from 'vscode';
import { CheckpointError, errorMessage } from '../core/errors';
import { exists } from '../core/files';
import { printable } from '../core/names';
import { failedWarnings, resumePrompt, resumeSummary } from '../core/resumeText';
import { OrphanRemovedError, type ResumeResult } from '../core/store';
import type { Services } from '../services';
import type { UndoEntry } from '../workspaceModel';
import { folderFromOption, isOptions, resolveCheckpoint, type TargetOptions } from './targets';

/** `checkpoint.resume` without any UI: `{ name, folder?, keep? }` (keep defaults to `checkpoint.afterResume`). */
export interface ResumeOptions extends TargetOptions {
  name: string;
  keep?: boolean;
}

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
  const keep = optionKeep ?? s.model.afterResume(folder) === 'keep';
  const store = await s.model.store(folder);
  let r: ResumeResult;
  try {
    r = await store.resume(target.name, { keep });
  } catch (err) {
    // The file was gone but its index bullet remained: the core removed the bullet. Not a failure.
    if (!(err instanceof OrphanRemovedError)) throw err;
    s.log.info(err.message);
    void vscode.window.showInformationMessage(err.message);
    return undefined;
  } finally {
    await s.tree.refreshFile(folder, store.pathFor(target.name));
  }
  const cp = r.checkpoint;
  const location = r.trashPath ?? r.path;
  if (r.consumed && r.trashPath) s.model.setUndo({ folder: folder.uri.toString(), name: cp.name, trashPath: r.trashPath });
  await s.model.setActive(folder, { name: cp.name, branch: cp.branch, saved: cp.saved, path: location });
  s.log.info(`Resumed ${r.path}${r.consumed ? ` (moved to ${r.trashPath})` : ''}\n${resumeSummary(cp, r)}`);

  await openCheckpointAndPlan(s, r);

  if (r.branchMismatch) {
    const action = `Switch to ${cp.branch}`;
    void vscode.window
      .showWarningMessage(`Checkpoint "${cp.name}" was saved on ${cp.branch}; you are on ${r.currentBranch}.`, action)
      .then((choice) => {
        if (choice === action) void vscode.commands.executeCommand('checkpoint.switchBranch', { folder: folder.uri.toString(), branch: cp.branch });
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
      if (choice === 'Undo' && r.trashPath) await vscode.commands.executeCommand('checkpoint.undo', { folder: folder.uri.toString(), name: cp.name, trashPath: r.trashPath });
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

/** `checkpoint.undo` options: the trash path a resume or delete reported. */
export interface UndoOptions {
  folder?: string;
  name?: string;
  trashPath: string;
}

/** Puts back the last consumed or deleted checkpoint (or the one named): file and index bullet. Returns its path. */
export async function undoCommand(s: Services, arg: unknown): Promise<string | undefined> {
  let entry: UndoEntry | undefined = s.model.lastUndo;
  let folder: vscode.WorkspaceFolder | undefined;
  if (isOptions<UndoOptions>(arg) && typeof arg.trashPath === 'string') {
    folder = folderFromOption(s, arg.folder);
    entry = { folder: folder.uri.toString(), name: arg.name ?? '', trashPath: arg.trashPath };
  }
  if (!entry) {
    void vscode.window.showInformationMessage('Nothing to undo.');
    return undefined;
  }
  folder ??= s.model.folders().find((f) => f.uri.toString() === entry.folder);
  if (!folder) throw new CheckpointError('The folder of that checkpoint is no longer open.');
  const store = await s.model.store(folder);
  const cp = await store.restore(entry.trashPath);
  const file = store.pathFor(entry.name || cp.name);
  if (s.model.lastUndo?.trashPath === entry.trashPath) s.model.setUndo(undefined);
  const active = s.model.active(folder);
  if (active?.path === entry.trashPath) await s.model.setActive(folder, { ...active, path: file });
  await s.model.noteWritten(folder);
  await s.tree.refreshFile(folder, file);
  s.log.info(`Restored ${entry.trashPath} to ${file}`);
  void vscode.window.showInformationMessage(`Restored checkpoint "${entry.name || cp.name}".`);
  return file;
}
