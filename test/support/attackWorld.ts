// A temp world for attack tests: a repository, a home folder, a memory directory, an outside folder, and the CLI
// run as a separate process (optionally as an unprivileged user, for permission tests when the tests run as root).
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, finished, workspace, type ProcessResult } from './fixtures';

export interface AttackWorld {
  root: string;
  repo: string;
  home: string;
  mem: string;
  outside: string;
  env: NodeJS.ProcessEnv;
  /** `checkpoint <command> --dir <mem> --cwd <repo> …rest`. */
  cli: (args: string[], opts?: { mem?: string; cwd?: string; env?: NodeJS.ProcessEnv; asUser?: number }) => Promise<ProcessResult>;
  done: () => void;
}

/** The uid that permission tests run the CLI as when the tests run as root (root ignores file modes). */
export const NOBODY = 65534;

/** True when the CLI can be run as an unprivileged user here (root with setpriv, or not root at all). */
export function canDropPrivileges(): boolean {
  return process.getuid?.() !== 0 || spawnable('setpriv');
}

function spawnable(cmd: string): boolean {
  try {
    require('node:child_process').execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The fixture module's workspace, reachable by an unprivileged user, with a folder outside it holding a secret. */
export function attackWorld(opts: { commit?: boolean } = {}): AttackWorld {
  const w = workspace(opts);
  // Reachable by an unprivileged user (mkdtemp makes it 0700); a home folder any user can write to.
  chmodSync(w.root, 0o755);
  chmodSync(w.home, 0o777);
  const outside = path.join(w.root, 'outside');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.md'), 'secret\n');
  return {
    ...w,
    outside,
    cli: ([command, ...rest], o = {}) => {
      const args = [CLI, command, '--dir', o.mem ?? w.mem, '--cwd', o.cwd ?? w.repo, ...rest];
      const asUser = o.asUser !== undefined && process.getuid?.() === 0;
      const [cmd, argv] = asUser
        ? ['setpriv', [`--reuid=${o.asUser}`, `--regid=${o.asUser}`, '--clear-groups', process.execPath, ...args]]
        : [process.execPath, args];
      return finished(spawn(cmd, argv as string[], { env: o.env ?? w.env, stdio: ['ignore', 'pipe', 'pipe'] }));
    },
  };
}

/** Control characters that must never reach a terminal or a written file (tab and LF are allowed). */
// eslint-disable-next-line no-control-regex
export const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
