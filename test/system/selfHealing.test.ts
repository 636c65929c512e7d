// The index heals itself. On 0.1.0 (commit 7104910) a SIGKILL after the checkpoint's rename and before MEMORY.md's
// write left a file without a bullet forever (only a bullet without a file was ever repaired), and no folder was
// fsynced after a rename. Now every index write adds bullets for checkpoint files that lack one and drops the
// product's bullets whose file is gone (never a user's own bullet), `list` reports the mismatch, and the folder is
// fsynced after each rename into it.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { promises as fsp, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { attackWorld } from '../support/attackWorld';
import { CheckpointStore } from '../../src/core/store';
import { indexedNames } from '../../src/core/memoryIndex';

const checkpointText = (name: string, leftOff = `left off in ${name}`): string =>
  `---\nname: ${name}\ndescription: ${leftOff}\ntype: checkpoint\nbranch: main\nsaved: 2026-11-20T10:00:00.000Z\n---\n# Checkpoint: ${name}\n## Left Off\n${leftOff}\n`;

test('a checkpoint file without a bullet (a save killed between its two writes) gets one at the next write; a bullet whose file went to the trash goes; a line in a bullet\'s shape that names no checkpoint stays until the person names it; list says so first', async () => {
  const w = attackWorld();
  try {
    mkdirSync(w.mem);
    const index = path.join(w.mem, 'MEMORY.md');
    writeFileSync(
      index,
      '# Memory\n\n## Checkpoints\n- **gone** (main, Nov 19) — its file was deleted by hand\n- **todo** buy milk\n\nResume any: `continue` or `continue {name}`\n\nMy notes.\n',
    );
    writeFileSync(path.join(w.mem, 'checkpoint-killed.md'), checkpointText('killed', 'saved, then the process was killed'));
    const list = await w.cli(['list']);
    assert.equal(list.code, 0, list.err);
    assert.match(list.err, /MEMORY\.md has no line for killed/);
    assert.match(list.err, /MEMORY\.md lists gone without a checkpoint file/);
    assert.equal((await w.cli(['save', 'next', '--left-off', 'the next save'])).code, 0);
    const healed = readFileSync(index, 'utf8');
    assert.deepEqual(indexedNames(healed, new Set(['killed', 'next'])).sort(), ['killed', 'next']);
    assert.match(healed, /^- \*\*killed\*\* \(main, Nov 20\) — saved, then the process was killed$/m);
    assert.match(healed, /^- \*\*todo\*\* buy milk$/m, "the user's own bullet stays");
    assert.ok(healed.endsWith('\nMy notes.\n'));
    // Neither here nor in the trash, it may be the person's own line: an unrelated save keeps it, naming it removes it.
    assert.match(healed, /^- \*\*gone\*\* \(main, Nov 19\) — its file was deleted by hand$/m);
    assert.equal((await w.cli(['delete', 'gone'])).code, 0);
    assert.doesNotMatch(readFileSync(index, 'utf8'), /\*\*gone\*\*/);
    const again = await w.cli(['list']);
    assert.equal(again.err, '', 'no mismatch left');
    // Deleting heals too: a file written by hand meanwhile gets its bullet when another is deleted.
    writeFileSync(path.join(w.mem, 'checkpoint-hand.md'), checkpointText('hand'));
    assert.equal((await w.cli(['delete', 'next'])).code, 0);
    assert.deepEqual(indexedNames(readFileSync(index, 'utf8')).sort(), ['hand', 'killed']);
    // A checkpoint whose file is in the trash (a resume killed before its index write): its line goes at the next write.
    const day = path.join(w.mem, '.trash', '2026-11-20');
    mkdirSync(day, { recursive: true });
    renameSync(path.join(w.mem, 'checkpoint-hand.md'), path.join(day, 'checkpoint-hand.md'));
    assert.equal((await w.cli(['save', 'last', '--left-off', 'another'])).code, 0);
    assert.deepEqual(indexedNames(readFileSync(index, 'utf8')).sort(), ['killed', 'last']);
  } finally {
    w.done();
  }
});

test('the memory folder is fsynced after the renames of a save, a resume and a delete', async () => {
  const w = attackWorld();
  const realOpen = fsp.open;
  const realRename = fsp.rename;
  const events: string[] = [];
  try {
    mkdirSync(w.mem);
    // Records renames, and fsyncs of handles opened on folders.
    fsp.rename = (async (from: string, to: string) => {
      await realRename(from, to);
      events.push(`rename ${path.dirname(to)}`);
    }) as typeof fsp.rename;
    fsp.open = (async (...args: Parameters<typeof fsp.open>) => {
      const handle = await realOpen(...args);
      if ((await handle.stat()).isDirectory()) {
        const sync = handle.sync.bind(handle);
        handle.sync = async () => {
          await sync();
          events.push(`fsync ${String(args[0])}`);
        };
      }
      return handle;
    }) as typeof fsp.open;
    const store = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo, allowGit: false });
    await store.save({ name: 'a', leftOff: 'a' });
    await store.save({ name: 'b', leftOff: 'b' });
    await store.resume('a');
    await store.delete('b');
    // Each rename into a folder is followed by an fsync of that folder before the next rename into it.
    for (let i = 0; i < events.length; i++) {
      if (!events[i].startsWith('rename ')) continue;
      const dir = events[i].slice('rename '.length);
      const later = events.slice(i + 1);
      const next = later.indexOf(`rename ${dir}`);
      const synced = later.indexOf(`fsync ${dir}`);
      assert.ok(synced >= 0 && (next < 0 || synced < next), `rename into ${dir} at event ${i} not fsynced: ${events.join(', ')}`);
    }
    assert.ok(events.filter((e) => e === `fsync ${w.mem}`).length >= 4, events.join(', '));
  } finally {
    fsp.open = realOpen;
    fsp.rename = realRename;
    w.done();
  }
});
