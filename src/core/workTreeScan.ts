// The work tree as "what changed since" reads it: the index against the work tree (each file stat'ed against the
// index's record of it, none read: a file whose stat changed shows with id 0, to be hashed) and the untracked files
// not ignored, of the whole repository (`:/`) wherever in it the comparison runs. No checkpoint changes what it is,
// and in a large repository it is the comparison's longest part: the CLI's entry starts it for `resume` and `show`
// while the rest of the CLI loads (startWorkTreeScan), and the comparison takes it (adoptWorkTreeScan).
import { GitTimeoutError, NO_FSMONITOR, spawnInGroup } from './gitProcess';

export const WORK_TREE_ARGS = {
  changed: ['diff-files', '--raw', '-z', '--ignore-submodules=none'],
  untracked: ['ls-files', '--others', '--exclude-standard', '--full-name', '-z', '--', ':/'],
};

/** The whole comparison gives up after this long and says "not checked": a resume never waits on a slow repository. */
export const SINCE_TIME_LIMIT_MS = 2000;

/** One call's answer as plain data (the entry and the CLI are two bundles, each with its own classes). */
type Answer = { out: string } | { failed: { message: string; timeoutMs?: number } };

interface EarlyScan {
  cwd: string;
  changed: Promise<Answer>;
  untracked: Promise<Answer>;
  /** Lets the scan keep this process alive (it does not until then: a command that fails first exits at once). */
  hold(): void;
  abort(): void;
}
const EARLY_SCAN = Symbol.for('checkpoint.earlyWorkTreeScan');

/**
 * Starts the scan in `cwd` for a comparison about to run in this process, with the comparison's time limit. A
 * process that exits before it is taken stops it.
 */
export function startWorkTreeScan(cwd: string, env: NodeJS.ProcessEnv): void {
  const stop = new AbortController();
  const handles: ({ ref(): void; unref(): void } | null | undefined)[] = [];
  const run = (args: string[]): Promise<Answer> => {
    const r = spawnInGroup(cwd, 'git', [...NO_FSMONITOR, ...args], { envFrom: env, timeoutMs: SINCE_TIME_LIMIT_MS, signal: stop.signal });
    handles.push(...([r.child, r.child?.stdout, r.child?.stderr] as ({ ref(): void; unref(): void } | null | undefined)[]));
    // As a git call fails: a non-zero exit with something on stderr.
    return r.done.then(
      ({ code, out, err }) => (code && err.length ? { failed: { message: err.toString('utf8') } } : { out: out.toString('utf8') }),
      (e: unknown) => ({ failed: { message: e instanceof Error ? e.message : String(e), timeoutMs: e instanceof GitTimeoutError ? e.ms : undefined } }),
    );
  };
  const scan: EarlyScan = {
    cwd,
    // One thread: git's parallel stat would take the core the CLI is loading on.
    changed: run(['-c', 'core.preloadIndex=false', ...WORK_TREE_ARGS.changed]),
    untracked: run(WORK_TREE_ARGS.untracked),
    hold: () => handles.forEach((h) => h?.ref()),
    abort: () => stop.abort(),
  };
  for (const h of handles) h?.unref();
  (globalThis as Record<symbol, unknown>)[EARLY_SCAN] = scan;
}

/**
 * The scan started for `cwd` by {@link startWorkTreeScan}, once (undefined: none, or for another folder): each
 * answer's output, or its failure as this module's own error (GitTimeoutError at its time limit). `signal` stops it.
 */
export function adoptWorkTreeScan(cwd: string, signal: AbortSignal): { changed: Promise<string>; untracked: Promise<string> } | undefined {
  const g = globalThis as Record<symbol, EarlyScan | undefined>;
  const scan = g[EARLY_SCAN];
  if (scan?.cwd !== cwd) return undefined;
  g[EARLY_SCAN] = undefined;
  scan.hold();
  if (signal.aborted) scan.abort();
  signal.addEventListener('abort', () => scan.abort(), { once: true });
  const output = (a: Promise<Answer>): Promise<string> => {
    const p = a.then((r) => {
      if ('out' in r) return r.out;
      throw r.failed.timeoutMs !== undefined ? new GitTimeoutError(r.failed.timeoutMs) : new Error(r.failed.message);
    });
    // A caller that awaits one answer first leaves the other's failure handled meanwhile.
    p.catch(() => undefined);
    return p;
  };
  return { changed: output(scan.changed), untracked: output(scan.untracked) };
}
