// FIFOs where a save reads files of `.git` it did not write: the repository's config, its index, and the snapshot
// index's note. On 0.2.0 the snapshot's inline read of any of them blocked the event loop, so no time limit fired and
// the save never ended. Now no such read waits: each ends, saved, at most at git's own time limit (a FIFO index or
// config stalls git itself). The test's own timeout only guards against a hang; nothing is timed.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { workspace } from '../support/fixtures';

const skip = process.platform === 'win32' ? 'FIFOs are POSIX' : false;

/** A workspace whose `.git/<file>` is a FIFO no one writes to, after a first save built the snapshot index. */
async function withFifo(file: string): Promise<ReturnType<typeof workspace>> {
  const w = workspace();
  const first = await w.cli(['save', 'first', '--left-off', 'before the FIFO']);
  assert.equal(first.code, 0, first.err);
  const target = path.join(w.repo, '.git', file);
  rmSync(target, { force: true });
  execFileSync('mkfifo', [target]);
  return w;
}

for (const file of ['checkpoint-snapshot-index.json', 'index', 'config']) {
  test(`a FIFO as .git/${file}: save ends and saves`, { skip, timeout: 60_000 }, async () => {
    const w = await withFifo(file);
    try {
      const r = await w.cli(['save', 'after', '--left-off', 'with a FIFO in .git']);
      assert.equal(r.code, 0, r.err);
      assert.ok(existsSync(path.join(w.mem, 'checkpoint-after.md')));
      if (file === 'checkpoint-snapshot-index.json') assert.equal(r.err, '', 'the note is only a hint: the snapshot index is rebuilt, no warning');
    } finally {
      w.done();
    }
  });
}
