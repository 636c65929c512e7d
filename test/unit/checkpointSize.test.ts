// Checkpoints stay small (seeds 000 and 004: paths, not contents; a 4 KB cap): Modified Files lists at most 25 paths
// then `- … and N more`, and a checkpoint over 4 KB is still written, with a warning that says what made it large.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { capModifiedFiles } from '../../src/core/checkpointSize';
import { CheckpointStore } from '../../src/core/store';
import { git, makeRepo, tempDirs } from '../support/fixtures';

const temp = tempDirs();

const CLI = path.resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

test('capModifiedFiles: 25 paths, then "… and N more"', () => {
  const files = Array.from({ length: 303 }, (_, i) => `src/f${i}.ts`);
  assert.deepEqual(capModifiedFiles(files), [...files.slice(0, 25), '… and 278 more']);
  assert.deepEqual(capModifiedFiles(files.slice(0, 25)), files.slice(0, 25));
  assert.deepEqual(capModifiedFiles([]), []);
});

test('303 modified files: the checkpoint lists 25 and "… and 278 more", stays under 4 KB, with no warning', () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const root = temp();
  mkdirSync(path.join(repo, 'src'));
  for (let i = 0; i < 303; i++) writeFileSync(path.join(repo, 'src', `module-with-a-long-name-${String(i).padStart(3, '0')}.ts`), 'x');
  git(repo, 'add', 'src');
  const mem = path.join(root, 'mem');
  const r = spawnSync(process.execPath, [CLI, 'save', 'big', '--left-off', 'many files', '--dir', mem, '--json'], {
    cwd: repo,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: root },
  });
  assert.equal(r.status, 0, r.stderr);
  const text = readFileSync(path.join(mem, 'checkpoint-big.md'), 'utf8');
  const section = text.slice(text.indexOf('## Modified Files\n') + '## Modified Files\n'.length).trimEnd().split('\n');
  assert.equal(section.length, 26);
  assert.ok(section.slice(0, 25).every((l) => /^- src\/module-with-a-long-name-\d{3}\.ts$/.test(l)));
  assert.equal(section[25], '- … and 278 more');
  assert.ok(statSync(path.join(mem, 'checkpoint-big.md')).size < 4096);
  assert.equal(r.stderr, '', 'no warning');
});

test('a checkpoint over 4 KB is written, with a warning naming what made it large', async () => {
  const root = temp();
  const mem = path.join(root, 'mem');
  const store = new CheckpointStore({ memoryDir: mem, cwd: root, allowGit: false });
  const done = Array.from({ length: 60 }, (_, i) => `Step ${i}: ${'a detailed account of what was done '.repeat(2)}`);
  const r = await store.save({ name: 'wordy', leftOff: 'short', done });
  assert.ok(statSync(r.path).size > 4096, 'written in full');
  assert.equal(r.warnings.length, 1);
  assert.match(r.warnings[0], /Checkpoint "wordy" is \d+\.\d KB, over the 4 KB.*saved anyway.*Largest: Done This Session \d+\.\d KB \(60 items\)/);
  assert.doesNotMatch(r.warnings[0], /Left Off/, 'only what made it large is named');
  const small = await store.save({ name: 'small', leftOff: 'short' });
  assert.deepEqual(small.warnings, []);
  // Through the CLI: a warning on stderr, exit 0.
  const cli = spawnSync(process.execPath, [CLI, 'save', 'long', '--left-off', 'x'.repeat(5000), '--dir', mem, '--cwd', root], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: root },
  });
  assert.equal(cli.status, 0);
  assert.match(cli.stderr, /^Warning: Checkpoint "long" is .* Largest: Left Off 4\.9 KB \(1 line\)/m);
});
