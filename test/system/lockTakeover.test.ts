// A writer whose lock was taken over while it stalled must never write its old copy of MEMORY.md. On 0.1.0 (commit
// 7104910) a save that stalled inside the lock (its Left Off held a long white-space run, #1) let the lock go stale;
// five other saves took it and exited 0; then the slow one wrote the MEMORY.md it had read before: 0 of their 5
// bullets survived. Here the stall is made certain instead of timed: the save (through the core, as the extension
// runs it) is held right after its checkpoint file is in place, the lock is aged past the stale time (what the clock
// would do, without waiting for it), five CLI saves run to completion, and the held save continues.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { promises as fsp, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { attackWorld } from '../support/attackWorld';
import { CheckpointStore } from '../../src/core/store';
import { indexedNames } from '../../src/core/memoryIndex';
import { LOCK_NAME } from '../../src/core/lock';

test('a save held past the stale time while 5 others take the lock over: all 6 bullets survive, the user text too', { timeout: 120_000 }, async () => {
  const w = attackWorld();
  const realRename = fsp.rename;
  try {
    mkdirSync(w.mem);
    const user = '# Memory\n\nMy own notes.\n';
    writeFileSync(path.join(w.mem, 'MEMORY.md'), user);
    const slowFile = path.join(w.mem, 'checkpoint-slow.md');
    let reached!: () => void;
    const atPause = new Promise<void>((r) => (reached = r));
    let go!: () => void;
    const gate = new Promise<void>((r) => (go = r));
    let held = false;
    // The stall: the first rename onto the slow checkpoint's file completes, then the save waits at the gate.
    fsp.rename = (async (from: string, to: string) => {
      await realRename(from, to);
      if (to === slowFile && !held) {
        held = true;
        reached();
        await gate;
      }
    }) as typeof fsp.rename;
    const store = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo, allowGit: false });
    const slow = store.save({ name: 'slow', leftOff: 'the slow writer' });
    await atPause;
    const lock = path.join(w.mem, LOCK_NAME);
    const past = Date.now() / 1000 - 60;
    utimesSync(lock, past, past);
    for (let i = 0; i < 5; i++) {
      const r = await w.cli(['save', `fast-${i}`, '--left-off', `fast writer ${i}`]);
      assert.equal(r.code, 0, r.err);
    }
    go();
    const result = await slow;
    assert.equal(result.checkpoint.name, 'slow');
    const index = readFileSync(path.join(w.mem, 'MEMORY.md'), 'utf8');
    assert.deepEqual(indexedNames(index).sort(), ['fast-0', 'fast-1', 'fast-2', 'fast-3', 'fast-4', 'slow']);
    assert.ok(index.startsWith('# Memory\n') && index.endsWith('My own notes.\n'), index);
  } finally {
    fsp.rename = realRename;
    w.done();
  }
});
