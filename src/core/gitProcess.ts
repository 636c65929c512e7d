import { statSync } from 'node:fs';
import { CheckpointError } from './errors';

// How git runs as a process: in a process group of its own, with a time limit after which the whole group (git and
// any hook or filter it started) is killed, with an environment that names no program. git.ts builds every call on
// it; the CLI's entry starts a save's status scan with it before the rest of the CLI has loaded (startStatusScan).

/** Environment variables git may see: enough to find itself and the user's config, nothing that names a program. */
export const ENV_KEEP = ['PATH', 'HOME', 'USERPROFILE', 'LANG', 'LC_ALL', 'TMPDIR', 'TEMP', 'TMP', 'XDG_CONFIG_HOME', 'SYSTEMROOT', 'ComSpec'];

function gitEnv(source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0' };
  for (const k of ENV_KEEP) {
    const v = source[k];
    if (v !== undefined) env[k] = v;
  }
  return env;
}

/** How long one git call may take before it is killed (a repository's filter or hook can hang it forever). */
export const GIT_TIMEOUT_MS = 10_000;
/** The time limit of git calls that may rightly take long: a push or fetch (the network), the user's commit (their hooks). */
export const GIT_LONG_TIMEOUT_MS = 120_000;

/**
 * The time limit set in the environment (`CHECKPOINT_GIT_TIMEOUT_MS`, for a repository whose `git status` takes
 * longer), or undefined for the default.
 */
export function gitTimeoutFrom(env: NodeJS.ProcessEnv): number | undefined {
  const ms = Number(env.CHECKPOINT_GIT_TIMEOUT_MS);
  return Number.isSafeInteger(ms) && ms > 0 ? ms : undefined;
}

/** Raised when git was killed for taking longer than its time limit. */
export class GitTimeoutError extends CheckpointError {
  constructor(readonly ms: number) {
    super(`git did not answer within ${Math.round(ms / 1000)} s and was stopped`);
    this.name = 'GitTimeoutError';
  }
}

export interface GitRunOptions {
  /** Extra environment variables for git (for example GIT_INDEX_FILE); never taken from user text. */
  env?: Record<string, string>;
  /** Written to git's stdin (else stdin is closed). */
  input?: string | Buffer;
  /** Kill git (and fail with GitTimeoutError) after this many milliseconds; default {@link GIT_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** The environment git's own variables ({@link ENV_KEEP}) are taken from; default this process's. */
  envFrom?: NodeJS.ProcessEnv;
  /** Kills git and the processes it started, and fails with "canceled" (the editor's Cancel). */
  signal?: AbortSignal;
  /**
   * Any non-zero exit fails, with everything git printed (stdout and stderr: a hook may write to either) as the
   * error's message. By default a failure needs a non-zero exit *and* stderr output.
   */
  failOnExitCode?: boolean;
}

/** Before every git call's own arguments: a repository's fsmonitor hook (any command a `.git/config` names) never runs. */
export const NO_FSMONITOR = ['-c', 'core.fsmonitor=false'];

/** How to stop each git call still running: a process that exits (a hook that gives up) takes their groups along. */
const running = new Set<() => void>();
let killOnExit = false;

/**
 * The spawn behind {@link runInGroup}: stdin is a pipe left open when `input` is given or `fd3` set (else closed);
 * `fd3`: file descriptor 3 is a pipe too (`child.stdio[3]`). `rearm` restarts the time limit.
 */
