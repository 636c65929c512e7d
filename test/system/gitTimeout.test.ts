// Every git call has a time limit: a repository whose `filter.<x>.clean` never returns hung `save` forever on 0.1.0
// (commit 7104910). Now git and what it started are killed after the limit, and the save goes on without git data,
// with a warning. The test's own timeout only guards against a hang; nothing is timed.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, ended, finished, git, makeRepo, tempDirs } from '../support/fixtures';
import { attackWorld } from '../support/attackWorld';
import { git as gitCall, readGitState } from '../../src/core/git';
import { GIT_TIMEOUT_MS, GitTimeoutError } from '../../src/core/gitProcess';

const temp = tempDirs();

/** A repository whose clean filter writes its pid, then sleeps far longer than any test. */
function hangingFilter(repo: string): string {
  const pidFile = path.join(repo, '..', 'filter.pid');
  writeFileSync(path.join(repo, 'tracked.txt'), 'one\n');
  writeFileSync(path.join(repo, '.gitattributes'), 'tracked.txt filter=slow\n');
  git(repo, 'add', 'tracked.txt', '.gitattributes');
  git(repo, 'commit', '-q', '-m', 'tracked');
  // Set after the commit, so that only the status of the changed file runs it.
  git(repo, 'config', 'filter.slow.clean', `sh -c 'echo $$ > "${pidFile}"; exec sleep 100000'`);
  writeFileSync(path.join(repo, 'tracked.txt'), 'two\n');
  return pidFile;
}

/** Waits (up to 10 s) for a killed process to be gone: a zombie still answers kill(pid, 0) until it is reaped. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Runs `fn` in an attack world whose repository's clean filter hangs (see {@link hangingFilter}); then, however it
 * ended, kills the filter if it is still running and removes the world.
 */
async function withHangingFilter(fn: (w: ReturnType<typeof attackWorld>, pidFile: string) => Promise<void>): Promise<void> {
  const w = attackWorld();
  const pidFile = hangingFilter(w.repo);
  try {
    await fn(w, pidFile);
  } finally {
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0;
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    w.done();
  }
}

/** Checks a save --json that git's time limit (`seconds`) cut short: saved, without git data, said so, the filter gone. */
async function savedWithoutGit(r: { code: number | null; out: string; err: string }, pidFile: string, seconds: number): Promise<void> {
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, new RegExp(`git did not answer within ${seconds} s`));
  assert.match(r.err, /saved without the branch and the modified files/);
  assert.equal(JSON.parse(r.out).branch, '');
  assert.equal(await gone(Number(readFileSync(pidFile, 'utf8'))), true, 'the filter git started was stopped with it');
}

test(`save in a repository whose clean filter hangs: git is stopped after ${GIT_TIMEOUT_MS / 1000} s, the checkpoint is saved without git data, with a warning`, { timeout: 60_000 }, async () => {
  await withHangingFilter(async (w, pidFile) => {
    const r = await w.cli(['save', 'slow', '--left-off', 'filter hangs', '--json']);
    await savedWithoutGit(r, pidFile, 10);
    const listed = await w.cli(['list', '--json']);
    assert.equal(JSON.parse(listed.out)[0].name, 'slow');
  });
});

test('a save run in the repository it saves (no --cwd): at the time limit, saved without git data, with the warning', { timeout: 60_000 }, async () => {
  await withHangingFilter(async (w, pidFile) => {
    // No --cwd: git runs in the folder the command runs in.
    const child = spawn(process.execPath, [CLI, 'save', 'slow', '--left-off', 'filter hangs', '--json', '--dir', w.mem], {
      cwd: w.repo,
      env: { ...w.env, CHECKPOINT_GIT_TIMEOUT_MS: '1500' },
      stdio: ['ignore', 'pipe', 'pipe'],
  });
  const r = await finished(child);
  await savedWithoutGit(r, pidFile, 2);
  });
});

test('a save refused for a usage error ends at once and runs no git', { timeout: 60_000 }, async () => {
  await withHangingFilter(async (w, pidFile) => {
    // A time limit longer than the test's own: only ending without waiting for git ends the command in time.
    const child = spawn(process.execPath, [CLI, 'save', 'x', '--push', '--dir', w.mem], {
      cwd: w.repo,
      env: { ...w.env, CHECKPOINT_GIT_TIMEOUT_MS: '600000' },
      stdio: ['ignore', 'pipe', 'pipe'],
  });
  const r = await finished(child);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /--push goes with --commit/);
  assert.equal(existsSync(pidFile), false, 'git never ran the filter');
  });
});

test('a save refused for its name ends at once: git runs only for a save that can be written', { timeout: 60_000 }, async () => {
  await withHangingFilter(async (w, pidFile) => {
    // A time limit longer than the test's own: a save that ran git would wait for it.
    const r = await w.cli(['save', '!!!', '--left-off', 'never saved'], { env: { ...w.env, CHECKPOINT_GIT_TIMEOUT_MS: '600000' } });
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /is not a usable checkpoint name/);
    assert.equal(existsSync(pidFile), false, 'git never ran the filter');
  });
});

test('readGitState with a short time limit reports the timeout (core, as the extension calls it)', { timeout: 60_000 }, async () => {
  await withHangingFilter(async (w, pidFile) => {
    const state = await readGitState(w.repo, { timeoutMs: 2000 });
    assert.equal(state.timedOut, true);
    assert.equal(state.branch, '');
    assert.match(state.problem ?? '', /did not answer/);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(await gone(pid), true);
  });
});

test('git() with hooks on: a hook that hangs is stopped at the time limit with every process it started; with hooks off it never runs', { timeout: 60_000 }, async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const pidFile = path.join(repo, '..', `${path.basename(repo)}-hook.pids`);
  // The hook and the sleep it waits on outlast the test's own time limit: only git()'s time limit ends them.
  writeFileSync(path.join(repo, '.git', 'hooks', 'pre-commit'), `#!/bin/sh\nsleep 100000 &\necho $$ $! > "${pidFile}"\nwait\n`);
  chmodSync(path.join(repo, '.git', 'hooks', 'pre-commit'), 0o755);
  const commit = ['commit', '-q', '--allow-empty', '-m', 'x'];
  const err = await gitCall(repo, commit, { hooks: true, timeoutMs: 3000 }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof GitTimeoutError, String(err));
  const pids = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
  assert.equal(pids.length, 2);
  await Promise.all(pids.map((pid) => ended(pid)));
  assert.equal(git(repo, 'rev-list', '--count', 'HEAD'), '1', 'no commit was made');
  rmSync(pidFile);
  await gitCall(repo, commit);
  assert.equal(existsSync(pidFile), false, 'hooks off: the hook did not run');
  assert.equal(git(repo, 'rev-list', '--count', 'HEAD'), '2');
});
