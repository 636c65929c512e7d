import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CheckpointIndex } from '../../src/core/checkpointIndex';
import { CheckpointStore } from '../../src/core/store';
import { atomicWrite, checkpointText, tempDirs } from '../support/fixtures';

const temp = tempDirs();

function setup(): { mem: string; index: CheckpointIndex; stats: { filesRead: number; scans: number }; changes: () => number } {
  const root = temp('checkpoint-index-');
  const mem = path.join(root, 'mem');
  mkdirSync(mem);
  const stats = { filesRead: 0, scans: 0 };
  let changes = 0;
  const store = new CheckpointStore({ memoryDir: mem, cwd: root, allowGit: false });
  const index = new CheckpointIndex(async () => store, stats, () => changes++);
  return { mem, index, stats, changes: () => changes };
}

test('CheckpointIndex: one scan, newest first; then one read per changed file, none for a duplicate event', async () => {
  const { mem, index, stats, changes } = setup();
  writeFileSync(path.join(mem, 'checkpoint-a.md'), checkpointText('a', 'A', { saved: '2026-11-20T10:00:00.000Z' }));
  writeFileSync(path.join(mem, 'checkpoint-b.md'), checkpointText('b', 'B', { saved: '2026-11-21T10:00:00.000Z' }));
  assert.equal(index.cachedFiles(), undefined);
  assert.deepEqual((await index.list()).map((s) => s.name), ['b', 'a']);
  assert.deepEqual((await index.list()).map((s) => s.name), ['b', 'a']);
  assert.deepEqual(stats, { filesRead: 2, scans: 1 });

  const c = path.join(mem, 'checkpoint-c.md');
  atomicWrite(c, checkpointText('c', 'C', { saved: '2026-11-22T10:00:00.000Z' }));
  assert.equal(await index.refreshFile(c), true);
  assert.equal(await index.refreshFile(c), false, 'the same file again: not read');
  assert.deepEqual(stats, { filesRead: 3, scans: 1 });
  assert.deepEqual((await index.list()).map((s) => s.name), ['c', 'b', 'a']);

  rmSync(path.join(mem, 'checkpoint-a.md'));
  assert.equal(await index.refreshFile(path.join(mem, 'checkpoint-a.md')), true);
  assert.equal(await index.refreshFile(path.join(mem, '.checkpoint-tmp-1-x')), false, 'a temp file is never read');
  assert.deepEqual(stats, { filesRead: 3, scans: 1 });
  assert.deepEqual([...(index.cachedFiles() ?? [])].map((s) => s.name).sort(), ['b', 'c']);
  assert.equal(changes(), 2);

  index.reload();
  assert.equal(index.cachedFiles(), undefined);
  assert.equal((await index.list()).length, 2);
  assert.equal(stats.scans, 2);
});
