// A `.checkpoint.lock` that is not a lock (a regular file, a folder with a file in it, as a cloned repository can
// ship), one dated in the future, and a memory folder this user cannot write: on 0.1.0 (commit 7104910) each made
// every write wait ~28 s and then say "locked by another writer… Try again in a moment". Now each is an error at
// once that names the path and says what is wrong. Nothing is timed: the message tells which path was taken.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { attackWorld, canDropPrivileges, NOBODY } from '../support/attackWorld';
import { LOCK_NAME } from '../../src/core/lock';

const OPTS = { timeout: 120_000 };

test('a .checkpoint.lock that is a regular file, a folder with a file in it, or dated in the future: an error naming it', OPTS, async () => {
  const w = attackWorld();
  try {
    const cases: [string, (lock: string) => void, RegExp][] = [
      ['regular file', (lock) => writeFileSync(lock, 'not a lock\n'), /is a file, not a checkpoint lock/],
      ['folder with a file', (lock) => (mkdirSync(lock), writeFileSync(path.join(lock, 'keep'), '')), /is a folder with files in it \(keep\)/],
      [
        'future mtime',
        (lock) => {
          mkdirSync(lock);
          const t = Date.now() / 1000 + 86_400;
          utimesSync(lock, t, t);
        },
        /is dated in the future/,
      ],
    ];
    for (const [label, make, message] of cases) {
      const mem = path.join(w.root, `mem-${label.replace(/ /g, '-')}`);
      mkdirSync(mem);
      const lock = path.join(mem, LOCK_NAME);
      make(lock);
      for (const args of [['save', 'x', '--left-off', 'x'], ['delete', '--all']]) {
        if (args[0] === 'delete') writeFileSync(path.join(mem, 'checkpoint-y.md'), '---\nname: y\ndescription: y\nbranch: main\nsaved: 2026-11-20T10:00:00.000Z\n---\n# Checkpoint: y\n');
        const r = await w.cli(args, { mem });
        assert.equal(r.code, 1, `${label}: ${args[0]}`);
        assert.match(r.err, message, label);
        assert.ok(r.err.includes(lock), `${label}: the message names ${lock}: ${r.err}`);
        assert.doesNotMatch(r.err, /locked by another writer/, label);
      }
      assert.equal(existsSync(path.join(mem, 'checkpoint-x.md')), false, `${label}: nothing written`);
      assert.ok(existsSync(path.join(mem, 'checkpoint-y.md')), `${label}: nothing moved`);
      assert.deepEqual(readdirSync(mem).sort(), [LOCK_NAME, 'checkpoint-y.md'].sort(), `${label}: nothing else written`);
    }
  } finally {
    w.done();
  }
});

test('a read-only memory folder: save fails at once with "permission denied" naming the folder', { ...OPTS, skip: canDropPrivileges() ? false : 'needs a non-root user or setpriv' }, async () => {
  const w = attackWorld();
  try {
    mkdirSync(w.mem);
    chmodSync(w.mem, 0o555);
    const r = await w.cli(['save', 'x', '--left-off', 'x'], { asUser: NOBODY });
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /permission denied/);
    assert.ok(r.err.includes(w.mem), r.err);
    assert.doesNotMatch(r.err, /locked by another writer/);
    assert.deepEqual(readdirSync(w.mem), []);
  } finally {
    chmodSync(w.mem, 0o755);
    w.done();
  }
});
