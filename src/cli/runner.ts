import { parseArgs } from 'node:util';
import { isFolder } from '../core/files';
import { inlineReads } from '../core/reads';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { CheckpointError, UsageError, errorMessage } from '../core/errors';
import { didYouMean } from '../core/suggest';
import { AmbiguousNameError, printable } from '../core/names';
import { AmbiguousCheckpointError, CheckpointExistsError, CheckpointNotFoundError } from '../core/storeTypes';
import { resolveMemoryDir, type ResolvedMemoryDir } from '../core/memoryDir';
import { openStore } from '../core/openStore';
import type { CheckpointStore } from '../core/store';
import { agentLine, terminalText } from '../core/escaping';
import type { Command, CommandContext, Io, Options } from './command';
import { askTerminal, fdWriter, isTerminal } from './processIo';

/** Set by the bundler from package.json (scripts/build.mjs); absent when the CLI runs from the tsc output. */
declare const CHECKPOINT_VERSION: string | undefined;
const VERSION = typeof CHECKPOINT_VERSION === 'string' ? CHECKPOINT_VERSION : '0.0.0-dev';

const GLOBAL: Options = {
  dir: { type: 'string' },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

const COMMON = `Options for every command:
  --dir DIR     memory directory (default: $CHECKPOINT_MEMORY_DIR, Claude Code's memory folder, or .claude/memory)
  --cwd DIR     workspace folder (default: the current directory)
  --json        machine-readable output on stdout, errors included: {"error": {"code", "message"}} (the shapes:
                schema/checkpoint-cli.schema.json in the package)
  -h, --help    this help`;

/** The error codes of `--json`'s `{"error": {"code", "message"}}`. */
function errorCode(err: unknown): string {
  if (err instanceof UsageError) return 'usage';
  if (err instanceof CheckpointNotFoundError) return 'not-found';
  if (err instanceof CheckpointExistsError) return 'exists';
  if (err instanceof AmbiguousCheckpointError || err instanceof AmbiguousNameError) return 'ambiguous';
  if (err instanceof DeclinedError) return 'declined';
  return 'error';
}

/** Raised when the person at the terminal answered no to a confirmation: nothing was done (exit 1). */
export class DeclinedError extends CheckpointError {
  constructor() {
    super('Nothing done.');
    this.name = 'DeclinedError';
  }
}

/** One voice for every message: a sentence, starting with a capital letter. */
function sentence(message: string): string {
  const s = message.trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The top-level help: every command of the table, its summary starting past the longest synopsis. */
function topHelp(commands: Record<string, Command>): string {
  const width = Math.max(19, ...Object.values(commands).map((c) => c.synopsis.length + 2));
  return `checkpoint — remember where you left off (shared with your AI coding agent)

Usage: checkpoint <command> [options]

Commands:
${Object.values(commands).map((c) => `  ${c.synopsis.padEnd(width)}${c.summary}`).join('\n')}

${COMMON}

  -v, --version print the version

Exit codes: 0 success, 1 user error (nothing written), 2 bad usage.
Run "checkpoint <command> --help" for a command's options and an example.`;
}

function commandHelp(c: Command): string {
  return `${c.help}\n\nExample${c.exampleWhere ? ` (${c.exampleWhere})` : ''}:\n  ${c.example}\n\n${COMMON}`;
}

/** Options that take a value as the next word (unless written `--opt=value`). */
function valuedOptions(commands: Record<string, Command>): Set<string> {
  return new Set(
    [GLOBAL, ...Object.values(commands).map((c) => c.options)]
      .flatMap((o) => Object.entries(o))
      .filter(([, o]) => o.type === 'string')
      .map(([k]) => `--${k}`),
  );
}

/** The command is the first word that is neither an option nor an option's value (`checkpoint --dir M list`). */
function commandIndex(argv: string[], valued: Set<string>): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (!a.startsWith('-')) return i;
    if (valued.has(a)) i++;
  }
  return -1;
}

/**
 * Refuses an option the command does not have, a value missing or given to a switch, in the CLI's own words (Node's
 * parser's messages name its own syntax); nearest options suggested.
 */