export function spawnInGroup(
  cwd: string,
  file: string,
  argv: string[],
  opts: GitRunOptions & { fd3?: boolean },
): { done: Promise<{ code: number; out: Buffer; err: Buffer }>; child?: import('node:child_process').ChildProcess; rearm(ms: number): void } {
  const none = { rearm: () => undefined };
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    return { ...none, done: Promise.reject(new CheckpointError(`Cannot run git in ${cwd}: the folder does not exist.`)) };
  }
  if (opts.signal?.aborted) return { ...none, done: Promise.reject(new CheckpointError('canceled')) };
  const env = { ...gitEnv(opts.envFrom), ...opts.env };
  // node:child_process is loaded on first use: commands that never run git do not pay for it.
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const group = process.platform !== 'win32';
  const stdin = opts.input === undefined && !opts.fd3 ? 'ignore' : 'pipe';
  if (!killOnExit) {
    killOnExit = true;
    process.on('exit', () => running.forEach((kill) => kill()));
  }
  const stdio: ('pipe' | 'ignore')[] = [stdin, 'pipe', 'pipe'];
  if (opts.fd3) stdio.push('pipe');
  let child: import('node:child_process').ChildProcess;
  try {
    child = spawn(file, argv, { cwd, env, windowsHide: true, detached: group, stdio });
  } catch (e) {
    return { ...none, done: Promise.reject(e as Error) };
  }
  let timer: NodeJS.Timeout | undefined;
  let rearm: (ms: number) => void = () => undefined;
  const done = new Promise<{ code: number; out: Buffer; err: Buffer }>((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      running.delete(killGroup);
      fn();
    };
    /** Kills git's whole process group: git and every hook or filter it started. */
    const killGroup = (): void => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      child.stdout!.destroy();
      child.stderr!.destroy();
    };
    const stop = (error: Error): void =>
      settle(() => {
        killGroup();
        reject(error);
      });
    rearm = (ms: number): void => {
      if (settled) return;
      clearTimeout(timer);
      timer = setTimeout(() => stop(new GitTimeoutError(ms)), ms);
      timer.unref();
    };
    rearm(opts.timeoutMs ?? GIT_TIMEOUT_MS);
    const onAbort = (): void => stop(new CheckpointError('canceled'));
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    running.add(killGroup);
    const finish = (code: number | null): void => settle(() => resolve({ code: code ?? 0, out: Buffer.concat(out), err: Buffer.concat(err) }));
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => settle(() => reject(e)));
    child.on('close', (code) => finish(code));
    child.on('exit', (code) => setTimeout(() => finish(code), 50).unref());
  });
  // git may exit before reading all of its input; its exit code tells.
  child.stdin?.on('error', () => undefined);
  (child.stdio[3] as import('node:stream').Writable | undefined)?.on('error', () => undefined);
  return { done, child, rearm: (ms) => rearm(ms) };
}

/** The status scan of a save: branch, HEAD, changed and untracked paths (see readGitState). */
export const STATUS_ARGS = ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=normal'];

/**
 * A status scan started before the code that reads it had loaded (see {@link startStatusScan}). The entry and the CLI
 * are two bundles, each with its own copy of this module's classes: what crosses between them is plain data.
 */
interface EarlyScan {
  cwd: string;
  /** Lets the scan keep this process alive (it does not until then: a command that fails first exits at once). */
  hold(): void;
  /** The result, or the error as data (never rejects). */
  settled: Promise<{ code: number; out: Buffer; err: Buffer } | { failed: { message: string; timeoutMs?: number } }>;
  abort(): void;
}
const EARLY_SCAN = Symbol.for('checkpoint.earlyStatusScan');

/**
 * Starts `git status` (STATUS_ARGS) in `cwd` for the save about to run, so that git scans while this process loads
 * the rest of the CLI (they meet through a global). The save's {@link adoptStatusScan} takes it; nothing else runs
 * it, and a process that exits first kills it.
 */
export function startStatusScan(cwd: string, env: NodeJS.ProcessEnv): void {
  const stop = new AbortController();
  const run = spawnInGroup(cwd, 'git', [...NO_FSMONITOR, ...STATUS_ARGS], { envFrom: env, timeoutMs: gitTimeoutFrom(env), signal: stop.signal });
  // Until the save takes it, the scan does not keep the process alive: a command that fails before (a usage error)
  // exits at once, and the exit stops git.
  const handles = [run.child, run.child?.stdout, run.child?.stderr] as ({ ref(): void; unref(): void } | null | undefined)[];
  for (const h of handles) h?.unref();
  const settled = run.done.catch((e: unknown) => ({ failed: { message: e instanceof Error ? e.message : String(e), timeoutMs: e instanceof GitTimeoutError ? e.ms : undefined } }));
  const scan: EarlyScan = { cwd, settled, abort: () => stop.abort(), hold: () => handles.forEach((h) => h?.ref()) };
  (globalThis as Record<symbol, unknown>)[EARLY_SCAN] = scan;
}

/**
 * The status scan started for `cwd` by {@link startStatusScan}, once (undefined: none, or for another folder): its
 * result, or its failure as this module's own error (GitTimeoutError at its time limit).
 */
export function adoptStatusScan(cwd: string): { done: Promise<{ code: number; out: Buffer; err: Buffer }>; abort(): void } | undefined {
  const g = globalThis as Record<symbol, EarlyScan | undefined>;
  const scan = g[EARLY_SCAN];
  if (scan?.cwd !== cwd) return undefined;
  g[EARLY_SCAN] = undefined;
  scan.hold();
  const done = scan.settled.then((r) => {
    if (!('failed' in r)) return r;
    throw r.failed.timeoutMs !== undefined ? new GitTimeoutError(r.failed.timeoutMs) : new Error(r.failed.message);
  });
  return { done, abort: scan.abort };
}
