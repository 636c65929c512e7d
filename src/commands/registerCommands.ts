import type * as vscode from 'vscode';
import { CommandId } from '../commandIds';
import type { Services } from '../services';
import { statusBarActionsCommand, switchBranchCommand } from './branchCommands';
import { registerCheckpointView } from './checkpointView';
import { combineCommand } from './combineCommand';
import { createCommand } from './createCommand';
import { deleteAllCommand, deleteCommand } from './deleteCommands';
import { copyResumePromptCommand, openCommand, openMemoryFolderCommand, revealCommand } from './fileCommands';
import { resumeCommand, undoCommand } from './resumeCommand';
import { saveAndCommitCommand } from './saveAndCommitCommand';
import { saveCommand } from './saveCommand';
import { compareWithNowCommand, compareWithSavedHeadCommand, pullCommand, pushCommand, registerSnapshotContent, restoreToBranchCommand } from './snapshotCommands';

/** Registers every command (ids as in package.json), each through {@link createCommand}. */
export function registerCommands(s: Services): vscode.Disposable[] {
  const command = (id: string, handler: (arg?: unknown) => Promise<unknown>): vscode.Disposable =>
    createCommand(id, s.log, (arg) => handler(arg));
  return [
    command(CommandId.save, (arg) => saveCommand(s, arg, false)),
    command(CommandId.saveToPlan, (arg) => saveCommand(s, arg, true)),
    command(CommandId.saveAndCommit, (arg) => saveAndCommitCommand(s, arg)),
    // From the tree VS Code passes the clicked node and the whole selection (canSelectMany).
    createCommand(CommandId.combine, s.log, (arg, selection) => combineCommand(s, arg, selection)),
    command(CommandId.resume, (arg) => resumeCommand(s, arg)),
    command(CommandId.undo, (arg) => undoCommand(s, arg)),
    command(CommandId.delete, (arg) => deleteCommand(s, arg)),
    command(CommandId.deleteAll, (arg) => deleteAllCommand(s, arg)),
    command(CommandId.open, (arg) => openCommand(s, arg)),
    command(CommandId.copyResumePrompt, (arg) => copyResumePromptCommand(s, arg)),
    command(CommandId.revealInExplorer, (arg) => revealCommand(s, arg)),
    command(CommandId.openMemoryFolder, (arg) => openMemoryFolderCommand(s, arg)),
    command(CommandId.switchBranch, (arg) => switchBranchCommand(s, arg)),
    command(CommandId.statusBarActions, (arg) => statusBarActionsCommand(s, arg)),
    command(CommandId.refresh, () => s.model.refresh()),
    command(CommandId.showLog, async () => s.log.show()),
    command(CommandId.compareWithNow, (arg) => compareWithNowCommand(s, arg)),
    command(CommandId.compareWithSavedHead, (arg) => compareWithSavedHeadCommand(s, arg)),
    command(CommandId.restoreToBranch, (arg) => restoreToBranchCommand(s, arg)),
    command(CommandId.push, (arg) => pushCommand(s, arg)),
    command(CommandId.pull, (arg) => pullCommand(s, arg)),
    registerSnapshotContent(s),
    registerCheckpointView(s),
  ];
}
