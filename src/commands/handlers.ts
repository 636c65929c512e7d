// What the commands do, loaded on the first run of one (`import('./handlers')` in registerCommands.ts; the build
// makes it a file of its own): activation registers the command ids and parses none of this.
export { connectClaudeCommand, disconnectClaudeCommand, installCommandLineCommand } from './agentCommands';
export { statusBarActionsCommand, switchBranchCommand } from './branchCommands';
export { combineCommand } from './combineCommand';
export { deleteAllCommand, deleteCommand } from './deleteCommands';
export { copyResumePromptCommand, openCommand, openMemoryFolderCommand, revealCommand } from './fileCommands';
export { resumeCommand, undoCommand } from './resumeCommand';
export { saveAndCommitCommand } from './saveAndCommitCommand';
export { saveCommand } from './saveCommand';
export { compareWithNowCommand, compareWithSavedHeadCommand, pullCommand, pushCommand, restoreToBranchCommand, snapshotContent } from './snapshotCommands';
