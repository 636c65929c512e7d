// Regression tests for defects found in review: each names what it fixes.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import * as path from 'node:path';
import { upsertIndex, removeFromIndex, indexedNames } from '../../src/core/memoryIndex';
import { branchWarning } from '../../src/core/resumeText';
import { git, isolatedEnv, makeRepo, removeDir, runCliSync, tempDir, type ProcessResult } from '../support/fixtures';

const home = tempDir('checkpoint-home-');
process.on('exit', () => removeDir(home));

function cli(args: string[], cwd: string): ProcessResult {
  return runCliSync(args, { cwd, env: isolatedEnv(home) });
}

test('an unclosed code fence in Left Off does not hide the sections after it', () => {
  const dir = tempDir();
  try {
    const mem = path.join(dir, 'mem');
    assert.equal(cli(['save', 'f', '--dir', mem, '--left-off', 'see:\n```ts\nconst a = 1', '--failed', 'f1', '--done', 'd1'], dir).code, 0);
    const cp = JSON.parse(cli(['show', 'f', '--json', '--dir', mem], dir).out);
    assert.deepEqual([cp.done, cp.failed, cp.failedApproaches], [['d1'], ['f1'], ['f1']]);
    assert.equal(cp.leftOff, 'see:\n```ts\nconst a = 1');
  } finally {
    removeDir(dir);
  }
});

test('a MEMORY.md that is not valid UTF-8 is refused and left byte-identical; nothing is written', () => {
  const dir = tempDir();
  try {
    const mem = path.join(dir, 'mem');
    mkdirSync(mem);
    const bytes = Buffer.from('# Notes\ncaf\xe9\n', 'latin1');
    writeFileSync(path.join(mem, 'MEMORY.md'), bytes);
    const r = cli(['save', 'a', '--dir', mem, '--left-off', 'x'], dir);
    assert.equal(r.code, 1);
    assert.match(r.err, /not valid UTF-8/);
    assert.ok(readFileSync(path.join(mem, 'MEMORY.md')).equals(bytes));
    assert.equal(existsSync(path.join(mem, 'checkpoint-a.md')), false);
  } finally {
    removeDir(dir);
  }
});

test('warns when a new bullet pushes an older one past line 200', () => {
  const bullets = Array.from({ length: 198 }, (_, i) => `- **n${i}** (main, Nov 25) — x`);
  const doc = ['# H', '## Active Checkpoints', ...bullets, ''].join('\n');
  const edit = upsertIndex(doc, 'zz', '- **zz** (main, Nov 25) — new');
  assert.match(edit.budgetWarning ?? '', /"n197" is at line 201/);
  assert.equal(upsertIndex(['# H', '## Active Checkpoints', ...bullets.slice(0, 5), ''].join('\n'), 'zz', '- **zz** (main, Nov 25) — new').budgetWarning, undefined);
});

test('a byte-order mark stays first and does not hide the first heading', () => {
  const doc = '\uFEFF# Notes\n\nText\n';
  const out = upsertIndex(doc, 'a', '- **a** (main, Nov 25) — x').text;
  assert.equal(out, '\uFEFF# Notes\n\n## Active Checkpoints\n- **a** (main, Nov 25) — x\n\nResume any: `continue` or `continue {name}`\n\nText\n');
  assert.deepEqual(indexedNames(out), ['a']);
  assert.equal(removeFromIndex(out, ['a']), doc);
});

test('global options may come before the command; an empty name is a user error (exit 1)', () => {
  const dir = tempDir();
  try {
    const mem = path.join(dir, 'mem');
    assert.equal(cli(['--dir', mem, 'save', 'x', '--left-off', 'y'], dir).code, 0);
    const listed = cli(['--json', '--dir', mem, 'list'], dir);
    assert.equal(listed.code, 0, listed.err);
    assert.equal(JSON.parse(listed.out)[0].name, 'x');
    const empty = cli(['save', '', '--dir', mem], dir);
    assert.equal(empty.code, 1);
    assert.match(empty.err, /not a usable checkpoint name/);
  } finally {
    removeDir(dir);
  }
});

test('a plan path that does not exist is not written as a plan', () => {
  const dir = tempDir();
  try {
    const mem = path.join(dir, 'mem');
    const r = cli(['save', 'p', '--plan', 'gone.md', '--dir', mem, '--left-off', 'x'], dir);
    assert.equal(r.code, 0);
    assert.match(r.err, /was not found; saved without a plan/);
    const text = readFileSync(path.join(mem, 'checkpoint-p.md'), 'utf8');
    assert.doesNotMatch(text, /plan|Plan/);
  } finally {
    removeDir(dir);
  }
});

test('JSON checkpoints are read-only history: delete refuses and writes nothing', () => {
  const repo = makeRepo();
  try {
    const d = path.join(repo, '.claude', 'checkpoints');
    mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, '20261125T101500Z.json'), JSON.stringify({ timestamp: '2026-11-25T10:15:00Z', summary: 's' }));
    const mem = path.join(repo, 'mem');
    const r = cli(['delete', '20261125t101500z', '--dir', mem], repo);
    assert.equal(r.code, 1);
    assert.match(r.err, /read-only/);
    assert.ok(existsSync(path.join(d, '20261125T101500Z.json')));
    assert.equal(existsSync(mem), false);
  } finally {
    removeDir(repo);
  }
});

test('writes keep the permissions of the file they replace', () => {
  const dir = tempDir();
  try {
    const mem = path.join(dir, 'mem');
    mkdirSync(mem);
    writeFileSync(path.join(mem, 'MEMORY.md'), '# Private\n');
    chmodSync(path.join(mem, 'MEMORY.md'), 0o600);
    assert.equal(cli(['save', 'a', '--dir', mem, '--left-off', 'x'], dir).code, 0);
    assert.equal(statSync(path.join(mem, 'MEMORY.md')).mode & 0o777, 0o600);
  } finally {
    removeDir(dir);
  }
});

test('delete --all with no checkpoints and no folder writes nothing', () => {
  const dir = tempDir();
  try {
    const mem = path.join(dir, 'mem');
    const r = cli(['delete', '--all', '--dir', mem], dir);
    assert.equal(r.code, 0);
    assert.match(r.out, /Cleared 0 checkpoint/);
    assert.equal(existsSync(mem), false);
  } finally {
    removeDir(dir);
  }
});

test('the branch warning for a checkpoint saved on a detached HEAD suggests a command that works', () => {
  assert.match(branchWarning('HEAD (detached at 1b4e516)', 'main') ?? '', /Switch with: git checkout 1b4e516$/);
  assert.match(branchWarning('feature/x', 'main') ?? '', /Switch with: git checkout feature\/x$/);
  const repo = makeRepo();
  try {
    git(repo, 'checkout', '-q', '--detach');
    const mem = path.join(repo, 'mem');
    cli(['save', 'd', '--dir', mem], repo);
    git(repo, 'checkout', '-q', 'main');
    const out = cli(['resume', 'd', '--keep', '--dir', mem], repo).out;
    const sha = git(repo, 'rev-parse', '--short=7', 'HEAD').trim();
    assert.match(out, new RegExp(`Switch with: git checkout ${sha}`));
  } finally {
    removeDir(repo);
  }
});
