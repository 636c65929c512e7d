// The reads that find a memory folder and a repository come two ways (src/core/files.ts fileReads): through the
// thread pool (the extension host) and inline (a one-shot process). Whichever a caller gets, it must see the same
// files, the same refusals and the same error codes.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileReads, type FileReads } from '../../src/core/files';
import { tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** What a read gave, in a form two ways of reading can be compared by. */
async function outcome(read: () => Promise<unknown>): Promise<unknown> {
  try {
    const v = await read();
    if (Array.isArray(v)) return { ok: v.map((d: { name: string; isDirectory(): boolean }) => `${d.name}${d.isDirectory() ? '/' : ''}`).sort() };
    if (v && typeof v === 'object' && 'isFile' in v) {
      const st = v as { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean; size: number; ino: number };
      return { ok: { file: st.isFile(), dir: st.isDirectory(), link: st.isSymbolicLink(), size: st.isFile() ? st.size : -1, ino: st.ino } };
    }
    return { ok: v };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { error: e.code ?? e.message };
  }
}

test('inline reads and thread-pool reads see the same files, refuse the same ones and fail with the same codes', async () => {
  const dir = temp();
  writeFileSync(path.join(dir, 'settings.json'), '{"autoMemoryEnabled": true}');
  writeFileSync(path.join(dir, 'big.json'), 'x'.repeat(5000));
  writeFileSync(path.join(dir, 'empty'), '');
  mkdirSync(path.join(dir, 'folder'));
  writeFileSync(path.join(dir, 'folder', 'inner.json'), '{}');
  symlinkSync(path.join(dir, 'settings.json'), path.join(dir, 'link.json'));
  symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
  const names = ['settings.json', 'big.json', 'empty', 'folder', 'link.json', 'dangling', 'missing', path.join('folder', 'inner.json'), path.join('missing', 'x')];
  // A FIFO is refused, not waited on (POSIX).
  const fifo = process.platform !== 'win32' && spawnSync('mkfifo', [path.join(dir, 'fifo')]).status === 0;
  if (fifo) names.push('fifo');

  const ops: [string, (r: FileReads, p: string) => Promise<unknown>][] = [
    ['stat', (r, p) => r.stat(p)],
    ['lstat', (r, p) => r.lstat(p)],
    ['realpath', (r, p) => r.realpath(p)],
    ['readSmallFile', (r, p) => r.readSmallFile(p, 1000)],
    ['readdir', (r, p) => r.readdir(p)],
  ];
  const inline = fileReads(true);
  const pooled = fileReads(false);
  assert.notEqual(inline, pooled);
  for (const name of names) {
    const p = path.join(dir, name);
    for (const [op, read] of ops) {
      assert.deepEqual(await outcome(() => read(inline, p)), await outcome(() => read(pooled, p)), `${op} ${name}`);
    }
  }
  // What the two agree on is what a caller needs.
  assert.deepEqual(await outcome(() => inline.readSmallFile(path.join(dir, 'link.json'), 1000)), { ok: '{"autoMemoryEnabled": true}' });
  assert.deepEqual(await outcome(() => inline.readSmallFile(path.join(dir, 'big.json'), 1000)), { error: 'too large (5000 bytes; at most 1000 are read)' });
  assert.deepEqual(await outcome(() => inline.readSmallFile(path.join(dir, 'folder'), 1000)), { error: 'not a regular file' });
  assert.deepEqual(await outcome(() => inline.stat(path.join(dir, 'missing'))), { error: 'ENOENT' });
  assert.deepEqual(await outcome(() => inline.readdir(path.join(dir, 'folder'))), { ok: ['inner.json'] });
  if (fifo) assert.deepEqual(await outcome(() => inline.readSmallFile(path.join(dir, 'fifo'), 1000)), { error: 'not a regular file' });
});
