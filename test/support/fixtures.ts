// The one test-fixture module: temp folders, git repositories with a test identity, checkpoint files as the product
// writes them, and the CLI run as a process or in-process. No `vscode` import: unit and integration tests share it.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe as describeLeftOff, type Checkpoint } from '../../src/core/checkpoint';
import { renderCheckpoint } from '../../src/core/checkpointRender';

// ---- folders and repositories ------------------------------------------------------------------------------------

/** A fresh temp folder, by its real path (so it compares equal to what the product resolves). */
export function tempDir(prefix = 'checkpoint-test-'): string {
  return realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Temp folders for a node:test file, removed when its tests are done: `const temp = tempDirs();` at the top, then
 * `const root = temp();` in a test (no try/finally per test).
 */
export function tempDirs(): (prefix?: string) => string {
  const made: string[] = [];
  // Required here, not imported: the integration tests (mocha, in the extension host) share this module.
  (require('node:test') as typeof import('node:test')).after(() => made.forEach(removeDir));
  return (prefix) => {
    const dir = tempDir(prefix);
    made.push(dir);
    return dir;
  };
}

/** Runs git in `cwd` (never prompting) and returns its output, trimmed. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** git's identity for test commits, and no signing. */
const IDENTITY = ['-c', 'user.name=Checkpoint Test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false'];

/** A real git repository with user config, no signing, and (unless `commit: false`) one commit on `main`. */
export function makeRepo(opts: { commit?: boolean; dir?: string } = {}): string {
  const dir = opts.dir ?? tempDir('checkpoint-repo-');
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Checkpoint Test');
  git(dir, 'config', 'user.email', 'test@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  if (opts.commit ?? true) {
    writeFileSync(path.join(dir, 'README.md'), '# demo\n');
    git(dir, 'add', 'README.md');
    git(dir, 'commit', '-q', '-m', 'initial');
  }
  return dir;
}

/** Two clones of one bare remote, as two machines: `a` pushed main to it, `b` cloned it (with its own identity). */
export function remotePair(root: string): { a: string; b: string; bare: string } {
  const bare = path.join(root, 'remote.git');
  const a = makeRepo({ dir: path.join(root, 'a') });
  git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  git(a, 'remote', 'add', 'origin', bare);
  git(a, 'push', '-q', 'origin', 'main');
  git(root, 'clone', '-q', bare, 'b');
  const b = path.join(root, 'b');
  git(b, 'config', 'user.name', 'B');
  git(b, 'config', 'user.email', 'b@example.invalid');
  return { a, b, bare };
}

/** Makes sure a repository (one the test did not make) has a commit, so branches can be switched back and forth. */
export function ensureCommit(cwd: string): void {
  try {
    git(cwd, 'rev-parse', '--verify', '-q', 'HEAD');
  } catch {
    git(cwd, ...IDENTITY, 'commit', '-q', '--allow-empty', '-m', 'initial commit');
  }
}

export function currentBranch(cwd: string): string {
  return git(cwd, 'symbolic-ref', '--short', 'HEAD');
}

/** Checks `branch` out again (when another one is current) and deletes the branches a test `created`, if it did. */
export function restoreBranch(cwd: string, branch: string, ...created: string[]): void {
  if (currentBranch(cwd) !== branch) git(cwd, 'checkout', '-q', branch);
  for (const b of created) {
    try {
      git(cwd, 'branch', '-q', '-D', b);
    } catch {
      // never created
    }
  }
}

// ---- checkpoint files --------------------------------------------------------------------------------------------

/** When {@link checkpointText} says a checkpoint was saved unless told otherwise. */
export const SAVED = '2026-11-20T10:00:00.000Z';

/** A checkpoint file's text exactly as the product writes it (its own renderer). `saved` defaults to {@link SAVED}. */
export function checkpointText(
  name: string,
  leftOff = `left off in ${name}`,
  fields: Partial<Omit<Checkpoint, 'saved'>> & { saved?: Date | string } = {},
): string {
  const { saved = SAVED, ...rest } = fields;
  return renderCheckpoint({
    name,
    description: describeLeftOff(leftOff),
    branch: 'main',
    leftOff,
    done: [],
    failed: [],
    decisions: [],
    questions: [],
    modifiedFiles: [],
    ...rest,
    saved: typeof saved === 'string' ? saved : saved.toISOString(),
  });
}

/** Writes like the product: a `.checkpoint-tmp-*` file in the same directory, renamed over the target. */
export function atomicWrite(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.checkpoint-tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

// ---- the CLI -----------------------------------------------------------------------------------------------------

/** The CLI bundle (`node scripts/build.mjs --no-typecheck`): the `checkpoint` command. */
export const CLI = path.resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');
/** The whole CLI as a module (what dist/cli.js loads), for a child process that calls its `run` itself. */
export const CLI_MODULE = path.resolve(path.dirname(CLI), 'cli-main.js');

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/**
 * An environment for a child process that never sees the real home folder: HOME and CLAUDE_CONFIG_DIR point
 * into `home` (a temp folder), and nothing else of the parent's environment is passed but PATH.
 */
export function isolatedEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude'), LANG: 'C.UTF-8', ...extra };
}

export interface CliOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  /** Another CLI bundle (the installed extension's). */
  cli?: string;
}

