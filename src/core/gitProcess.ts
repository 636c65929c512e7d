import { statSync } from 'node:fs';
import { CheckpointError } from './errors';

// How git runs as a process: in a process group of its own, with a time limit after which the whole group (git and
// any hook or filter it started) is killed, with an environment that names no program. git.ts builds every call on
// it.

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

/** The spawn behind git.ts's runner: stdin is a pipe when `input` is given (else closed). */
export function spawnInGroup(
  cwd: string,
  file: string,
  argv: string[],
  opts: GitRunOptions,
): { done: Promise<{ code: number; out: Buffer; err: Buffer }>; child?: import('node:child_process').ChildProcess } {
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
    return { done: Promise.reject(new CheckpointError(`Cannot run git in ${cwd}: the folder does not exist.`)) };
  }
  if (opts.signal?.aborted) return { done: Promise.reject(new CheckpointError('canceled')) };
  const env = { ...gitEnv(opts.envFrom), ...opts.env };
  // node:child_process is loaded on first use: commands that never run git do not pay for it.
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const group = process.platform !== 'win32';
  const stdin = opts.input === undefined ? 'ignore' : 'pipe';
  if (!killOnExit) {
    killOnExit = true;
    process.on('exit', () => running.forEach((kill) => kill()));
  }
  const stdio: ('pipe' | 'ignore')[] = [stdin, 'pipe', 'pipe'];
  let child: import('node:child_process').ChildProcess;
  try {
    child = spawn(file, argv, { cwd, env, windowsHide: true, detached: group, stdio });
  } catch (e) {
    return { done: Promise.reject(e as Error) };
  }
  let timer: NodeJS.Timeout | undefined;
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
    const ms = opts.timeoutMs ?? GIT_TIMEOUT_MS;
    timer = setTimeout(() => stop(new GitTimeoutError(ms)), ms);
    timer.unref();
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
  return { done, child };
}

/** The status scan of a save: branch, HEAD, changed and untracked paths (see readGitState). */
export const STATUS_ARGS = ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=normal'];
