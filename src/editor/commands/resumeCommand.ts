import { isAbsolute } from 'node:path';
import vscode = require('vscode');
import { CheckpointError, errorMessage } from '../../core/errors';
import { exists } from '../../core/files';
import { resumeNotice, resumePrompt, resumeSummary } from '../../core/resumeText';
import { sinceSaved } from '../../core/since';
import { printable } from '../../core/names';
import { OrphanRemovedError, type ResumeResult } from '../../core/store';
import { branchDiffers } from '../../core/git';
import { branchSentence } from '../../core/wording';
import { CommandId, type ResumeOptions, type UndoOptions } from '../commandIds';
import type { UndoEntry } from '../folderHost';
import type { Services } from '../services';
import { afterResume } from '../settings';
import { switchFolderBranch } from './branchCommands';
import { CONTINUE_IN_CHAT, CONTINUE_IN_CLAUDE, continueInChat, continueInClaudeCode, continueOffers } from './continueIn';
import { isOptions, resolveCheckpoint, type CheckpointTarget } from './targets';

type BranchAnswer = 'switch' | 'here';

const SWITCH_AND_RESUME = 'Switch and Resume';
const RESUME_HERE = 'Resume Here';

/**
 * Resume: picks (the only one directly); a checkpoint saved on another branch first asks, once, Switch and Resume /
 * Resume Here / Cancel (Cancel or Escape: nothing happens); resumes through the core (consumed per
 * `checkpoint.afterResume`), shows the checkpoint rendered and opens its plan, and shows one notification (the
 * switch, the branch and the failed approaches in its message) offering Continue in Claude Code / in Chat where
 * available, Copy Resume Prompt and Undo. Returns the core's ResumeResult.
 */