/** How a CLI process is started: this Node (an Electron binary runs as Node with ELECTRON_RUN_AS_NODE). */
function cliSpawn(args: string[], opts: CliOptions): [string, string[], { cwd?: string; env: NodeJS.ProcessEnv }] {
  return [process.execPath, [opts.cli ?? CLI, ...args], { cwd: opts.cwd, env: { ELECTRON_RUN_AS_NODE: '1', ...opts.env } }];
}

/** Resolves when the child has exited and its output streams are closed. */
export function finished(child: ChildProcess): Promise<ProcessResult> {
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}

/** Runs `node dist/cli.js …args` and resolves with its exit code and output. */
export function runCli(args: string[], opts: CliOptions): Promise<ProcessResult> {
  const [cmd, argv, o] = cliSpawn(args, opts);
  return finished(spawn(cmd, argv, { ...o, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** {@link runCli}, waiting for the process (one test step after the other). */
export function runCliSync(args: string[], opts: CliOptions): ProcessResult {
  const [cmd, argv, o] = cliSpawn(args, opts);
  const r = spawnSync(cmd, argv, { ...o, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error) throw r.error;
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

/**
 * Runs the CLI's `run` in this process (no build, no process start: fast). Output lines end with a newline, as
 * the process's. `env` is what the core reads (memory directory rules); git runs with this process's environment.
 */
export async function runCliInProcess(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<ProcessResult> {
  const { run } = await import('../../src/cli/main');
  let out = '';
  let err = '';
  const code = await run(args, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) }, opts.env, opts.cwd);
  return { code, signal: null, out, err };
}

// ---- a workspace -------------------------------------------------------------------------------------------------

export interface Workspace {
  /** The temp folder holding everything below; removed by `done`. */
  root: string;
  /** A git repository (see {@link makeRepo}). */
  repo: string;
  /** An empty home folder (HOME and CLAUDE_CONFIG_DIR of `env`). */
  home: string;
  /** The memory directory (`--dir`), not created. */
  mem: string;
  env: NodeJS.ProcessEnv;
  /** Runs the CLI as a process in `repo` with `--dir mem --cwd repo` right after the command (they stay options before `-- <name>`). */
  cli(args: string[], opts?: { mem?: string; env?: NodeJS.ProcessEnv }): Promise<ProcessResult>;
  done(): void;
}

/** A temp root with a repository, a home folder and a memory directory for CLI and store tests. */
export function workspace(opts: { commit?: boolean } = {}): Workspace {
  const root = tempDir('checkpoint-ws-');
  const repo = makeRepo({ dir: path.join(root, 'repo'), commit: opts.commit });
  const home = path.join(root, 'home');
  mkdirSync(home);
  const mem = path.join(root, 'mem');
  const env = isolatedEnv(home);
  return {
    root,
    repo,
    home,
    mem,
    env,
    cli: ([command, ...rest], o = {}) => runCli([command, '--dir', o.mem ?? mem, '--cwd', repo, ...rest], { env: o.env ?? env }),
    done: () => removeDir(root),
  };
}

// ---- observing -------------------------------------------------------------------------------------------------

/**
 * Everything below `dir` (not following symlinks): relative path → kind, mode and content hash (files), target
 * (symlinks). Entries in `skip` (relative paths) are left out. Two equal snapshots: nothing was written.
 */
export function snapshotTree(dir: string, skip: string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string): void => {
    if (rel && skip.includes(rel)) return;
    const abs = path.join(dir, rel);
    const st = lstatSync(abs);
    if (st.isSymbolicLink()) out.set(rel, `link ${readlinkSync(abs)}`);
    else if (st.isFile()) out.set(rel, `file ${st.mode.toString(8)} ${st.size} ${createHash('sha256').update(readFileSync(abs)).digest('hex')}`);
    else if (st.isDirectory()) {
      out.set(rel || '.', `dir ${st.mode.toString(8)}`);
      for (const e of readdirSync(abs).sort()) walk(rel ? path.join(rel, e) : e);
    } else out.set(rel, `other ${st.mode.toString(8)}`);
  };
  walk('');
  return out;
}

/** MEMORY.md of a memory directory ('' when there is none). */
export function readIndex(dir: string): string {
  try {
    return readFileSync(path.join(dir, 'MEMORY.md'), 'utf8');
  } catch {
    return '';
  }
}

/** Runs `fn` over `items`, at most `limit` at once, results in order (for many independent CLI runs). */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Resolves once process `pid` has ended (a zombie waiting for its parent counts as ended); fails after 5 s. */
export async function ended(pid: number): Promise<void> {
  const alive = (): boolean => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return false;
    }
    // The state follows the command name in parentheses (which may itself hold ") ").
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  };
  for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
  if (alive()) throw new Error(`process ${pid} still runs`);
}
