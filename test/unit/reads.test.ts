// The two implementations of `Reads` (src/core/reads.ts): through the thread pool (the extension host, the MCP server,
// the hooks) and inline (the CLI's other commands). Whichever a caller gets, every method must see the same files,
// refuse the same ones and fail with the same errors.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { inlineReads, threadPoolReads, type Reads } from '../../src/core/reads';
import { tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** What a read gave, in a form two implementations can be compared by: the value, or the error's code or message. */
async function outcome(read: () => Promise<unknown>): Promise<unknown> {
  try {
    return { ok: plain(await read()) };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return { error: e.code ?? e.message };
  }
}

function plain(v: unknown): unknown {
  if (Buffer.isBuffer(v)) return { bytes: v.toString('latin1') };
  if (Array.isArray(v)) return v.map((d: { name: string; isDirectory(): boolean; isFile(): boolean }) => `${d.name}${d.isDirectory() ? '/' : d.isFile() ? '' : '?'}`).sort();
  if (v && typeof v === 'object' && 'isFile' in v) {
    const st = v as { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean; size: number; ino: number; mtimeMs: number };
    return { file: st.isFile(), dir: st.isDirectory(), link: st.isSymbolicLink(), size: st.isFile() ? st.size : -1, ino: st.ino, mtimeMs: st.mtimeMs };
  }
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** Every method of `Reads`, each with the argument shapes its callers use. */
const CALLS: Record<keyof Reads, [string, (r: Reads, p: string) => Promise<unknown>][]> = {
  stat: [['stat', (r, p) => r.stat(p)]],
  lstat: [['lstat', (r, p) => r.lstat(p)]],
  realpath: [['realpath', (r, p) => r.realpath(p)]],
  readdir: [['readdir', (r, p) => r.readdir(p)]],
  readBounded: [
    ['readBounded 1000', (r, p) => r.readBounded(p, 1000)],
    ['readBounded 100000 noFollow', (r, p) => r.readBounded(p, 100_000, { noFollow: true })],
    ['readBounded 0', (r, p) => r.readBounded(p, 0)],
  ],
  readSmallFile: [
    ['readSmallFile 1000', (r, p) => r.readSmallFile(p, 1000)],
    ['readSmallFile 100000', (r, p) => r.readSmallFile(p, 100_000)],
  ],
  readWhole: [
    ['readWhole 1000', (r, p) => r.readWhole(p, 1000)],
    ['readWhole 100000', (r, p) => r.readWhole(p, 100_000)],
  ],
  readPrefix: [
    ['readPrefix 10', (r, p) => r.readPrefix(p, 10)],
    ['readPrefix 9000', (r, p) => r.readPrefix(p, 9000)],
    ['readPrefix 30000 noFollow', (r, p) => r.readPrefix(p, 30_000, { noFollow: true })],
    ['readPrefix 100000', (r, p) => r.readPrefix(p, 100_000)],
    ['readPrefix 0 noFollow', (r, p) => r.readPrefix(p, 0, { noFollow: true })],
  ],
  readTail: [
    ['readTail 64', (r, p) => r.readTail(p, 64)],
    ['readTail 100000', (r, p) => r.readTail(p, 100_000)],
  ],
};

test('inline reads and thread-pool reads: every method gives the same results and fails with the same errors', async () => {
  assert.deepEqual(Object.keys(CALLS).sort(), Object.keys(threadPoolReads).sort(), 'every method of Reads is compared');
  assert.deepEqual(Object.keys(inlineReads).sort(), Object.keys(threadPoolReads).sort());
  const dir = temp();
  writeFileSync(path.join(dir, 'settings.json'), '{"autoMemoryEnabled": true}');
  // Larger than the first read buffer (8 KB) and than some of the bounds: buffers grow, files are cut or refused.
  const big = Buffer.from(Array.from({ length: 2500 }, (_, i) => `line ${i} é\n`).join(''));
  writeFileSync(path.join(dir, 'big.md'), big);
  writeFileSync(path.join(dir, 'empty'), '');
  mkdirSync(path.join(dir, 'folder'));
  writeFileSync(path.join(dir, 'folder', 'inner.json'), '{}');
  symlinkSync(path.join(dir, 'settings.json'), path.join(dir, 'link.json'));
  symlinkSync(path.join(dir, 'folder'), path.join(dir, 'link-folder'));
  symlinkSync(path.join(dir, 'nowhere'), path.join(dir, 'dangling'));
  const names = ['settings.json', 'big.md', 'empty', 'folder', 'link.json', 'link-folder', 'dangling', 'missing', path.join('folder', 'inner.json'), path.join('missing', 'x'), path.join('settings.json', 'x')];
  // A FIFO is refused or read without waiting, never waited on (POSIX).
  const fifo = process.platform !== 'win32' && spawnSync('mkfifo', [path.join(dir, 'fifo')]).status === 0;
  if (fifo) names.push('fifo');

  let compared = 0;
  for (const name of names) {
    const p = path.join(dir, name);
    for (const [label, read] of Object.values(CALLS).flat()) {
      assert.deepEqual(await outcome(() => read(inlineReads, p)), await outcome(() => read(threadPoolReads, p)), `${label} ${name}`);
      compared++;
    }
  }
  assert.equal(compared, names.length * Object.values(CALLS).flat().length);

  // What the two agree on is what the callers need (each read below through both).
  for (const r of [inlineReads, threadPoolReads]) {
    const at = (name: string): string => path.join(dir, name);
    assert.deepEqual(await outcome(() => r.readSmallFile(at('link.json'), 1000)), { ok: '{"autoMemoryEnabled": true}' });
    assert.deepEqual(await outcome(() => r.readBounded(at('link.json'), 1000, { noFollow: true })), { error: 'ELOOP' });
    assert.deepEqual(await outcome(() => r.readSmallFile(at('big.md'), 1000)), { error: `too large (${big.length} bytes; at most 1000 are read)` });
    assert.deepEqual(await outcome(() => r.readSmallFile(at('folder'), 1000)), { error: 'not a regular file' });
    assert.deepEqual(await outcome(() => r.readSmallFile(at('empty'), 1000)), { ok: '' });
    assert.match(((await outcome(() => r.readWhole(at('big.md'), 1000))) as { error: string }).error, new RegExp(`^it is ${big.length} bytes, more than the 1000 bytes a checkpoint may have`));
    assert.deepEqual(await outcome(() => r.readWhole(at('link.json'), 1000)), { error: 'it is a symbolic link, and checkpoint files are never read through one' });
    assert.deepEqual(await outcome(() => r.readPrefix(at('big.md'), 10)), { ok: { text: 'line 0 é\n', truncated: true } });
    assert.deepEqual(await outcome(() => r.readPrefix(at('link.json'), 10, { noFollow: true })), { error: 'ELOOP' });
    assert.deepEqual(await outcome(() => r.readTail(at('big.md'), 13)), { ok: { bytes: Buffer.from('line 2499 é\n').toString('latin1') } });
    assert.deepEqual(await outcome(() => r.stat(at('missing'))), { error: 'ENOENT' });
    assert.deepEqual(await outcome(() => r.readdir(at('folder'))), { ok: ['inner.json'] });
    if (fifo) {
      assert.deepEqual(await outcome(() => r.readSmallFile(at('fifo'), 1000)), { error: 'not a regular file' });
      // Opened without waiting, and read at a position, which a FIFO cannot be.
      assert.deepEqual(await outcome(() => r.readPrefix(at('fifo'), 1000, { noFollow: true })), { error: 'ESPIPE' });
    }
  }
});
