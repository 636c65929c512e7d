import { parseArgs, type ParseArgsConfig } from 'node:util';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, UsageError, errorMessage } from './core/errors';
import { resolveMemoryDir } from './core/memoryDir';
import { AmbiguousCheckpointError, CheckpointExistsError, CheckpointStore, OrphanRemovedError, type CheckpointSummary } from './core/store';
import { formatLocalDateTime, formatRelative } from './core/dates';
import { resumeSummary } from './core/resumeText';

const VERSION = '0.1.0';

const COMMON = `Options for every command:
  --dir DIR     memory directory (default: $CHECKPOINT_MEMORY_DIR, Claude Code's memory folder, or .claude/memory)
  --cwd DIR     workspace folder (default: the current directory)
  --json        machine-readable output on stdout
  -h, --help    this help`;

const HELP: Record<string, string> = {
  '': `checkpoint — remember where you left off (shared with your AI coding agent)

Usage: checkpoint <command> [options]

Commands:
  save <name>        save where work stopped (branch and modified files come from git)
  list               list checkpoints, newest first
  show <name>        print one checkpoint
  resume [<name>]    print a checkpoint to pick up from, then move it to trash (--keep to keep it)
  delete <name>      move a checkpoint to trash (--all: every checkpoint)
  dir                print the memory directory

${COMMON}

Exit codes: 0 success, 1 user error (nothing written), 2 bad usage.
Run "checkpoint <command> --help" for a command's options.`,
  save: `Usage: checkpoint save <name> [options]

Saves <memory dir>/checkpoint-<name>.md and its line in MEMORY.md.
  --left-off TEXT   where work stopped (1-3 lines; its first line is the summary)
  --done TEXT       something done this session (repeatable)
  --failed TEXT     an approach that failed, and why (repeatable)
  --decision TEXT   a decision and its reason (repeatable)
  --question TEXT   an open question (repeatable)
  --plan PATH       the plan file; step N of M is read from its checklist
  --force           overwrite an existing checkpoint of that name

${COMMON}`,
  list: `Usage: checkpoint list [options]

Lists checkpoints, newest first. Files that cannot be parsed are listed as unreadable, with the reason.

${COMMON}`,
  show: `Usage: checkpoint show <name> [options]

Prints one checkpoint (with --json: every field and section).

${COMMON}`,
  resume: `Usage: checkpoint resume [<name>] [--keep] [options]

Prints the checkpoint to pick up from, warns when you are on another branch than the one it was saved on,
lists approaches that failed before, and moves it to <memory dir>/.trash/<date>/ (consumed) unless --keep.
Without a name: the only checkpoint; with several, names them and exits 1.
  --keep   do not consume the checkpoint

${COMMON}`,
  delete: `Usage: checkpoint delete <name> | --all [options]

Moves a checkpoint (or, with --all, every checkpoint) to <memory dir>/.trash/<date>/ and updates MEMORY.md.
  --all    every checkpoint

${COMMON}`,
  dir: `Usage: checkpoint dir [options]

Prints the resolved memory directory.

${COMMON}`,
};

type Options = NonNullable<ParseArgsConfig['options']>;
const GLOBAL: Options = {
  dir: { type: 'string' },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};
const COMMAND_OPTIONS: Record<string, Options> = {
  save: {
    'left-off': { type: 'string' },
    done: { type: 'string', multiple: true },
    failed: { type: 'string', multiple: true },
    decision: { type: 'string', multiple: true },
    question: { type: 'string', multiple: true },
    plan: { type: 'string' },
    force: { type: 'boolean' },
  },
  list: {},
  show: {},
  resume: { keep: { type: 'boolean' } },
  delete: { all: { type: 'boolean' } },
  dir: {},
};
const MAX_POSITIONALS: Record<string, number> = { save: 1, list: 0, show: 1, resume: 1, delete: 1, dir: 0 };

/** Options that take a value as the next word (unless written `--opt=value`). */
const VALUED = new Set(
  Object.entries({ ...GLOBAL, ...Object.assign({}, ...Object.values(COMMAND_OPTIONS)) } as Options)
    .filter(([, o]) => o.type === 'string')
    .map(([k]) => `--${k}`),
);

function commandIndex(argv: string[]): number {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return i + 1 < argv.length ? i + 1 : -1;
    if (!a.startsWith('-')) return i;
    if (VALUED.has(a)) i++;
  }
  return -1;
}

interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
}

function listJson(c: CheckpointSummary): Record<string, unknown> {
  const o: Record<string, unknown> = {
    name: c.name,
    path: c.path,
    branch: c.branch,
    saved: c.saved,
    description: c.description,
    plan: c.plan ?? null,
    planStep: c.planStep ?? null,
    planSteps: c.planSteps ?? null,
  };
  if (c.unreadable !== undefined) o.unreadable = c.unreadable;
  return o;
}

function listLine(c: CheckpointSummary): string {
  if (c.unreadable) return `${c.name}  (unreadable: ${c.unreadable})  ${c.path}`;
  const where = [c.branch || 'no branch', formatRelative(c.saved)].join(' · ');
  return `${c.name}  [${where}]  ${c.description}`;
}

