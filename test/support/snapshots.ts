// Helpers of the code snapshot's tests: a snapshot taken as a save takes it, a repository's files written or
// committed in one call, and the work tree as the user sees it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readGitState } from '../../src/core/git';
import { CodeSnapshot, type SnapshotOptions, type SnapshotOutcome } from '../../src/core/snapshot/codeSnapshot';
import { git } from './fixtures';

/** A snapshot of the work tree at `cwd` as a save takes it (begin, tree, end), kept under no ref. */
export async function takeSnapshot(cwd: string, name: string, opts: SnapshotOptions = {}): Promise<SnapshotOutcome> {
  const snapshot = CodeSnapshot.begin(cwd, name, readGitState(cwd), opts);
  try {
    return await snapshot.tree();
  } finally {
    await snapshot.end();
  }
}

/** Writes each file (a path relative to `repo`, `/`-separated) with its content. */
export function writeFiles(repo: string, files: Record<string, string | Buffer>): void {
  for (const [p, content] of Object.entries(files)) writeFileSync(join(repo, ...p.split('/')), content);
}

/** Writes the files and commits everything in the work tree with `message`. */
export function commitFiles(repo: string, files: Record<string, string | Buffer>, message: string): void {
  writeFiles(repo, files);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', message);
}

/** A hash of bytes, to compare files by content. */
export function contentHash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Every file under `dir` but `.git` (paths `/`-separated), with a hash of its bytes: the work tree as the user sees it. */
export function workTreeFiles(dir: string, rel = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.name === '.git') continue;
    if (e.isDirectory()) Object.assign(out, workTreeFiles(dir, p));
    else out[p] = contentHash(readFileSync(join(dir, p)));
  }
  return out;
}