function checkOptions(command: Command, args: string[], synopsis: string): void {
  const options = { ...GLOBAL, ...command.options };
  const shorts = new Map(Object.entries(options).flatMap(([k, o]) => (o.short ? [[o.short, k] as const] : [])));
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return;
    if (!a.startsWith('-') || a === '-') continue;
    const eq = a.indexOf('=');
    const long = a.startsWith('--');
    const key = long ? a.slice(2, eq < 0 ? undefined : eq) : (shorts.get(a.slice(1, 2)) ?? '');
    const option = Object.hasOwn(options, key) ? options[key] : undefined;
    if (!option) {
      const shown = printable(long ? a.slice(0, eq < 0 ? undefined : eq) : a.slice(0, 2));
      throw new UsageError(`Unknown option ${shown} for checkpoint ${synopsis}.${didYouMean(shown.replace(/^-+/, ''), Object.keys(options), (k) => `--${k}`)}`);
    }
    if (option.type === 'boolean' && long && eq >= 0) throw new UsageError(`--${key} takes no value.`);
    if (option.type === 'string' && (long ? eq < 0 : a.length === 2)) {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith('-') && next !== '-')) throw new UsageError(`--${key} needs a value${next === undefined ? '' : ` (to give one that starts with "-", write --${key}=${printable(next)})`}.`);
      i++;
    }
  }
}

