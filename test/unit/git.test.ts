import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { branchDiffers, git as gitCall, gitBytes, parseStatusV2, readBranch, readGitState, switchBranch } from '../../src/core/git';
import { CheckpointError } from '../../src/core/errors';
import { git, makeRepo, removeDir, tempDirs } from '../support/fixtures';

const temp = tempDirs();

test('parseStatusV2: branch, changes, renames, untracked', () => {
  const out = ['# branch.oid abcdef1234567', '# branch.head feature/x', '1 .M N... 100644 100644 100644 a b src/a.ts', '2 R. N... 100644 100644 100644 a b R100 new name.ts', 'old name.ts', '? notes.txt', ''].join('\0');
  assert.deepEqual(parseStatusV2(out), { branch: 'feature/x', modifiedFiles: ['src/a.ts', 'new name.ts', 'notes.txt'] });
  assert.equal(parseStatusV2('# branch.oid abcdef1234567\0# branch.head (detached)\0').branch, 'HEAD (detached at abcdef1)');
});

test('a real repository: branch and modified + untracked files', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  writeFileSync(path.join(repo, 'README.md'), 'changed\n');
  writeFileSync(path.join(repo, 'new file.txt'), 'x');
  git(repo, 'checkout', '-q', '-b', 'feature/oauth');
  const s = await readGitState(repo);
  assert.equal(s.branch, 'feature/oauth');
  assert.deepEqual(s.modifiedFiles.sort(), ['README.md', 'new file.txt']);
  assert.equal(await readBranch(repo), 'feature/oauth');
});

test('detached HEAD and no commits yet', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const empty = makeRepo({ commit: false, dir: temp('checkpoint-repo-') });
  git(repo, 'checkout', '-q', '--detach');
  const sha = git(repo, 'rev-parse', '--short=7', 'HEAD').trim();
  assert.equal((await readGitState(repo)).branch, `HEAD (detached at ${sha})`);
  assert.match(await readBranch(repo), /^HEAD \(detached at [0-9a-f]+\)$/);
  assert.equal((await readGitState(empty)).branch, 'main');
  assert.equal(await readBranch(empty), 'main');
});

test('not a repository is not an error', async () => {
  const dir = temp();
  const s = await readGitState(dir);
  assert.deepEqual({ branch: s.branch, files: s.modifiedFiles }, { branch: '', files: [] });
  assert.match(s.problem ?? '', /not a git repository/);
  assert.equal(await readBranch(dir), '');
});

test('a repository whose config names an fsmonitor command: the command never runs', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const marker = path.join(repo, 'fsmonitor-ran');
  git(repo, 'config', 'core.fsmonitor', `touch '${marker}'; false`);
  writeFileSync(path.join(repo, 'README.md'), 'changed\n');
  const s = await readGitState(repo);
  assert.deepEqual(s.modifiedFiles, ['README.md']);
  assert.equal(existsSync(marker), false);
});

test('git missing from PATH is not an error', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const saved = process.env.PATH;
  try {
    process.env.PATH = temp();
    const s = await readGitState(repo);
    assert.equal(s.branch, '');
    assert.match(s.problem ?? '', /git was not found/);
  } finally {
    process.env.PATH = saved;
    removeDir(repo);
  }
});

test('switchBranch switches, and refuses option-like or invalid names without running them', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  git(repo, 'branch', 'feature/x');
  await switchBranch(repo, 'feature/x');
  assert.equal(await readBranch(repo), 'feature/x');
  for (const bad of ['--orphan=evil', '-b', 'a..b', 'has space', '']) {
    await assert.rejects(switchBranch(repo, bad), CheckpointError, bad);
  }
  assert.equal(await readBranch(repo), 'feature/x');
  await assert.rejects(switchBranch(repo, 'does-not-exist'), /could not switch/);
  mkdirSync(path.join(repo, 'dir'));
  writeFileSync(path.join(repo, 'README.md'), 'dirty\n');
  git(repo, 'checkout', '-q', 'main');
  git(repo, 'commit', '-qam', 'main change');
  writeFileSync(path.join(repo, 'README.md'), 'conflicting\n');
  await assert.rejects(switchBranch(repo, 'feature/x'), /could not switch.*overwritten|would be overwritten/s);
  assert.equal(await readBranch(repo), 'main');
});

/**
 * A repository whose reference-transaction hook (git runs it for each ref update) appends to a file: in `.git/hooks`,
 * or in a folder of its own that the repository's `core.hooksPath` names. `ran()`: how many times it ran.
 */
function hookedRepo(where: '.git/hooks' | 'core.hooksPath'): { repo: string; ran: () => number } {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const log = path.join(temp('checkpoint-hook-log-'), 'ran');
  const dir = where === '.git/hooks' ? path.join(repo, '.git', 'hooks') : temp('checkpoint-hooks-');
  if (where === 'core.hooksPath') git(repo, 'config', 'core.hooksPath', dir);
  writeFileSync(path.join(dir, 'reference-transaction'), `#!/bin/sh\necho "$1" >> "${log}"\n`);
  chmodSync(path.join(dir, 'reference-transaction'), 0o755);
  return { repo, ran: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0) };
}

for (const where of ['.git/hooks', 'core.hooksPath'] as const) {
  test(`git(): a hook the repository names (${where}) runs only with hooks on`, async () => {
    const { repo, ran } = hookedRepo(where);
    await gitCall(repo, ['update-ref', 'refs/heads/product', 'HEAD']);
    await gitCall(repo, ['update-ref', 'refs/heads/product-too', 'HEAD'], { hooks: false });
    assert.equal(ran(), 0, 'hooks are off unless asked for');
    await gitCall(repo, ['update-ref', 'refs/heads/user', 'HEAD'], { hooks: true });
    assert.ok(ran() > 0, 'with hooks on, the repository\'s hook runs');
    assert.equal(git(repo, 'rev-parse', 'product', 'user').split('\n').length, 2, 'both refs were made');
  });
}

test('git(): user text after `--` is never an option, whatever it looks like', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  for (const name of ['--output=pwned', '-c']) writeFileSync(path.join(repo, name), 'x\n');
  git(repo, 'add', '--', '--output=pwned', '-c');
  git(repo, 'commit', '-qm', 'odd names');
  // As an option, `--output=<file>` would write the log into that file instead of printing it.
  assert.equal(await gitCall(repo, ['log', '--format=%s', '--', '--output=pwned']), 'odd names\n');
  assert.equal(readFileSync(path.join(repo, '--output=pwned'), 'utf8'), 'x\n');
  assert.equal(await gitCall(repo, ['ls-files', '--', '-c']), '-c\n');
});

test('git(): a failure carries git\'s own words; gitBytes() gives a blob\'s bytes as they are', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  await assert.rejects(gitCall(repo, ['rev-parse', '--verify', 'no-such-ref']), /no-such-ref|Needed a single revision/);
  await assert.rejects(gitCall(path.join(repo, 'missing'), ['status']), /does not exist/);
  const bytes = Buffer.from([0, 0xff, 0xfe, 10, 0x80]);
  const blob = (await gitCall(repo, ['hash-object', '-w', '--stdin'], { input: bytes })).trim();
  assert.ok((await gitBytes(repo, ['cat-file', 'blob', blob])).equals(bytes));
});

test('branchDiffers ignores unknown branches', () => {
  assert.equal(branchDiffers('a', 'b'), true);
  assert.equal(branchDiffers('a', 'a'), false);
  assert.equal(branchDiffers('', 'b'), false);
  assert.equal(branchDiffers('a', ''), false);
});
