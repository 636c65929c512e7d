// The whole CLI: every command, built into dist/cli-main.js, which dist/cli.js loads (src/cli/entry.ts).
import { commandLine, runAsProcess } from './runner';
import type { Command } from './command';
import { combineCommand } from './combine';
import { deleteCommand } from './delete';
import { dirCommand } from './dir';
import { doctorCommand } from './doctor';
import { hookCommand } from './hook';
import { pendingCommand } from './pending';
import { listCommand } from './list';
import { mcpCommand } from './mcp';
import { restoreCommand } from './restore';
import { resumeCommand } from './resume';
import { saveCommand } from './save';
import { showCommand } from './show';
import { diffCommand } from './diff';
import { branchCommand } from './branch';
import { pushCommand } from './push';
import { pullCommand } from './pull';
import { gcCommand } from './gc';
import { trashCommand } from './trash';
import { completionCommand } from './completion';

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
  doctor: doctorCommand,
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

export const main = (argv: string[], onGiveUp?: () => void): void => runAsProcess(run, argv, onGiveUp);
