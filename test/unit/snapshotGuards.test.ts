import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CheckpointStore } from '../../src/core/store';
import { renderCheckpoint } from '../../src/core/checkpointRender';
import { collectGarbage } from '../../src/core/snapshot/garbage';
import { commitTree, keepSnapshot } from '../../src/core/snapshot/refs';
import { workTreeNow } from '../../src/core/snapshot/workTree';
import { pullCheckpoints, pushCheckpoints } from '../../src/core/handoff';
import { git, makeRepo, remotePair, tempDirs } from '../support/fixtures';
import { takeSnapshot } from '../support/snapshots';

const temp = tempDirs();

function files(repo: string, commit: string): string[] {
  return git(repo, 'ls-tree', '-r', '-z', '--name-only', commit).split('\0').filter(Boolean).sort();
}

/** True when the repository's object database holds these bytes as a blob. */
function hasBlob(repo: string, bytes: Buffer | string): boolean {
  const sha = execFileSync('git', ['hash-object', '--stdin'], { cwd: repo, input: bytes }).toString().trim();
  try {
    execFileSync('git', ['cat-file', '-e', sha], { cwd: repo, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('a snapshot leaves out likely secrets and the memory folder, as save-and-commit does', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  writeFileSync(path.join(repo, 'server.pem'), 'committed certificate\n');
  git(repo, 'add', 'server.pem');
  git(repo, 'commit', '-q', '-m', 'certificate');
  writeFileSync(path.join(repo, 'server.pem'), 'PRIVATE KEY changed locally\n');
  writeFileSync(path.join(repo, '.env'), 'TOKEN=never-shared\n');
  mkdirSync(path.join(repo, '.ssh'));
  writeFileSync(path.join(repo, '.ssh', 'id_rsa'), 'ssh private key\n');
  writeFileSync(path.join(repo, 'work.ts'), 'export const work = 1;\n');
  const mem = path.join(repo, 'notes');
  const store = new CheckpointStore({ memoryDir: mem, cwd: repo });
  const saved = await store.save({ name: 'secrets', leftOff: 'x' });
  const snap = saved.checkpoint.snapshot!;
  assert.ok(snap, saved.warnings.join('\n'));
  assert.deepEqual(files(repo, snap), ['README.md', 'server.pem', 'work.ts']);
  assert.equal(git(repo, 'show', `${snap}:server.pem`), 'committed certificate', 'a tracked secret keeps its committed content');
  assert.equal(hasBlob(repo, 'TOKEN=never-shared\n'), false, 'the secret never reaches the object database');
  assert.equal(hasBlob(repo, 'PRIVATE KEY changed locally\n'), false);
});

test('push never publishes a snapshot holding a secret file nobody committed, nor one holding the memory folder', async () => {
  const root = temp();
  const { a, bare } = remotePair(root);
  const mem = path.join(root, 'mem');
  const store = new CheckpointStore({ memoryDir: mem, cwd: a });
  // A snapshot taken before the secret rule applied to snapshots (or by another tool): it holds .env.
  writeFileSync(path.join(a, '.env'), 'TOKEN=old-snapshot\n');
  const index = path.join(root, 'tmp-index');
  execFileSync('git', ['read-tree', 'HEAD'], { cwd: a, env: { ...process.env, GIT_INDEX_FILE: index } });
  execFileSync('git', ['add', '-A'], { cwd: a, env: { ...process.env, GIT_INDEX_FILE: index } });
  const tree = execFileSync('git', ['write-tree'], { cwd: a, env: { ...process.env, GIT_INDEX_FILE: index } }).toString().trim();
  const head = git(a, 'rev-parse', 'HEAD');
  const leaky = await commitTree(a, tree, head, 'checkpoint: leaky');
  await store.save({ name: 'leaky', leftOff: 'x', snapshot: { enabled: false } });
  const file = (await store.show('leaky')).path;
  writeFileSync(file, renderCheckpoint({ ...(await store.show('leaky')), head, snapshot: leaky }));
  await keepSnapshot(a, 'leaky', leaky);

  const pushed = await pushCheckpoints(store, ['leaky']);
  assert.deepEqual(pushed.pushed, [{ name: 'leaky' }]);
  assert.match(pushed.warnings.join('\n'), /\.env/);
  assert.deepEqual(git(bare, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints').split('\n'), ['refs/checkpoints/files/leaky']);
  assert.equal(hasBlob(bare, 'TOKEN=old-snapshot\n'), false);
});

function splitIndexCount(repo: string): string[] {
  return readdirSync(path.join(repo, '.git')).filter((f) => f.startsWith('sharedindex.'));
}

test('with core.splitIndex a snapshot and a diff leave no shared index file behind', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  for (let i = 0; i < 20; i++) writeFileSync(path.join(repo, `f${i}.txt`), `${i}\n`);
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'files');
  git(repo, 'config', 'core.splitIndex', 'true');
  git(repo, 'update-index', '--split-index');
  writeFileSync(path.join(repo, 'f1.txt'), 'changed\n');
  writeFileSync(path.join(repo, 'new.txt'), 'new\n');
  const before = splitIndexCount(repo);
  assert.equal(before.length, 1);
  const out = await takeSnapshot(repo, 'split');
  assert.ok(out.snapshot, out.warnings.join('\n'));
  await workTreeNow(repo);
  writeFileSync(path.join(repo, 'f2.txt'), 'changed too\n');
  assert.ok((await takeSnapshot(repo, 'split')).snapshot);
  assert.deepEqual(splitIndexCount(repo), before);
});

test('compare with now never stores an untracked file the save refused as too large', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const big = Buffer.alloc(200_000, 7);
  writeFileSync(path.join(repo, 'dump.bin'), big);
  writeFileSync(path.join(repo, 'small.txt'), 'small\n');
  const out = await takeSnapshot(repo, 'big', { fileLimitBytes: 100_000 });
  assert.ok(out.snapshot, out.warnings.join('\n'));
  assert.deepEqual(out.skipped, ['dump.bin']);
  assert.deepEqual(files(repo, out.snapshot.commit), ['README.md', 'small.txt']);
  const now = await workTreeNow(repo, { fileLimitBytes: 100_000 });
  assert.deepEqual(files(repo, now.tree), ['README.md', 'small.txt']);
  assert.deepEqual(now.skipped, ['dump.bin']);
  assert.equal(hasBlob(repo, big), false);
});

test('pull makes snapshot refs only for commits fetched from the remote, never from the snapshot field alone', async () => {
  const root = temp();
  const { a, b } = remotePair(root);
  // B has a private commit; a checkpoint pushed by someone else names it as its snapshot.
  writeFileSync(path.join(b, 'private.txt'), 'not for the remote\n');
  git(b, 'add', 'private.txt');
  git(b, 'commit', '-q', '-m', 'private');
  const secret = git(b, 'rev-parse', 'HEAD');
  const memA = path.join(root, 'mem-a');
  const storeA = new CheckpointStore({ memoryDir: memA, cwd: a });
  await storeA.save({ name: 'bait', leftOff: 'x', snapshot: { enabled: false } });
  const baitFile = (await storeA.show('bait')).path;
  writeFileSync(baitFile, renderCheckpoint({ ...(await storeA.show('bait')), snapshot: secret }));
  // Push with the field as it is (the commit is not in A, so no snapshot ref goes along).
  await pushCheckpoints(storeA, ['bait']);

  const storeB = new CheckpointStore({ memoryDir: path.join(root, 'mem-b'), cwd: b });
  const pulled = await pullCheckpoints(storeB);
  assert.deepEqual(pulled.written.map((w) => w.name), ['bait']);
  assert.equal(pulled.written[0].snapshot, undefined);
  assert.deepEqual(git(b, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints'), '');
  assert.equal((await storeB.show('bait')).snapshot, undefined);
});

test('gc keeps the snapshot ref of a live checkpoint it cannot parse', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(temp(), 'mem');
  const store = new CheckpointStore({ memoryDir: mem, cwd: repo });
  writeFileSync(path.join(repo, 'a.txt'), '1\n');
  const saved = await store.save({ name: 'x', leftOff: 'x' });
  const snap = saved.checkpoint.snapshot!;
  await store.save({ name: 'x', leftOff: 'again', force: true });
  // The live x now names the first snapshot again, but its file cannot be parsed.
  writeFileSync(saved.path, `garbage without front matter ${snap}\n`);
  git(repo, 'update-ref', 'refs/checkpoints/snapshots/x', snap);
  assert.ok((await store.list({ includeJson: false })).some((c) => c.name === 'x' && c.unreadable !== undefined));
  await collectGarbage(store, 0);
  assert.equal(git(repo, 'rev-parse', '-q', '--verify', 'refs/checkpoints/snapshots/x'), snap);
});

test('a file over the per-file cap is left out of the snapshot and listed in the front matter; the rest is kept', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  writeFileSync(path.join(repo, 'dump.bin'), Buffer.alloc(50_000, 1));
  writeFileSync(path.join(repo, 'work.ts'), 'export const work = 2;\n');
  const store = new CheckpointStore({ memoryDir: path.join(temp(), 'mem'), cwd: repo });
  const saved = await store.save({ name: 'capped', leftOff: 'x', snapshot: { fileLimitBytes: 10_000 } });
  assert.deepEqual(files(repo, saved.checkpoint.snapshot!), ['README.md', 'work.ts']);
  assert.match(saved.warnings.join('\n'), /Left out of the code snapshot as larger than .*dump\.bin/);
  assert.deepEqual((await store.show('capped')).snapshotLeftOut, ['dump.bin']);
});

test('pull skips a pushed checkpoint that would be larger than show and resume read once written here, and writes the others', async () => {
  const root = temp();
  const { a, b, bare } = remotePair(root);
  const storeA = new CheckpointStore({ memoryDir: path.join(root, 'mem-a'), cwd: a });
  await storeA.save({ name: 'fine', leftOff: 'small', snapshot: { enabled: false } });
  await pushCheckpoints(storeA, ['fine']);
  // A pushed file under the 4 MB limit whose control characters, escaped as \u0001 when written, take it past it.
  const text = renderCheckpoint({ name: 'bloat', description: 'x', branch: 'main', saved: '2026-11-20T10:00:00.000Z', leftOff: 'x', done: ['d'], failed: [], decisions: [], questions: [], modifiedFiles: [] }).replace(
    '- d',
    `- ${'\u0001'.repeat(800_000)}`,
  );
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: bare, input: text, encoding: 'utf8' }).trim();
  const tree = execFileSync('git', ['mktree'], { cwd: bare, input: `100644 blob ${blob}\tcheckpoint-bloat.md\n`, encoding: 'utf8' }).trim();
  git(bare, 'update-ref', 'refs/checkpoints/files/bloat', await commitTree(bare, tree, '', 'checkpoint file: bloat'));
  const storeB = new CheckpointStore({ memoryDir: path.join(root, 'mem-b'), cwd: b });
  const r = await pullCheckpoints(storeB);
  assert.deepEqual(r.written.map((w) => w.name), ['fine']);
  assert.equal(r.skipped[0]?.name, 'bloat');
  assert.match(r.skipped[0].reason, /too large once written/);
  assert.ok(!readdirSync(path.join(root, 'mem-b')).includes('checkpoint-bloat.md'));
});
