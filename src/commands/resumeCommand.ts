import * as path from 'node:path';
import * as vscode from 'vscode';
import { CheckpointError, errorMessage } from '../core/errors';
import { exists } from '../core/files';
import { resumeNotice, resumePrompt, resumeSummary } from '../core/resumeText';
import { OrphanRemovedError, type ResumeResult } from '../core/store';
import { CommandId, type ResumeOptions, type UndoOptions } from '../commandIds';
import type { UndoEntry } from '../folderCheckpoints';
import type { Services } from '../services';
import { afterResume } from '../settings';
import { CONTINUE_IN_CHAT, CONTINUE_IN_CLAUDE, continueInChat, continueInClaudeCode, continueOffers } from './continueIn';
import { isOptions, resolveCheckpoint } from './targets';

/**
 * Resume: picks (the only one directly), resumes through the core (branch check; consumed per
 * `checkpoint.afterResume`), opens the checkpoint and its plan, and shows one notification (branch warning and
 * failed approaches in its message) offering Continue in Claude Code / in Chat where available, Copy Resume Prompt,
 * Switch branch and Undo. Returns the core's ResumeResult.
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

  const [offers] = await Promise.all([continueOffers(), openCheckpointAndPlan(s, r)]);

  // One notification (VS Code's guideline): the branch warning and the failed approaches are in its message, and
  // the checkpoint is open beside it with everything.
  const prompt = resumePrompt(cp, { currentBranch: r.currentBranch, path: location });
  const switchAction = r.branchMismatch ? `Switch to ${cp.branch}` : undefined;
  const actions = [
    ...(offers.claude ? [CONTINUE_IN_CLAUDE] : []),
    ...(offers.chat ? [CONTINUE_IN_CHAT] : []),
    'Copy Resume Prompt',
    ...(switchAction ? [switchAction] : []),
    ...(r.consumed ? ['Undo'] : []),
  ];
  const message = resumeNotice(cp, r, { restricted: !s.model.trusted });
  const warn = r.branchMismatch || cp.failed.length > 0;
  const shown = warn ? vscode.window.showWarningMessage(message, ...actions) : vscode.window.showInformationMessage(message, ...actions);
  void shown.then(async (choice) => {
    const where = { folder: folder.uri.toString(), name: cp.name };
    if (choice === CONTINUE_IN_CLAUDE) continueInClaudeCode(folder, cp.name, r.consumed ? r.trashPath : undefined);
    if (choice === CONTINUE_IN_CHAT) await continueInChat(prompt);
    if (choice === 'Copy Resume Prompt') await copyPrompt(prompt, cp.name);
    if (switchAction && choice === switchAction) await vscode.commands.executeCommand(CommandId.switchBranch, { folder: where.folder, branch: cp.branch });
    if (choice === 'Undo' && r.trashPath) await vscode.commands.executeCommand(CommandId.undo, { ...where, trashPath: r.trashPath });
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
