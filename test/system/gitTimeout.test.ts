// Every git call has a time limit: a repository whose `filter.<x>.clean` never returns hung `save` forever on 0.1.0
// (commit 7104910). Now git and what it started are killed after the limit, and the save goes on without git data,
// with a warning. The test's own timeout only guards against a hang; nothing is timed.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { git } from '../support/fixtures';
import { attackWorld } from '../support/attackWorld';
import { GIT_TIMEOUT_MS, readGitState } from '../../src/core/git';

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

test(`save in a repository whose clean filter hangs: git is stopped after ${GIT_TIMEOUT_MS / 1000} s, the checkpoint is saved without git data, with a warning (0.1.0: hung)`, { timeout: 60_000 }, async () => {
  const w = attackWorld();
  let pid: number | undefined;
  try {
    const pidFile = hangingFilter(w.repo);
    const r = await w.cli(['save', 'slow', '--left-off', 'filter hangs', '--json']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /git did not answer within 10 s/);
    assert.match(r.err, /saved without the branch and the modified files/);
    assert.equal(JSON.parse(r.out).branch, '');
    pid = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(await gone(pid), true, 'the filter git started was stopped with it');
    const listed = await w.cli(['list', '--json']);
    assert.equal(JSON.parse(listed.out)[0].name, 'slow');
  } finally {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    w.done();
  }
});

test('a save that fails while git scans stops git and ends at once: it does not wait for the scan it started', { timeout: 60_000 }, async () => {
  const w = attackWorld();
  let pid: number | undefined;
  try {
    const pidFile = hangingFilter(w.repo);
    // A time limit longer than the test's own: only stopping git ends the command in time.
    const r = await w.cli(['save', '!!!', '--left-off', 'never saved'], { env: { ...w.env, CHECKPOINT_GIT_TIMEOUT_MS: '600000' } });
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /is not a usable checkpoint name/);
    // The save can fail before git reaches the filter: when the filter did start (it wrote its pid), it was stopped.
    const started = existsSync(pidFile) ? readFileSync(pidFile, 'utf8').trim() : '';
    if (started) {
      pid = Number(started);
      assert.equal(await gone(pid), true, 'the filter git started was stopped with it');
    }
  } finally {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    w.done();
  }
});

test('readGitState with a short time limit reports the timeout (core, as the extension calls it)', { timeout: 60_000 }, async () => {
  const w = attackWorld();
  let pid: number | undefined;
  try {
    const pidFile = hangingFilter(w.repo);
    const state = await readGitState(w.repo, { timeoutMs: 2000 });
    assert.equal(state.timedOut, true);
    assert.equal(state.branch, '');
    assert.match(state.problem ?? '', /did not answer/);
    pid = Number(readFileSync(pidFile, 'utf8'));
    assert.equal(await gone(pid), true);
  } finally {
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    w.done();
  }
});
