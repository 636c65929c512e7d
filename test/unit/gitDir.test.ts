import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { resolveGitDir } from '../../src/core/gitDir';
import { git, makeRepo, removeDir, tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** A temp folder by its real path (git writes real paths into `.git` files). */
const realTemp = (prefix: string): string => realpathSync(temp(prefix));

/** `<dir>/HEAD` names this branch. */
function assertHead(gitDir: string, branch: string): void {
  assert.equal(readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim(), `ref: refs/heads/${branch}`);
}

test('a plain repository: <root>/.git, from the root and from any folder below it', async () => {
  const repo = makeRepo({ dir: path.join(realTemp('checkpoint-gitdir-'), 'repo') });
  try {
    const deep = path.join(repo, 'src', 'a', 'b');
    mkdirSync(deep, { recursive: true });
    const expected = path.join(repo, '.git');
    assert.equal(await resolveGitDir(repo), expected);
    assert.equal(await resolveGitDir(deep), expected);
    assert.equal(await resolveGitDir(`${repo}${path.sep}`), expected);
    assertHead(expected, 'main');
  } finally {
    removeDir(path.dirname(repo));
  }
});

test('a repository without commits still has its git dir', async () => {
  const repo = makeRepo({ commit: false, dir: path.join(realTemp('checkpoint-gitdir-'), 'empty') });
  try {
    assert.equal(await resolveGitDir(repo), path.join(repo, '.git'));
  } finally {
    removeDir(path.dirname(repo));
  }
});

test('a linked worktree (`git worktree add`): the `.git` file points into the main repository', async () => {
  const base = realTemp('checkpoint-gitdir-');
  const repo = makeRepo({ dir: path.join(base, 'repo') });
  const worktree = path.join(base, 'feature-tree');
  git(repo, 'worktree', 'add', '-q', '-b', 'feature/x', worktree);
  const gitDir = await resolveGitDir(worktree);
  assert.ok(gitDir);
  // <repo>/.git/worktrees/<name>: where the worktree's own HEAD lives (not the main repository's).
  assert.equal(path.dirname(gitDir), path.join(repo, '.git', 'worktrees'));
  assertHead(gitDir, 'feature/x');
  assertHead(path.join(repo, '.git'), 'main');
  // The same from a folder inside the worktree; and the main checkout is unaffected.
  const sub = path.join(worktree, 'docs');
  mkdirSync(sub);
  assert.equal(await resolveGitDir(sub), gitDir);
  assert.equal(await resolveGitDir(repo), path.join(repo, '.git'));
  // What git itself says.
  assert.equal(realpathSync(git(worktree, 'rev-parse', '--absolute-git-dir').trim()), realpathSync(gitDir));
});

test('a submodule: the `.git` file holds a relative gitdir, resolved against the submodule folder', async () => {
  const base = realTemp('checkpoint-gitdir-');
  const lib = makeRepo({ dir: path.join(base, 'lib') });
  const app = makeRepo({ dir: path.join(base, 'app') });
  git(app, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib');
  const sub = path.join(app, 'vendor', 'lib');
  assert.match(readFileSync(path.join(sub, '.git'), 'utf8'), /^gitdir: \.\.\/\.\.\/\.git\/modules\/vendor\/lib\s*$/);
  const gitDir = await resolveGitDir(sub);
  assert.equal(gitDir, path.join(app, '.git', 'modules', 'vendor', 'lib'));
  assert.ok(existsSync(path.join(gitDir, 'HEAD')), 'the submodule\'s HEAD is there (a branch or detached, by git version)');
  assert.equal(realpathSync(git(sub, 'rev-parse', '--absolute-git-dir').trim()), realpathSync(gitDir));
});

test('a hand-written `.git` file: absolute or relative gitdir, surrounding blanks and CRLF', async () => {
  const base = realTemp('checkpoint-gitdir-');
  const folder = path.join(base, 'checkout');
  mkdirSync(path.join(folder, 'nested'), { recursive: true });
  const cases: [string, string][] = [
    [`gitdir: ${path.join(base, 'elsewhere.git')}\n`, path.join(base, 'elsewhere.git')],
    ['gitdir: ../store/repo.git\n', path.join(base, 'store', 'repo.git')],
    ['gitdir:   ../with spaces/repo.git   \r\n', path.join(base, 'with spaces', 'repo.git')],
    ['gitdir: ../no-newline', path.join(base, 'no-newline')],
  ];
  for (const [text, expected] of cases) {
    writeFileSync(path.join(folder, '.git'), text);
    assert.equal(await resolveGitDir(folder), expected, JSON.stringify(text));
    assert.equal(await resolveGitDir(path.join(folder, 'nested')), expected, `${JSON.stringify(text)} from a nested folder`);
  }
});

test('undefined outside a repository, and for a `.git` file that names no gitdir', async () => {
  const base = realTemp('checkpoint-gitdir-');
  // (The temp folder is not inside a repository: a test machine's /tmp is not.)
  assert.equal(await resolveGitDir(base), undefined);
  assert.equal(await resolveGitDir(path.join(base, 'does', 'not', 'exist')), undefined);
  const folder = path.join(base, 'broken');
  mkdirSync(folder);
  for (const text of ['', 'not a gitdir line\n', 'gitdir:\n', 'GITDIR: /x\n']) {
    writeFileSync(path.join(folder, '.git'), text);
    assert.equal(await resolveGitDir(folder), undefined, JSON.stringify(text));
  }
});
