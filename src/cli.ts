// The whole CLI: every command. dist/cli.js loads it for every command but `hook` (src/cliEntry.ts).
import { commandLine, runAsProcess } from './cli/runner';
import type { Command } from './cli/command';
import { combineCommand } from './cli/combine';
import { deleteCommand } from './cli/delete';
import { dirCommand } from './cli/dir';
import { hookCommand } from './cli/hook';
import { pendingCommand } from './cli/pending';
import { listCommand } from './cli/list';
import { mcpCommand } from './cli/mcp';
import { restoreCommand } from './cli/restore';
import { resumeCommand } from './cli/resume';
import { saveCommand } from './cli/save';
import { showCommand } from './cli/show';
import { diffCommand } from './cli/diff';
import { branchCommand } from './cli/branch';
import { pushCommand } from './cli/push';
import { pullCommand } from './cli/pull';
import { gcCommand } from './cli/gc';
import { trashCommand } from './cli/trash';
import { completionCommand } from './cli/completion';

/** The commands, in the order the top-level help lists them. Adding a command is one entry here. */
const COMMANDS: Record<string, Command> = {
  save: saveCommand,
  list: listCommand,
  show: showCommand,
  resume: resumeCommand,
  delete: deleteCommand,
  restore: restoreCommand,
  trash: trashCommand,
  combine: combineCommand,
  dir: dirCommand,
  pending: pendingCommand,
  hook: hookCommand,
  mcp: mcpCommand,
  diff: diffCommand,
  branch: branchCommand,
  push: pushCommand,
  pull: pullCommand,
  gc: gcCommand,
  completion: completionCommand(() => COMMANDS),
};

/** Runs the CLI; returns the exit code. Exported for tests; `main` wires it to the process. */
export const run = commandLine(COMMANDS);

export const main = (argv: string[]): void => runAsProcess(run, argv);
