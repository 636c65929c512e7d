import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { AmbiguousCheckpointError, CheckpointExistsError, CheckpointStore } from '../../src/core/store';
import { CheckpointError } from '../../src/core/errors';
import { git, makeRepo, tempDirs } from '../support/fixtures';

const temp = tempDirs();

function setup(): { repo: string; mem: string; store: CheckpointStore } {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(temp(), 'memory');
  return { repo, mem, store: new CheckpointStore({ memoryDir: mem, cwd: repo }) };
}

const read = (p: string): string => readFileSync(p, 'utf8');

test('save writes the file and the bullet, with branch and modified files from git', async () => {
  const { repo, mem, store } = setup();
  git(repo, 'checkout', '-q', '-b', 'feature/oauth');
  writeFileSync(path.join(repo, 'src.ts'), 'x');
  const r = await store.save({ name: 'My Feature', leftOff: 'Wiring OAuth\nsecond line', done: ['a'], failed: ['cookies — SameSite'] });
  assert.equal(r.path, path.join(mem, 'checkpoint-my-feature.md'));
  assert.equal(r.checkpoint.branch, 'feature/oauth');
  assert.deepEqual(r.checkpoint.modifiedFiles, ['src.ts']);
  const text = read(r.path);
  assert.match(text, /^---\nname: my-feature\ndescription: Wiring OAuth\ntype: checkpoint\nbranch: feature\/oauth\n/);
  assert.match(read(path.join(mem, 'MEMORY.md')), /^# Project Memory\n\n## Active Checkpoints\n- \*\*my-feature\*\* \(feature\/oauth, \w{3} \d{2}\) — Wiring OAuth\n\nResume any/);
  const [item] = await store.list();
  assert.equal(item.name, 'my-feature');
  assert.equal(item.description, 'Wiring OAuth');
  assert.deepEqual(readdirSync(mem).filter((f) => f.startsWith('.checkpoint-tmp')), [], 'no temp files left');
});

test('save refuses to overwrite unless forced, and names the existing one', async () => {
  const { mem, store } = setup();
  await store.save({ name: 'x', leftOff: 'first' });
  const before = read(path.join(mem, 'checkpoint-x.md'));
  await assert.rejects(store.save({ name: 'x', leftOff: 'second' }), (err: unknown) => {
    assert.ok(err instanceof CheckpointExistsError);
    assert.match(err.message, /already exists \(saved \d{4}-\d{2}-\d{2} \d{2}:\d{2}, left off: "first"\)/);
    return true;
  });
  assert.equal(read(path.join(mem, 'checkpoint-x.md')), before);
  const r = await store.save({ name: 'x', leftOff: 'second', force: true });
  assert.equal(r.overwritten, true);
  assert.match(read(r.path), /## Left Off\nsecond\n/);
  assert.equal(read(path.join(mem, 'MEMORY.md')).match(/\*\*x\*\*/g)?.length, 1);
});

test('plan step is read from the plan file', async () => {
  const { repo, store } = setup();
  writeFileSync(path.join(repo, 'plan.md'), '# Plan\n- [x] one\n- [ ] two\n- [ ] three\n');
  const r = await store.save({ name: 'p', leftOff: 'x', plan: 'plan.md' });
  assert.equal(r.checkpoint.plan, path.join(repo, 'plan.md'));
  assert.equal(r.checkpoint.planStep, 2);
  assert.equal(r.checkpoint.planSteps, 3);
  assert.match(read(r.path), /\(step 2 of 3\)/);
});

test('list: newest first; unreadable files listed with the reason, front matter that does not parse skipped with the reason; each left byte-identical', async () => {
  const { mem } = setup();
  let t = Date.parse('2026-11-20T10:00:00Z');
  const store = new CheckpointStore({ memoryDir: mem, cwd: temp(), allowGit: false, now: () => new Date((t += 60_000)) });
  await store.save({ name: 'older', leftOff: 'a' });
  await store.save({ name: 'newer', leftOff: 'b' });
  const bad = '---\nname: [broken\n---\n# Checkpoint: bad\n';
  writeFileSync(path.join(mem, 'checkpoint-bad.md'), bad);
  writeFileSync(path.join(mem, 'checkpoint-bin.md'), Buffer.from([0, 1, 2, 255, 254]));
  writeFileSync(path.join(mem, 'notes.md'), 'not a checkpoint');
  const items = await store.list();
  assert.deepEqual(items.filter((i) => !i.unreadable && i.name !== 'bad').map((i) => i.name), ['newer', 'older']);
  const unreadable = items.filter((i) => i.unreadable).map((i) => [i.name, i.unreadable]);
  assert.deepEqual(unreadable.map((u) => u[0]), ['bin']);
  // Read by its body, with the reason its front matter was skipped.
  assert.match(items.find((i) => i.name === 'bad')?.frontMatterSkipped ?? '', /invalid front matter/);
  assert.equal(read(path.join(mem, 'checkpoint-bad.md')), bad);
  assert.equal((await store.resume('bad', { keep: true })).checkpoint.frontMatterSkipped?.startsWith('invalid front matter'), true);
  assert.equal(read(path.join(mem, 'checkpoint-bad.md')), bad);
});

test('resume consumes to .trash/<date>/, removes the bullet and the section; restore undoes it', async () => {
  const { repo, mem, store } = setup();
  mkdirSync(mem, { recursive: true });
  writeFileSync(path.join(mem, 'MEMORY.md'), '# Memory\n\nKeep this.\n');
  await store.save({ name: 'a', leftOff: 'left', failed: ['f1'] });
  git(repo, 'checkout', '-q', '-b', 'other');
  const r = await store.resume(undefined);
  assert.equal(r.checkpoint.name, 'a');
  assert.equal(r.branchMismatch, true);
  assert.equal(r.currentBranch, 'other');
  assert.deepEqual(r.checkpoint.failed, ['f1']);
  assert.equal(r.consumed, true);
  assert.equal(existsSync(path.join(mem, 'checkpoint-a.md')), false);
  assert.match(r.trashPath!, /\.trash\/\d{4}-\d{2}-\d{2}\/checkpoint-a\.md$/);
  assert.equal(read(path.join(mem, 'MEMORY.md')), '# Memory\n\nKeep this.\n');
  await store.restore(r.trashPath!);
  assert.ok(existsSync(path.join(mem, 'checkpoint-a.md')));
  assert.match(read(path.join(mem, 'MEMORY.md')), /\*\*a\*\*/);
  const kept = await store.resume('a', { keep: true });
  assert.equal(kept.consumed, false);
  assert.ok(existsSync(path.join(mem, 'checkpoint-a.md')));
});

test('resume: none, several, missing file with an orphan bullet', async () => {
  const { mem, store } = setup();
  await assert.rejects(store.resume(undefined), /^CheckpointError: No saved checkpoints found\.$|No saved checkpoints found\./);
  await store.save({ name: 'a', leftOff: 'x' });
  await store.save({ name: 'b', leftOff: 'y' });
  await assert.rejects(store.resume(undefined), AmbiguousCheckpointError);
  const { rmSync } = await import('node:fs');
  rmSync(path.join(mem, 'checkpoint-a.md'));
  await assert.rejects(store.resume('a'), /Checkpoint file missing \(cleaned up stale entry/);
  assert.doesNotMatch(read(path.join(mem, 'MEMORY.md')), /\*\*a\*\*/);
  assert.match(read(path.join(mem, 'MEMORY.md')), /\*\*b\*\*/);
  await assert.rejects(store.resume('nope'), /No checkpoint named "nope"/);
});

test('delete and delete all move to trash and clean the index', async () => {
  const { mem, store } = setup();
  mkdirSync(mem, { recursive: true });
  writeFileSync(path.join(mem, 'MEMORY.md'), '# Memory\r\n\r\nNotes\r\n');
  for (const n of ['a', 'b', 'c']) await store.save({ name: n, leftOff: n });
  const trash = await store.delete('b');
  assert.ok(existsSync(trash));
  assert.deepEqual(await store.indexedNames(), ['c', 'a']);
  assert.deepEqual((await store.deleteAll()).map((d) => d.name).sort(), ['a', 'c']);
  assert.equal(read(path.join(mem, 'MEMORY.md')), '# Memory\r\n\r\nNotes\r\n');
  assert.deepEqual((await store.list()).length, 0);
  await assert.rejects(store.delete('zzz'), CheckpointError);
});

test('regression: restoring the second same-day trash copy of a name indexes it under that name', async () => {
  const { mem, store } = setup();
  await store.save({ name: 'x', leftOff: 'first' });
  await store.delete('x');
  await store.save({ name: 'x', leftOff: 'second' });
  const second = await store.delete('x');
  assert.match(second, /checkpoint-x~2\.md$/);
  await store.restore(second);
  assert.deepEqual(await store.indexedNames(), ['x']);
  assert.match(read(path.join(mem, 'checkpoint-x.md')), /## Left Off\nsecond\n/);
});

test("a copy in the trash is never replaced by one whose name differs only in case or Unicode form (one file on macOS and Windows)", async () => {
  const { mem, store } = setup();
  const first = await store.save({ name: 'x', leftOff: 'first' });
  const day = path.dirname(await store.delete('x'));
  // What an agent's `checkpoint-X.md` and a decomposed `é` left in the trash earlier that day.
  writeFileSync(path.join(day, 'checkpoint-X~2.md'), 'upper case copy\n');
  await store.save({ name: 'x', leftOff: 'second' });
  const second = await store.delete('x');
  assert.match(second, /checkpoint-x~3\.md$/, 'checkpoint-X~2.md is taken, whatever the case');
  assert.equal(read(path.join(day, 'checkpoint-X~2.md')), 'upper case copy\n');
  writeFileSync(path.join(day, 'checkpoint-cafe\u0301.md'), 'decomposed\n');
  // An agent's own file, named with a composed `é`.
  writeFileSync(path.join(mem, 'checkpoint-caf\u00e9.md'), '---\nname: caf\u00e9\n---\n# Checkpoint: caf\u00e9\n## Left Off\ncomposed\n');
  assert.match(await store.delete('caf\u00e9'), /checkpoint-caf\u00e9~2\.md$/);
  assert.equal(read(path.join(day, 'checkpoint-cafe\u0301.md')), 'decomposed\n');
  assert.ok(first.path);
});

test('never writes through a symlinked checkpoint or MEMORY.md', async () => {
  const { mem, store } = setup();
  const outside = temp();
  mkdirSync(mem, { recursive: true });
  const target = path.join(outside, 'target.md');
  writeFileSync(target, 'outside\n');
  symlinkSync(target, path.join(mem, 'checkpoint-link.md'));
  await assert.rejects(store.save({ name: 'link', leftOff: 'x', force: true }), /symbolic link/);
  symlinkSync(target, path.join(mem, 'MEMORY.md'));
  await assert.rejects(store.save({ name: 'other', leftOff: 'x' }), /symbolic link/);
  assert.equal(read(target), 'outside\n');
  assert.equal(existsSync(path.join(mem, 'checkpoint-other.md')), false, 'nothing written when the index cannot be');
});

test('hostile names never leave the memory directory', async () => {
  const { mem, store } = setup();
  for (const n of ['../../escape', '/etc/passwd', '..\\..\\win', 'a\u0000b', 'x'.repeat(1000)]) {
    const r = await store.save({ name: n, leftOff: 'x', force: true });
    assert.equal(path.dirname(r.path), mem, n);
  }
  for (const n of ['..', '.', '', '🚀🚀', 'CON', 'nul.txt', 'Com1']) await assert.rejects(store.save({ name: n, leftOff: 'x' }), CheckpointError);
});

test('JSON checkpoints of plan-scoped procedures are listed and shown, never consumed', async () => {
  const { repo, mem } = setup();
  const dir = path.join(repo, '.claude', 'plans', 'auth', 'checkpoints');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, '20261125T101500Z.json'),
    JSON.stringify({ timestamp: '2026-11-25T10:15:00Z', summary: 'Working on X', decisions: ['A over B'], next_action: 'Write tests', blockers: [], context: { active_plan: 'auth', active_plan_stage: 2, files_in_progress: ['a.ts'] } }),
  );
  const store = new CheckpointStore({ memoryDir: mem, cwd: repo });
  const [item] = await store.list();
  assert.equal(item.source, 'json');
  assert.equal(item.plan, 'auth');
  assert.equal(item.description, 'Working on X');
  const r = await store.resume(item.name);
  assert.equal(r.consumed, false);
  assert.deepEqual(r.checkpoint.decisions, ['A over B']);
  assert.ok(existsSync(path.join(dir, '20261125T101500Z.json')));
});
