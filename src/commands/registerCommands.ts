import vscode = require('vscode');
import { CommandId, SNAPSHOT_SCHEME } from '../commandIds';
import type { CommandLine } from '../commandLine';
import { onFirstUse } from '../loadCore';
import type { Services } from '../services';
import { registerCheckpointView } from './checkpointView';
import { createCommand } from './createCommand';

type Handlers = typeof import('./handlers');
/** The commands' code, loaded on the first command run. */
const handlers = onFirstUse(() => import('./handlers'));

/** Registers every command (ids as in package.json), each through {@link createCommand}. */
export function registerCommands(s: Services, cl: CommandLine): vscode.Disposable[] {
  const command = (id: string, handler: (h: Handlers, arg?: unknown) => Promise<unknown>): vscode.Disposable =>
    createCommand(id, s.log, async (arg) => handler(await handlers(), arg));
  return [
    // Saving; from the tree VS Code passes Combine the clicked node and the whole selection (canSelectMany).
    command(CommandId.save, (h, arg) => h.saveCommand(s, arg, false)),
    command(CommandId.saveToPlan, (h, arg) => h.saveCommand(s, arg, true)),
    command(CommandId.saveAndCommit, (h, arg) => h.saveAndCommitCommand(s, arg)),
    createCommand(CommandId.combine, s.log, async (arg, selection) => (await handlers()).combineCommand(s, arg, selection)),
    // Resuming, deleting and undoing either.
    command(CommandId.resume, (h, arg) => h.resumeCommand(s, arg)),
    command(CommandId.undo, (h, arg) => h.undoCommand(s, arg)),
    command(CommandId.delete, (h, arg) => h.deleteCommand(s, arg)),
    command(CommandId.deleteAll, (h, arg) => h.deleteAllCommand(s, arg)),
    // A checkpoint's file and folder.
    command(CommandId.open, (h, arg) => h.openCommand(s, arg)),
    command(CommandId.copyResumePrompt, (h, arg) => h.copyResumePromptCommand(s, arg)),
    command(CommandId.revealInExplorer, (h, arg) => h.revealCommand(s, arg)),
    command(CommandId.openMemoryFolder, (h, arg) => h.openMemoryFolderCommand(s, arg)),
    // The branch, the view and the log.
    command(CommandId.switchBranch, (h, arg) => h.switchBranchCommand(s, arg)),
    command(CommandId.statusBarActions, (h, arg) => h.statusBarActionsCommand(s, arg)),
    createCommand(CommandId.refresh, s.log, () => s.model.refresh()),
    createCommand(CommandId.showLog, s.log, async () => s.log.show()),
    // Snapshots and the git remote.
    command(CommandId.compareWithNow, (h, arg) => h.compareWithNowCommand(s, arg)),
    command(CommandId.compareWithSavedHead, (h, arg) => h.compareWithSavedHeadCommand(s, arg)),
    command(CommandId.restoreToBranch, (h, arg) => h.restoreToBranchCommand(s, arg)),
    command(CommandId.push, (h, arg) => h.pushCommand(s, arg)),
    command(CommandId.pull, (h, arg) => h.pullCommand(s, arg)),
    vscode.workspace.registerTextDocumentContentProvider(SNAPSHOT_SCHEME, {
      provideTextDocumentContent: async (uri) => (await handlers()).snapshotContent(s, uri),
    }),
    // The command line and Claude Code.
    command(CommandId.installCommandLine, (h, arg) => h.installCommandLineCommand(cl, arg)),
    command(CommandId.connectClaude, (h, arg) => h.connectClaudeCommand(s, cl, arg)),
    command(CommandId.disconnectClaude, (h, arg) => h.disconnectClaudeCommand(s, arg)),
    registerCheckpointView(s),
  ];
}
