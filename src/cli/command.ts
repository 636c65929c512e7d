import type { ParseArgsConfig } from 'node:util';
import type { CheckpointStore } from '../core/store';
import type { ResolvedMemoryDir } from '../core/memoryDir';
import type { Reads } from '../core/reads';

export type Options = NonNullable<ParseArgsConfig['options']>;
type Option = Options[string];

type OptionValue<O extends Option> = O extends { type: 'string' }
  ? O extends { multiple: true } ? string[] : string
  : O extends { multiple: true } ? boolean[] : boolean;

/** Parsed option values: every option of the command and the global ones, absent when not given. */
export type Values<O extends Options> = { [K in keyof O]?: OptionValue<O[K]> } & { dir?: string; cwd?: string; json?: boolean; yes?: boolean };

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** The whole of stdin (`hook` reads the hook's JSON there); default: the process's stdin. */
  stdin?: () => Promise<string>;
  /** Called when a command gave up after its time limit, so the process ends without waiting for the work. */
  abandon?: () => void;
  /**
   * Asks the person at the terminal (the question on stderr) and returns the line answered ('' at the end of
   * input). Absent when stdin or stderr is not a terminal: nobody to ask.
   */
  ask?: (question: string) => Promise<string | undefined>;
}

/** What a command runs with; the memory directory and the store are resolved on first use. */
export interface CommandContext<O extends Options = Options> {
  values: Values<O>;
  positionals: string[];
  /** The first positional argument: a command whose `positionals` is `'name'` always has one ('' for the others without it). */
  name: string;
  /** `--json` was given. */
  json: boolean;
  /** The workspace folder (`--cwd`, else the current directory), absolute. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  io: Io;
  /** The memory folder of `folder` (default {@link cwd}): where its checkpoints go, what Claude Code makes of it. */
  memoryDir(folder?: string): Promise<ResolvedMemoryDir>;
  /** The checkpoints of `folder` (default {@link cwd}), in its memory folder; one store per folder and run. */
  store(folder?: string): Promise<CheckpointStore>;
  /** How this run reads files: the command's {@link Command.reads}, else inline (a one-shot process). */
  reads: Reads;
  /** Prints `human`, or with `--json` `data` and the command's `warnings` as one JSON object. */
  print(human: string, data: object): void;
  /** Prints `human`, or with `--json` `items` as a JSON array (a listing's shape; its warnings are on stderr only). */
  printList(human: string, items: object[]): void;
  /** A problem that did not stop the command: `Warning: …` on stderr, and in --json's `warnings`. */
  warn(message: string): void;
  /** Something worth knowing: `Note: …` on stderr, and in --json's `warnings`. */
  note(message: string): void;
  /**
   * Before something hard to undo: on a terminal, asks (`question` [y/N]) and throws (exit 1, nothing done) unless
   * the answer is yes. Without a terminal, or with `--yes`, goes on.
   */
  confirm(question: string): Promise<void>;
  /** Someone at a terminal will be asked by {@link confirm}: stdin and stderr are a terminal, and no --yes. */
  interactive: boolean;
  /** Asks for a line on a terminal; undefined when there is no terminal or no answer. */
  ask(question: string): Promise<string | undefined>;
}

/** One CLI command: the whole of it, so adding a command is one entry in the table of `src/cli.ts`. */
export interface Command<O extends Options = Options> {
  /** Synopsis for the top-level help, e.g. `save <name>`. */
  synopsis: string;
  /** One line for the top-level help. */
  summary: string;
  /**
   * The command's help: its first line is the usage line repeated under a usage error; it describes every option
   * of the command (a test checks both). The example follows it.
   */
  help: string;
  /** A command line that uses the command: the last thing its help shows, under `Example:`. */
  example: string;
  /** Where that command line is written, when not at a terminal: `Example (<exampleWhere>):`. */
  exampleWhere?: string;
  /** The command's own options (the global ones are added). */
  options: O;
  /**
   * Most positional arguments accepted; `'name'`: exactly one, a checkpoint's name, required (without it, a usage
   * error that shows the synopsis).
   */
  positionals: number | 'name';
  /** Returns the exit code (default 0). Throw `UsageError` for exit 2, `CheckpointError` (or any error) for 1. */
  run(ctx: CommandContext<O>): Promise<number | void>;
  /**
   * Never fails (an agent's hook): every problem, bad usage included, goes to stderr as one line and the exit code
   * is 0.
   */
  neverFails?: boolean;
  /**
   * How the command reads files when not inline (a one-shot process waits on nothing else): a command with a time
   * limit of its own reads through the thread pool, so that its timer fires while a read hangs.
   */
  reads?: Reads;
}

/** Types a command's `run` by its own options. */
export function defineCommand<const O extends Options>(command: Command<O>): Command {
  return command as unknown as Command;
}
