// Helpers for tests that run the built CLI (dist/cli.js) as separate processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import * as path from 'node:path';

/** The CLI bundle (`node scripts/build.mjs --no-typecheck`). */
export const CLI = path.resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

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
export function runCli(args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<ProcessResult> {
  return finished(spawn(process.execPath, [CLI, ...args], { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

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
