// Helpers of the code snapshot's tests: a snapshot taken as a save takes it, and a repository's files written or
// committed in one call.
import { writeFileSync } from 'node:fs';
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
