import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A fresh temp folder; removed by the returned cleanup. */
export function tempDir(prefix = 'checkpoint-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

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
