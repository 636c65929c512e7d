import vscode = require('vscode');
import { SNAPSHOT_SCHEME, type CommandIdValue } from '../commandIds';
import type { Services } from '../services';
import { connectClaudeCommand, disconnectClaudeCommand, installCommandLineCommand } from './agentCommands';
import { statusBarActionsCommand, switchBranchCommand } from './branchCommands';
import { combineCommand } from './combineCommand';
import { createCommand } from './createCommand';
import { deleteAllCommand, deleteCommand } from './deleteCommands';
import { doctorCommand } from './doctorCommand';
import { copyResumePromptCommand, openCommand, openMemoryFolderCommand, revealCommand } from './fileCommands';
import { resumeCommand, undoCommand } from './resumeCommand';
import { saveAndCommitCommand } from './saveAndCommitCommand';
import { saveCommand } from './saveCommand';
import { compareWithNowCommand, compareWithSavedHeadCommand, pullCommand, pushCommand, restoreToBranchCommand, snapshotContent } from './snapshotCommands';

/** What a command runs: VS Code's first argument (a tree node, or an options object) and, from the tree, the selection. */
type Handler = (s: Services, arg: unknown, selection: unknown) => Promise<unknown>;

/**
 * Every command, by its id in package.json's `contributes.commands`. Adding a command: its entry in package.json and
 * in `CommandId`, its handler (a function of src/editor/commands/ taking the {@link Services} and VS Code's argument),
 * and its row here (the type refuses a missing or unknown id).
 */
const COMMANDS: Record<CommandIdValue, Handler> = {
  // Saving; from the tree VS Code passes Combine the clicked node and the whole selection (canSelectMany).
  'checkpoint.save': (s, arg) => saveCommand(s, arg, false),
  'checkpoint.saveToPlan': (s, arg) => saveCommand(s, arg, true),
  'checkpoint.saveAndCommit': saveAndCommitCommand,
  'checkpoint.combine': combineCommand,
  // Resuming, deleting and undoing either.
  'checkpoint.resume': resumeCommand,
  'checkpoint.undo': undoCommand,
  'checkpoint.delete': deleteCommand,
  'checkpoint.deleteAll': deleteAllCommand,
  // A checkpoint's file and folder.
  'checkpoint.open': openCommand,
  'checkpoint.copyResumePrompt': copyResumePromptCommand,
  'checkpoint.revealInExplorer': revealCommand,
  'checkpoint.openMemoryFolder': openMemoryFolderCommand,
  // The branch, the view and the log.
  'checkpoint.switchBranch': switchBranchCommand,
  'checkpoint.statusBarActions': statusBarActionsCommand,
  'checkpoint.refresh': (s) => s.model.refresh(),
  'checkpoint.showLog': async (s) => s.log.show(),
  // Snapshots and the git remote.
  'checkpoint.compareWithNow': compareWithNowCommand,
  'checkpoint.compareWithSavedHead': compareWithSavedHeadCommand,
  'checkpoint.restoreToBranch': restoreToBranchCommand,
  'checkpoint.push': pushCommand,
  'checkpoint.pull': pullCommand,
  // The command line and Claude Code.
  'checkpoint.installCommandLine': installCommandLineCommand,
  'checkpoint.connectClaude': connectClaudeCommand,
  'checkpoint.disconnectClaude': disconnectClaudeCommand,
  'checkpoint.doctor': doctorCommand,
};

/** Registers every command of {@link COMMANDS}, each through {@link createCommand}, and the snapshots' documents. */
export function registerCommands(s: Services): vscode.Disposable[] {
  return [
    ...Object.entries(COMMANDS).map(([id, handler]) => createCommand(id, s.log, (arg, selection) => handler(s, arg, selection))),
    vscode.workspace.registerTextDocumentContentProvider(SNAPSHOT_SCHEME, { provideTextDocumentContent: (uri) => snapshotContent(s, uri) }),
  ];
}
