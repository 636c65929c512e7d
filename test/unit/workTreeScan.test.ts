import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { adoptWorkTreeScan, startWorkTreeScan } from '../../src/core/workTreeScan';
import { makeRepo, tempDirs } from '../support/fixtures';

const temp = tempDirs();

test('a work-tree scan started early (the CLI entry starts one for resume and show) is taken in its own folder only, once', async () => {
  const a = makeRepo({ dir: temp('checkpoint-repo-') });
  const b = makeRepo({ dir: temp('checkpoint-repo-') });
  writeFileSync(path.join(a, 'README.md'), 'changed\n');
  writeFileSync(path.join(a, 'new file.txt'), 'x');
  startWorkTreeScan(a, process.env);
  const signal = new AbortController().signal;
  assert.equal(adoptWorkTreeScan(b, signal), undefined, 'another folder has none');
  const early = adoptWorkTreeScan(a, signal);
  assert.ok(early);
  // The index against the work tree (the README's stat changed: its id is not read), and the untracked files.
  assert.match(await early.changed, /^:100644 100644 [0-9a-f]{40} 0{40} M\0README\.md\0$/);
  assert.equal(await early.untracked, 'new file.txt\0');
  assert.equal(adoptWorkTreeScan(a, signal), undefined, 'taken once');
});

test('an early work-tree scan: the abort of the comparison that took it stops it; outside a repository it fails as git does', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  startWorkTreeScan(repo, process.env);
  const stop = new AbortController();
  stop.abort();
  const early = adoptWorkTreeScan(repo, stop.signal);
  assert.ok(early);
  await assert.rejects(early.changed, /canceled/);
  await assert.rejects(early.untracked, /canceled/);

  const plain = temp();
  startWorkTreeScan(plain, process.env);
  const none = adoptWorkTreeScan(plain, new AbortController().signal);
  await assert.rejects(none!.changed, /not a git repository/);
  await assert.rejects(none!.untracked, /not a git repository/);
});
