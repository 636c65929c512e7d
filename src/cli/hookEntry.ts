// `checkpoint hook <event>`, which Claude Code runs at every session start and before every compaction: the hook
// command alone, bundled apart (dist/hook.js) so that those runs do not load the rest of the CLI. Same runner, so
// the same options, help and exit codes as `checkpoint hook` in the whole CLI.
import type { Command } from './command';
import { hookCommand } from './hook';
import { commandLine, runAsProcess } from './runner';

const COMMANDS: Record<string, Command> = { hook: hookCommand };

export const run = commandLine(COMMANDS);

export const main = (argv: string[]): void => runAsProcess(run, argv);
