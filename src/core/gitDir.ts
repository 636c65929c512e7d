import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { findGitRoot } from './memoryDir';

/**
 * The git directory of the repository holding `cwd` (where `HEAD` lives), without running git:
 * `<root>/.git` when it is a folder; the `gitdir:` of a `.git` file (worktrees, submodules).
 * Undefined when `cwd` is not inside a repository.
 */
export async function resolveGitDir(cwd: string): Promise<string | undefined> {
  const root = await findGitRoot(cwd);
  const dotGit = path.join(root, '.git');
  const st = await fs.stat(dotGit).catch(() => undefined);
  if (!st) return undefined;
  if (st.isDirectory()) return dotGit;
  const text = await fs.readFile(dotGit, 'utf8').catch(() => '');
  const m = /^gitdir:\s*(.+?)\s*$/m.exec(text);
  return m ? path.resolve(root, m[1]) : undefined;
}