/** Runs the CLI; returns the exit code. Exported for tests; `main` wires it to the process. */
export async function run(argv: string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // The command is the first word that is neither an option nor an option's value, so global options may
  // come first (`checkpoint --dir M list`).
  const at = commandIndex(argv);
  const command = at >= 0 ? argv[at] : '';
  const rest = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 1)] : argv;
  try {
    if (command === 'help') {
      io.out(HELP[argv[1] ?? ''] ?? HELP['']);
      return 0;
    }
    if (command && !(command in COMMAND_OPTIONS)) throw new UsageError(`unknown command "${command}"`);
    if (!command) {
      if (rest.includes('--version')) {
        io.out(VERSION);
        return 0;
      }
      if (rest.includes('--help') || rest.includes('-h')) {
        io.out(HELP['']);
        return 0;
      }
      throw new UsageError('a command is required');
    }
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...GLOBAL, ...COMMAND_OPTIONS[command] }, allowPositionals: true, strict: true });
    } catch (err) {
      throw new UsageError(errorMessage(err).replace(/\. To specify a positional argument.*$/s, ''));
    }
    const { values, positionals } = parsed;
    if (values.help) {
      io.out(HELP[command]);
      return 0;
    }
    if (positionals.length > MAX_POSITIONALS[command]) throw new UsageError(`unexpected argument "${positionals[MAX_POSITIONALS[command]]}"`);
    const json = values.json === true;
    const cwd = path.resolve(typeof values.cwd === 'string' ? values.cwd : process.cwd());
    if (typeof values.cwd === 'string') {
      const ok = await fs.stat(cwd).then((s) => s.isDirectory(), () => false);
      if (!ok) throw new CheckpointError(`--cwd ${cwd} is not a folder.`);
    }
    const resolved = await resolveMemoryDir({ cwd, configured: values.dir as string | undefined, env });
    const store = new CheckpointStore({ memoryDir: resolved.dir, cwd, syncReads: true });
    const name = positionals[0];
    const print = (human: string, data: unknown): void => io.out(json ? JSON.stringify(data, null, 2) : human);

    switch (command) {
      case 'dir':
        print(resolved.dir, { dir: resolved.dir, source: resolved.source });
        return 0;
      case 'save': {
        if (name === undefined) throw new UsageError('save needs a name: checkpoint save <name>');
        try {
          const r = await store.save({
            name,
            leftOff: values['left-off'] as string | undefined,
            done: values.done as string[] | undefined,
            failed: values.failed as string[] | undefined,
            decisions: values.decision as string[] | undefined,
            questions: values.question as string[] | undefined,
            plan: values.plan as string | undefined,
            force: values.force === true,
          });
          for (const w of r.warnings) io.err(`Warning: ${w}`);
          const cp = r.checkpoint;
          print(`Checkpoint "${cp.name}" saved. Resume anytime: \`continue ${cp.name}\`\n${r.path}`, {
            name: cp.name,
            path: r.path,
            branch: cp.branch,
            saved: cp.saved,
            modifiedFiles: cp.modifiedFiles,
          });
          return 0;
        } catch (err) {
          if (err instanceof CheckpointExistsError) throw new CheckpointError(`${err.message} Use --force to overwrite it.`);
          throw err;
        }
      }
      case 'list': {
        const items = await store.list({ details: false });
        if (json) io.out(JSON.stringify(items.map(listJson), null, 2));
        else io.out(items.length ? items.map(listLine).join('\n') : 'No saved checkpoints found.');
        return 0;
      }
      case 'show': {
        if (name === undefined) throw new UsageError('show needs a name: checkpoint show <name>');
        const cp = await store.show(name);
        if (json) io.out(JSON.stringify({ ...cp, failedApproaches: cp.failed }, null, 2));
        else io.out(cp.path.endsWith('.md') ? (await fs.readFile(cp.path, 'utf8')).trimEnd() : resumeSummary(cp, { currentBranch: '' }));
        return 0;
      }
      case 'resume': {
        let r;
        try {
          r = await store.resume(name, { keep: values.keep === true });
        } catch (err) {
          if (err instanceof OrphanRemovedError) {
            print(err.message, { name: err.checkpointName, orphanRemoved: true, consumed: false });
            return 0;
          }
          if (err instanceof AmbiguousCheckpointError && !json) {
            throw new CheckpointError(
              `Several checkpoints; name one:\n${err.candidates.map((c) => `  ${c.name}  (${c.branch || 'no branch'}, ${formatLocalDateTime(new Date(c.saved))})`).join('\n')}`,
            );
          }
          throw err;
        }
        print(resumeSummary(r.checkpoint, r), {
          name: r.checkpoint.name,
          branch: r.checkpoint.branch,
          currentBranch: r.currentBranch,
          branchMismatch: r.branchMismatch,
          failedApproaches: r.checkpoint.failed,
          consumed: r.consumed,
        });
        return 0;
      }
      case 'delete': {
        if (values.all) {
          if (name) throw new UsageError('delete takes a name or --all, not both');
          const n = await store.deleteAll();
          print(`Cleared ${n} checkpoint(s)`, { deleted: n });
          return 0;
        }
        if (name === undefined) throw new UsageError('delete needs a name or --all: checkpoint delete <name>');
        const trash = await store.delete(name);
        print(trash ? `Cleared checkpoint "${name}" (moved to ${trash})` : `Checkpoint file missing (cleaned up stale entry "${name}")`, {
          deleted: 1,
          trashPath: trash || null,
        });
        return 0;
      }
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`checkpoint: ${err.message}\n${command && HELP[command] ? HELP[command].split('\n')[0] : 'Usage: checkpoint <command> [options]'}\nRun "checkpoint ${command && HELP[command] ? `${command} ` : ''}--help" for more.`);
      return 2;
    }
    io.err(`checkpoint: ${errorMessage(err)}`);
    return 1;
  }
}

if (require.main === module) {
  void run(
    process.argv.slice(2),
    { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`) },
  ).then((code) => {
    process.exitCode = code;
  });
}
