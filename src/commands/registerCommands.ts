import type * as vscode from 'vscode';
import type { Services } from '../services';
import { statusBarActionsCommand, switchBranchCommand } from './branchCommands';
import { createCommand } from './createCommand';
import { deleteAllCommand, deleteCommand } from './deleteCommands';
import { copyResumePromptCommand, openCommand, openMemoryFolderCommand, revealCommand } from './fileCommands';
import { resumeCommand, undoCommand } from './resumeCommand';
import { saveCommand } from './saveCommand';

/** Registers every command (ids as in package.json), each through {@link createCommand}. */
export function registerCommands(s: Services): vscode.Disposable[] {
  const command = (id: string, handler: (arg?: unknown) => Promise<unknown>): vscode.Disposable =>
    createCommand(id, s.log, (arg) => handler(arg));
  return [
    command('checkpoint.save', (arg) => saveCommand(s, arg, false)),
    command('checkpoint.saveToPlan', (arg) => saveCommand(s, arg, true)),
    command('checkpoint.resume', (arg) => resumeCommand(s, arg)),
    command('checkpoint.undo', (arg) => undoCommand(s, arg)),
    command('checkpoint.delete', (arg) => deleteCommand(s, arg)),
    command('checkpoint.deleteAll', (arg) => deleteAllCommand(s, arg)),
    command('checkpoint.open', (arg) => openCommand(s, arg)),
    command('checkpoint.copyResumePrompt', (arg) => copyResumePromptCommand(s, arg)),
    command('checkpoint.revealInExplorer', (arg) => revealCommand(s, arg)),
    command('checkpoint.openMemoryFolder', (arg) => openMemoryFolderCommand(s, arg)),
    command('checkpoint.switchBranch', (arg) => switchBranchCommand(s, arg)),
    command('checkpoint.statusBarActions', (arg) => statusBarActionsCommand(s, arg)),
    command('checkpoint.refresh', async () => {
      await s.model.refresh();
      s.tree.reload();
    }),
    command('checkpoint.showLog', async () => s.log.show()),
  ];
}
