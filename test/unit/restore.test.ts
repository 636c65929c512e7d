// No save destroys a checkpoint: an overwrite moves the previous version to the trash first, and
// `checkpoint restore <name>` puts the newest trashed copy back with its index bullet.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CheckpointStore } from '../../src/core/store';
import { runCliInProcess, tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** The CLI's commands, run in this process, on `root`'s memory folder with `root/home` as HOME. */
async function cli(args: string[], root: string): Promise<{ code: number; out: string; err: string }> {
  const r = await runCliInProcess([...args, '--dir', path.join(root, 'mem'), '--cwd', root], { cwd: root, env: { PATH: process.env.PATH, HOME: path.join(root, 'home') } });
  return { code: r.code ?? -1, out: r.out, err: r.err };
}

const file = (root: string, name: string): string => path.join(root, 'mem', `checkpoint-${name}.md`);
const index = (root: string): string => readFileSync(path.join(root, 'mem', 'MEMORY.md'), 'utf8');
const trash = (root: string): string[] => {
  const t = path.join(root, 'mem', '.trash');
  return existsSync(t) ? readdirSync(t).flatMap((d) => readdirSync(path.join(t, d)).map((f) => path.join(t, d, f))) : [];
};

test('save --force moves the previous version to the trash; restore --force brings it back and trashes the newer one', async () => {
  const root = temp();
  mkdirSync(path.join(root, 'home'));
  assert.equal((await cli(['save', 'work', '--left-off', 'first version'], root)).code, 0);
  const first = readFileSync(file(root, 'work'), 'utf8');
  const over = await cli(['save', 'work', '--left-off', 'second version', '--force'], root);
  assert.equal(over.code, 0, over.err);
  assert.match(over.out, /previous version is in the trash/);
  assert.deepEqual(trash(root).map((p) => readFileSync(p, 'utf8')), [first], 'the first version is in the trash, unchanged');
  assert.match(readFileSync(file(root, 'work'), 'utf8'), /second version/);

  // A live checkpoint of that name: restore refuses (exit 1, nothing written) unless --force.
  const before = index(root);
  const refused = await cli(['restore', 'work'], root);
  assert.equal(refused.code, 1);
  assert.match(refused.err, /already exists.*second version.*--force/s);
  assert.equal(index(root), before);
  assert.match(readFileSync(file(root, 'work'), 'utf8'), /second version/);

  const forced = await cli(['restore', 'work', '--force', '--json'], root);
  assert.equal(forced.code, 0, forced.err);
  const r = JSON.parse(forced.out);
  assert.equal(r.name, 'work');
  assert.equal(r.path, file(root, 'work'));
  assert.ok(r.trashPath && existsSync(r.trashPath));
  assert.equal(readFileSync(file(root, 'work'), 'utf8'), first, 'the first version is back');
  assert.match(readFileSync(r.trashPath, 'utf8'), /second version/, 'the second one is in the trash now');
  assert.match(index(root), /^- \*\*work\*\* \(.*\) — first version$/m);
  assert.equal(index(root).split('- **work**').length, 2, 'one bullet');
});

test('restore: the newest trashed copy, its bullet back; exit 1 when the trash has none', async () => {
  const root = temp();
  mkdirSync(path.join(root, 'home'));
  assert.equal((await cli(['save', 'a', '--left-off', 'one'], root)).code, 0);
  assert.equal((await cli(['delete', 'a'], root)).code, 0);
  assert.equal((await cli(['save', 'a', '--left-off', 'two'], root)).code, 0);
  assert.equal((await cli(['resume', 'a'], root)).code, 0);
  assert.doesNotMatch(index(root), /\*\*a\*\*/);
  const r = await cli(['restore', 'a'], root);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Restored checkpoint "a"/);
  assert.match(readFileSync(file(root, 'a'), 'utf8'), /^two$/m, 'the newest copy (~2 of the same day)');
  assert.match(index(root), /^- \*\*a\*\* .* — two$/m);
  const again = await cli(['restore', 'a'], root);
  assert.equal(again.code, 1, 'a live one exists');
  const none = await cli(['restore', 'never-saved'], root);
  assert.equal(none.code, 1);
  assert.match(none.err, /No trashed checkpoint named "never-saved"/);
  assert.equal((await cli(['restore'], root)).code, 2, 'a name is required');
  assert.equal((await cli(['restore', '../x'], root)).code, 1);
});

test('the newest trashed copy across days: the latest day first', async () => {
  const root = temp();
  const mem = path.join(root, 'mem');
  let now = new Date(2026, 10, 20, 12);
  const store = new CheckpointStore({ memoryDir: mem, cwd: root, allowGit: false, now: () => now });
  await store.save({ name: 'n', leftOff: 'older' });
  await store.delete('n');
  now = new Date(2026, 10, 22, 12);
  await store.save({ name: 'n', leftOff: 'newer' });
  await store.delete('n');
  const copies = await store.trashedCopies('n');
  assert.deepEqual(copies.map((c) => path.basename(path.dirname(c.path))), ['2026-11-22', '2026-11-20']);
  const r = await store.restoreNamed('n');
  assert.equal(r.checkpoint.description, 'newer');
});

test('an overwrite whose previous version cannot go to the trash fails and changes nothing', async () => {
  const root = temp();
  const mem = path.join(root, 'mem');
  const store = new CheckpointStore({ memoryDir: mem, cwd: root, allowGit: false });
  await store.save({ name: 'keep', leftOff: 'precious' });
  const before = readFileSync(path.join(mem, 'checkpoint-keep.md'), 'utf8');
  // The trash cannot be made (a file where its folder should be): the overwrite fails before anything is lost.
  writeFileSync(path.join(mem, '.trash'), 'not a folder');
  await assert.rejects(store.save({ name: 'keep', leftOff: 'replacement', force: true }));
  assert.equal(readFileSync(path.join(mem, 'checkpoint-keep.md'), 'utf8'), before);
});