function parse(command: Command, args: string[], synopsis: string): { values: Record<string, unknown>; positionals: string[] } {
  checkOptions(command, args, synopsis);
  try {
    return parseArgs({ args, options: { ...GLOBAL, ...command.options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(printable(errorMessage(err).split('\n')[0], 400).replace(/\. To specify a positional argument.*$/s, ''));
  }
}

/** This process's current folder; a clear error when it was deleted (or moved) under the shell that started it. */
function currentFolder(): string {
  try {
    return process.cwd();
  } catch {
    throw new CheckpointError('The current folder no longer exists (it was deleted or moved): cd to a folder that exists, or pass --cwd with one.');
  }
}

/** The promise kept under `key`, made by `make` the first time. */
function once<T>(kept: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  let p = kept.get(key);
  if (!p) kept.set(key, (p = make()));
  return p;
}

async function context(
  command: Command,
  args: string[],
  io: Io,
  env: NodeJS.ProcessEnv,
  workDir: string | undefined,
  warnings: string[],
): Promise<CommandContext | undefined> {
  const { values, positionals } = parse(command, args, command.synopsis);
  if (values.help) {
    io.out(commandHelp(command));
    return undefined;
  }
  const most = command.positionals === 'name' ? 1 : command.positionals;
  if (positionals.length > most) throw new UsageError(`Unexpected argument "${printable(positionals[most])}": checkpoint ${command.synopsis}`);
  if (command.positionals === 'name' && positionals[0] === undefined) {
    throw new UsageError(`A checkpoint name is required: checkpoint ${command.synopsis}`);
  }
  const json = values.json === true;
  const given = typeof values.cwd === 'string' ? values.cwd : '.';
  // An absolute --cwd needs no current folder (which may have been deleted under the shell).
  const cwd = isAbsolute(given) ? resolvePath(given) : resolvePath(workDir ?? currentFolder(), given);
  // The one place a command's reads are chosen: inline, unless the command says otherwise.
  const reads = command.reads ?? inlineReads;
  if (typeof values.cwd === 'string') {
    if (!(await isFolder(cwd, reads))) throw new CheckpointError(`--cwd ${cwd} is not a folder.`);
  }
  // Each folder's memory folder and store, resolved on first use, once. The CLI runs what its user asked for in
  // their own folder: a trusted workspace (the folder's Claude Code settings count). A command is a one-shot process:
  // it reads as the command says (`checkpoint mcp` opens its own stores).
  const resolved = new Map<string, Promise<ResolvedMemoryDir>>();
  const stores = new Map<string, Promise<CheckpointStore>>();
  const memoryDir = (folder = cwd): Promise<ResolvedMemoryDir> =>
    once(resolved, folder, () => resolveMemoryDir({ cwd: folder, configured: values.dir as string | undefined, env, trusted: true, reads }));
  const store = (folder = cwd): Promise<CheckpointStore> =>
    once(stores, folder, async () => (await openStore({ cwd: folder, env, resolved: await memoryDir(folder), reads })).store);
  return {
    values: values as CommandContext['values'],
    positionals,
    name: positionals[0] ?? '',
    json,
    cwd,
    env,
    io,
    memoryDir,
    store,
    reads,
    print: (human, data) => io.out(json ? JSON.stringify({ ...data, warnings }, null, 2) : human),
    printList: (human, items) => io.out(json ? JSON.stringify(items, null, 2) : human),
    warn: (message) => {
      warnings.push(message);
      io.err(`Warning: ${message}`);
    },
    note: (message) => {
      warnings.push(message);
      io.err(`Note: ${message}`);
    },
    confirm: async (question) => {
      if (values.yes === true || !io.ask) return;
      const answer = await io.ask(`${question} [y/N] `);
      if (!/^\s*y(es)?\s*$/i.test(answer ?? '')) throw new DeclinedError();
    },
    ask: (question) => (io.ask ? io.ask(question) : Promise.resolve(undefined)),
    interactive: values.yes !== true && io.ask !== undefined,
  };
}

/**
 * Runs a CLI of these commands; returns the exit code. `workDir` stands for the process's current directory (the
 * default `--cwd`, and what a relative `--cwd` is resolved against).
 */
export type Cli = (argv: string[], rawIo: Io, env?: NodeJS.ProcessEnv, workDir?: string) => Promise<number>;

/** The CLI of a table of commands: parsing, help, the global options and the exit codes, the same for every table. */
export function commandLine(commands: Record<string, Command>): Cli {
  const valued = valuedOptions(commands);
  const TOP_HELP = topHelp(commands);
  return async (argv, rawIo, env = process.env, workDir = undefined) => {
    // Everything printed reaches a terminal or an agent: control characters from files, names or git never go raw.
    const io: Io = { ...rawIo, out: (s) => rawIo.out(terminalText(s)), err: (s) => rawIo.err(terminalText(s)) };
    const at = commandIndex(argv, valued);
    const name = at >= 0 ? argv[at] : '';
    const rest = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 1)] : argv;
    const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
    // What the command warned of, for --json's "warnings" (an error's too).
    const warnings: string[] = [];
    const json = argv.slice(0, argv.indexOf('--') < 0 ? undefined : argv.indexOf('--')).includes('--json');
    const unknownCommand = (word: string): UsageError => new UsageError(`Unknown command "${printable(word)}".${didYouMean(word, Object.keys(commands))}`);
    try {
      if (name === 'help') {
        const topic = argv[at + 1] ?? '';
        if (topic && !Object.hasOwn(commands, topic)) throw unknownCommand(topic);
        io.out(topic ? commandHelp(commands[topic]) : TOP_HELP);
        return 0;
      }
      if (name && !command) throw unknownCommand(name);
      if (!command) {
        if (rest.some((a) => a === '--version' || a === '-v' || a === '-V')) {
          io.out(VERSION);
          return 0;
        }
        if (rest.includes('--help') || rest.includes('-h')) {
          io.out(TOP_HELP);
          return 0;
        }
        const flag = rest.find((a) => a.startsWith('-'));
        throw new UsageError(
          flag
            ? `Unknown option ${printable(flag.split('=')[0])}: options other than --help and --version go after a command.${didYouMean(flag.split('=')[0].replace(/^-+/, ''), ['help', 'version'], (k) => `--${k}`)}`
            : 'A command is required.',
        );
      }
      const ctx = await context(command, rest, io, env, workDir, warnings);
      if (!ctx) return 0;
      return (await command.run(ctx)) ?? 0;
    } catch (err) {
      if (command?.neverFails) {
        io.err(`checkpoint ${name}: ${agentLine(errorMessage(err), 1000)}; nothing done.`);
        return 0;
      }
      const message = sentence(errorMessage(err));
      if (json) io.out(JSON.stringify({ error: { code: errorCode(err), message }, warnings }, null, 2));
      if (err instanceof UsageError) {
        io.err(`checkpoint: ${message}\n${command ? command.help.split('\n')[0] : 'Usage: checkpoint <command> [options]'}\nRun "checkpoint ${command ? `${name} ` : ''}--help" for more.`);
        return 2;
      }
      io.err(`checkpoint: ${message}`);
      return 1;
    }
  };
}

/**
 * Runs `cli` as this process: output to stdout/stderr, the exit code as the process's. `onGiveUp` is called when a
 * run gives up (a hook past its time limit) and exits at once.
 */
export function runAsProcess(cli: Cli, argv: string[], onGiveUp?: () => void): void {
  const out = fdWriter(1, () => process.stdout);
  const err = fdWriter(2, () => process.stderr);
  // Someone to ask only when both stdin and stderr are a terminal (two fstat calls; no stream is set up for it).
  const terminal = isTerminal(0) && isTerminal(2);
  void cli(argv, {
    ask: terminal ? askTerminal : undefined,
    // A line goes out in one write (another process's output sharing the pipe never lands inside it); a listing's
    // megabyte and its newline go apart, so that it is not copied to add it.
    out: (s) => {
      if (s.length < 65536) out.write(`${s}\n`);
      else {
        out.write(s);
        out.write('\n');
      }
    },
    err: (s) => err.write(`${s}\n`),
    abandon: () => {
      onGiveUp?.();
      // Node's exit waits for the thread pool's threads: a read still in one (a file system that hangs) would hold
      // the exit for ever, so the process ends by a signal then.
      out.flushed(() => {
        if (process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq'))) process.kill(process.pid, 'SIGKILL');
        else process.exit(0);
      });
    },
  }).then((code) => {
    process.exitCode = code;
  });
}
