// What resume shows is what it consumes, and a file is shown whole or not at all. On 0.1.0 (commit 7104910)
// `resume x` racing `save --force x` printed v1 and consumed v2, which was never shown; and a checkpoint over the
// 4 MB read limit was shown in part (resume reported 71,086 of 100,000 modified files) and consumed anyway.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { promises as fsp, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { attackWorld } from '../support/attackWorld';
import { CheckpointStore, SHOW_READ_BYTES } from '../../src/core/store';
import { CheckpointError } from '../../src/core/errors';
import { parseCheckpoint } from '../../src/core/checkpointParse';

const checkpointText = (name: string, leftOff: string, files: string[] = []): string =>
  `---\nname: ${name}\ndescription: ${leftOff}\ntype: checkpoint\nbranch: main\nsaved: 2026-11-20T10:00:00.000Z\n---\n# Checkpoint: ${name}\n## Left Off\n${leftOff}\n## Done This Session\nNone\n## Failed Approaches\nNone\n## Modified Files\n${files.length ? files.map((f) => `- ${f}`).join('\n') : 'None'}\n`;

const trashed = (mem: string): string[] => {
  const root = path.join(mem, '.trash');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((day) => readdirSync(path.join(root, day)).map((f) => path.join(root, day, f)));
};

test('resume while another writer replaces the file right after it was read: what was shown is what was consumed, or nothing is consumed', async () => {
  const w = attackWorld();
  const realOpen = fsp.open;
  try {
    mkdirSync(w.mem);
    const file = path.join(w.mem, 'checkpoint-x.md');
    writeFileSync(file, checkpointText('x', 'version one'));
    writeFileSync(path.join(w.mem, 'MEMORY.md'), '# Memory\n\n## Checkpoints\n- **x** (main, Nov 20) — version one\n\nResume any: `continue` or `continue {name}`\n');
    // Another writer (an agent writing the file itself, atomically) replaces it the moment the reader closes it.
    let replaced = false;
    fsp.open = (async (...args: Parameters<typeof fsp.open>) => {
      const handle = await realOpen(...args);
      if (args[0] === file && !replaced) {
        const close = handle.close.bind(handle);
        handle.close = async () => {
          await close();
          if (!replaced) {
            replaced = true;
            writeFileSync(`${file}.new`, checkpointText('x', 'version two, longer than one'));
            renameSync(`${file}.new`, file);
          }
        };
      }
      return handle;
    }) as typeof fsp.open;
    const store = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo, allowGit: false });
    let shown: string | undefined;
    let consumed = false;
    try {
      const r = await store.resume('x');
      shown = r.checkpoint.leftOff;
      consumed = r.consumed;
    } catch (err) {
      assert.ok(err instanceof CheckpointError, String(err));
      assert.match((err as Error).message, /changed while it was being resumed/);
    }
    fsp.open = realOpen;
    assert.ok(replaced, 'the other writer ran');
    if (consumed) {
      const [t] = trashed(w.mem);
      assert.equal(parseCheckpoint(readFileSync(t, 'utf8'), 'x').leftOff, shown, 'the consumed file is the one shown');
    } else {
      assert.equal(parseCheckpoint(readFileSync(file, 'utf8'), 'x').leftOff, 'version two, longer than one', 'the new version stays');
      assert.deepEqual(trashed(w.mem), []);
    }
  } finally {
    fsp.open = realOpen;
    w.done();
  }
});

test(`a checkpoint over the ${SHOW_READ_BYTES / 1024 / 1024} MB read limit: show and resume refuse it clearly and consume nothing`, async () => {
  const w = attackWorld();
  try {
    mkdirSync(w.mem);
    const files = Array.from({ length: 100_000 }, (_, i) => `src/generated/module-${i}/index-file-${i}.ts`);
    const file = path.join(w.mem, 'checkpoint-big.md');
    const text = checkpointText('big', 'a hand-written big one', files);
    assert.ok(Buffer.byteLength(text) > SHOW_READ_BYTES);
    writeFileSync(file, text);
    const index = '# Memory\n\n## Checkpoints\n- **big** (main, Nov 20) — a hand-written big one\n\nResume any: `continue` or `continue {name}`\n';
    writeFileSync(path.join(w.mem, 'MEMORY.md'), index);
    for (const args of [['show', 'big'], ['show', 'big', '--json'], ['resume', 'big'], ['resume', 'big', '--json'], ['resume', 'big', '--keep']]) {
      const r = await w.cli(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.out.slice(0, 200)}`);
      assert.match(r.err, /bytes, more than the \d+ bytes/, args.join(' '));
      // With --json, the error alone on stdout.
      if (args.includes('--json')) assert.equal(JSON.parse(r.out).error.code, 'error', 'nothing shown in part');
      else assert.equal(r.out, '', 'nothing shown in part');
    }
    assert.equal(readFileSync(file, 'utf8'), text, 'still there, untouched');
    assert.equal(readFileSync(path.join(w.mem, 'MEMORY.md'), 'utf8'), index);
    assert.deepEqual(trashed(w.mem), []);
    // Listing still lists it (from its first 64 KB), and delete still works.
    const list = await w.cli(['list', '--json']);
    assert.equal(JSON.parse(list.out)[0].name, 'big');
    assert.equal((await w.cli(['delete', 'big'])).code, 0);
  } finally {
    w.done();
  }
});