export async function resumeCommand(s: Services, arg: unknown): Promise<ResumeResult | undefined> {
  const target = await resolveCheckpoint(s, arg, { placeHolder: 'Resume which checkpoint?', autoPickSingle: true });
  if (!target) return undefined;
  const { folder } = target;
  const options = isOptions<ResumeOptions>(arg) ? arg : {};
  const keep = options.keep ?? afterResume(folder) === 'keep';
  const answer = await askOnOtherBranch(s, target, keep, options.onOtherBranch);
  if (!answer) return undefined;
  const switchedTo = answer.switchTo;
  if (switchedTo) await switchFolderBranch(s, folder, switchedTo); // git refuses: its reason is shown, nothing consumed
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
  const since = await sinceSaved(await s.model.folder(folder).store(), cp, { currentBranch: r.currentBranch });
  s.log.info(`Resumed ${r.path}${r.consumed ? ` (moved to ${r.trashPath})` : ''}\n${resumeSummary(cp, { ...r, since })}`);

  const [offers] = await Promise.all([continueOffers(), openCheckpointAndPlan(s, folder, r, since.line)]);

  // One notification (VS Code's guideline): the branch warning and the failed approaches are in its message, and
  // the checkpoint is open beside it with everything.
  const prompt = resumePrompt(cp, { currentBranch: r.currentBranch, path: location });
  // Asked already (or told by the caller): Switch is not offered again.
  const switchAction = r.branchMismatch && !answer.decided ? `Switch to ${cp.branch}` : undefined;
  const actions = [
    ...(offers.claude ? [CONTINUE_IN_CLAUDE] : []),
    ...(offers.chat ? [CONTINUE_IN_CHAT] : []),
    'Copy Resume Prompt',
    ...(switchAction ? [switchAction] : []),
    ...(r.consumed ? ['Undo'] : []),
  ];
  const message = resumeNotice(cp, r, { restricted: !s.model.trusted, switchedTo, since });
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
 * Before anything is consumed: a checkpoint saved on another branch than the current one asks Switch and Resume /
 * Resume Here (a modal: Cancel and Escape resume nothing), unless the caller answered (`onOtherBranch`). Undefined:
 * cancelled. Git never runs in Restricted Mode, where the current branch is unknown: no question.
 */
async function askOnOtherBranch(
  s: Services,
  target: CheckpointTarget,
  keep: boolean,
  told: ResumeOptions['onOtherBranch'],
): Promise<{ switchTo?: string; decided: boolean } | undefined> {
  if (!s.model.trusted || target.summary?.unreadable) return { decided: false };
  const checkpoints = s.model.folder(target.folder);
  // Not listed yet (written a moment ago): read from its file.
  const saved = target.summary?.branch ?? (await (await checkpoints.store()).show(target.name).catch(() => undefined))?.branch ?? '';
  const current = await checkpoints.currentBranch();
  if (!branchDiffers(saved, current)) return { decided: false };
  let answer: BranchAnswer | undefined = told === 'switch' || told === 'here' ? told : undefined;
  if (!answer) {
    const name = printable(target.name, 64);
    const [savedOn, here] = [printable(saved, 64), printable(current, 64)];
    const consumed = keep ? '' : ' Either way it moves to the trash (Undo puts it back).';
    const choice = await vscode.window.showWarningMessage(
      `Resume "${name}"? ${branchSentence(savedOn, { currentBranch: here, restricted: false }, (b) => b)}`,
      { modal: true, detail: `${SWITCH_AND_RESUME} checks out ${savedOn} first; ${RESUME_HERE} stays on ${here}.${consumed}` },
      SWITCH_AND_RESUME,
      RESUME_HERE,
    );
    answer = choice === SWITCH_AND_RESUME ? 'switch' : choice === RESUME_HERE ? 'here' : undefined;
    if (!answer) return undefined;
  }
  return { decided: true, ...(answer === 'switch' ? { switchTo: saved } : {}) };
}

/**
 * Opens the plan (when the checkpoint has one and it exists) and shows the checkpoint as a person reads it (beside
 * the plan): a Markdown checkpoint rendered without its front matter, from a document that stays right after the file
 * moved to the trash; a JSON one as its file (never consumed). Failures are logged.
 */
async function openCheckpointAndPlan(s: Services, folder: vscode.WorkspaceFolder, r: ResumeResult, since: string): Promise<void> {
  const plan = r.checkpoint.plan;
  let planOpened = false;
  try {
    if (plan && isAbsolute(plan) && (await exists(plan))) {
      await vscode.window.showTextDocument(vscode.Uri.file(plan), { preview: true });
      planOpened = true;
    }
  } catch (err) {
    s.log.warn(`Could not open the plan ${plan}: ${errorMessage(err)}`);
  }
  try {
    if (r.source === 'markdown') await s.checkpointView.show(folder, r.path, r.checkpoint, planOpened, since);
    else await vscode.window.showTextDocument(vscode.Uri.file(r.path), { preview: true, viewColumn: planOpened ? vscode.ViewColumn.Beside : undefined });
  } catch (err) {
    s.log.warn(`Could not show checkpoint ${r.path}: ${errorMessage(err)}`);
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
  await reopenRestored(entry.trashPath, file).catch((err: unknown) => s.log.warn(`Could not reopen ${file}: ${errorMessage(err)}`));
  s.log.info(`Restored ${entry.trashPath} to ${file}${restored.replaced ? `; the newer version is in ${restored.replaced}` : ''}`);
  void vscode.window.showInformationMessage(
    restored.replaced
      ? `Restored the previous version of checkpoint "${restored.name}"; the version that replaced it is in the trash.`
      : `Restored checkpoint "${restored.name}".`,
  );
  return file;
}

/**
 * Undo put a trashed checkpoint back: an editor still open on the trash path (the file is gone from there) is
 * reopened on the restored file, in its place. A tab with unsaved changes is left as it is.
 */
async function reopenRestored(trashPath: string, restored: string): Promise<void> {
  for (const group of vscode.window.tabGroups.all) {
    const stale = group.tabs.filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'file' && t.input.uri.fsPath === trashPath && !t.isDirty);
    if (stale.length === 0) continue;
    await vscode.window.tabGroups.close(stale, true);
    await vscode.window.showTextDocument(vscode.Uri.file(restored), { viewColumn: group.viewColumn, preview: stale.every((t) => t.isPreview), preserveFocus: true });
  }
}
