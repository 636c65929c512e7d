import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { branchDiffers, parseStatusV2, readBranch, readGitState, switchBranch } from '../../src/core/git';
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

test('branchDiffers ignores unknown branches', () => {
  assert.equal(branchDiffers('a', 'b'), true);
  assert.equal(branchDiffers('a', 'a'), false);
  assert.equal(branchDiffers('', 'b'), false);
  assert.equal(branchDiffers('a', ''), false);
});
