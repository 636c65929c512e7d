// "Continue in…" after a resume: the terminal line that starts Claude Code, run through a real POSIX shell, and the
// one notification's message.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Checkpoint } from '../../src/core/checkpoint';
import { claudeContinueLine, continueRequest, resumeNotice } from '../../src/core/resumeText';
import { tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** Runs `line` in sh with `claude` defined as a function that records its arguments; returns them. */
function claudeArgs(line: string, cwd: string): string[] {
  const out = path.join(cwd, 'args');
  execFileSync('sh', ['-c', `claude() { for a in "$@"; do printf '%s\\0' "$a"; done > ${out}; }\n${line}`], { cwd, timeout: 10_000 });
  return readFileSync(out, 'utf8').split('\0').slice(0, -1);
}

test('claude \'continue <name>\': one shell word whatever the name holds, nothing in it runs', () => {
  const dir = temp();
  assert.equal(claudeContinueLine('fix-login'), "claude 'continue fix-login'");
  const names = ['fix-login', 'My Feature', 'café-menu', 'fix:-login', "it's $(touch pwned) `touch pwned2` ; touch pwned3", 'a\nb\u001b[31m'];
  for (const name of names) {
    const line = claudeContinueLine(name);
    assert.equal(line.split('\n').length, 1, `one line: ${JSON.stringify(line)}`);
    assert.deepEqual(claudeArgs(line, dir), [continueRequest(name)], name);
    assert.ok(!existsSync(path.join(dir, 'pwned')) && !existsSync(path.join(dir, 'pwned2')) && !existsSync(path.join(dir, 'pwned3')));
  }
  assert.equal(continueRequest('a\nb'), 'continue a b');
});

test('a consumed checkpoint: the request says where its file went (it is no longer listed)', () => {
  const trash = "/mem/.trash/2026-11-26/checkpoint-x'y.md";
  assert.equal(continueRequest('x', trash), `continue x (resumed in the editor; the checkpoint file is now ${trash})`);
  const dir = temp();
  assert.deepEqual(claudeArgs(claudeContinueLine('x', trash), dir), [continueRequest('x', trash)]);
});

const cp = (over: Partial<Checkpoint>): Checkpoint =>
  ({ name: 'oauth', branch: 'feature/oauth', saved: '2026-11-26T04:00:00.000Z', description: 'Wiring the callback', leftOff: 'Wiring the callback', done: [], failed: [], decisions: [], questions: [], modifiedFiles: [], ...over }) as Checkpoint;

test('the resume notification: one message with the branch warning and the failed approaches', () => {
  assert.equal(resumeNotice(cp({}), { consumed: true, branchMismatch: false, currentBranch: 'feature/oauth' }, { restricted: false }), 'Resumed "oauth": Wiring the callback. Moved to trash.');
  const failed = ['polling — too slow', 'cookies — SameSite', 'iframe — blocked', 'popup — blocked'];
  assert.equal(
    resumeNotice(cp({ failed }), { consumed: false, branchMismatch: true, currentBranch: 'main' }, { restricted: false }),
    'Resumed "oauth": Wiring the callback. Saved on feature/oauth; you are on main. ' +
      'Previously failed: polling — too slow; cookies — SameSite; iframe — blocked (and 1 more: see the checkpoint).',
  );
  // Switch and Resume: the switch comes first, in the same message (no "Switched" toast of its own).
  assert.equal(
    resumeNotice(cp({}), { consumed: true, branchMismatch: false, currentBranch: 'feature/oauth' }, { restricted: false, switchedTo: 'feature/oauth' }),
    'Switched to feature/oauth. Resumed "oauth": Wiring the callback. Moved to trash.',
  );
  // What changed since it was saved: last, in the same message, one line.
  assert.equal(
    resumeNotice(cp({}), { consumed: false, branchMismatch: false, currentBranch: 'feature/oauth' }, { restricted: false, since: { line: 'Since saved: fresh — no new commit.' } }),
    'Resumed "oauth": Wiring the callback. Since saved: fresh — no new commit.',
  );
  assert.match(resumeNotice(cp({}), { consumed: true, branchMismatch: false, currentBranch: '' }, { restricted: true }), /Saved on feature\/oauth; the current branch is unknown: git does not run in Restricted Mode\.$/);
  // eslint-disable-next-line no-control-regex -- the test looks for an escape character that must not be there
  assert.doesNotMatch(resumeNotice(cp({ name: 'a\nb', failed: ['x\u001b[2Jy'] }), { consumed: false, branchMismatch: false, currentBranch: 'feature/oauth' }, { restricted: false }), /[\n\u001b]/);
});
