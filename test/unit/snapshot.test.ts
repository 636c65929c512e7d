import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CheckpointExistsError, CheckpointStore } from '../../src/core/store';
import { parseCheckpoint } from '../../src/core/checkpointParse';
import { renderCheckpoint } from '../../src/core/checkpointRender';
import type { Checkpoint } from '../../src/core/checkpoint';
import { keepSnapshot } from '../../src/core/snapshot/refs';
import { workTreeNow } from '../../src/core/snapshot/workTree';
import { inlineReads } from '../../src/core/reads';
import { git, makeRepo, tempDirs } from '../support/fixtures';
import { commitFiles, contentHash, takeSnapshot, workTreeFiles } from '../support/snapshots';

const temp = tempDirs();

/** What a snapshot must never change: the index file's bytes, HEAD, the stash, the branches, and the work tree. */
function userState(repo: string): Record<string, unknown> {
  const gitDir = path.resolve(repo, git(repo, 'rev-parse', '--git-dir').trim());
  const index = path.join(gitDir, 'index');
  return {
    index: existsSync(index) ? contentHash(readFileSync(index)) : 'none',
    headFile: readFileSync(path.join(gitDir, 'HEAD'), 'utf8'),
    head: spawnOut(repo, ['rev-parse', '-q', '--verify', 'HEAD']),
    stash: spawnOut(repo, ['stash', 'list']),
    stashRef: spawnOut(repo, ['rev-parse', '-q', '--verify', 'refs/stash']),
    branches: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads', 'refs/tags'),
    status: spawnOut(repo, ['status', '--porcelain=v2', '-z', '--untracked-files=all']),
    workTree: workTreeFiles(repo),
  };
}

function spawnOut(cwd: string, args: string[]): string {
  try {
    // GIT_OPTIONAL_LOCKS=0: the test's own `git status` must not refresh (rewrite) the index it compares.
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
  } catch {
    return '(none)';
  }
}

/** The snapshot's files and their bytes' hashes, as git stores them. */
function snapshotFiles(repo: string, commit: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rec of git(repo, 'ls-tree', '-r', '-z', commit).split('\0').filter(Boolean)) {
    const [meta, p] = rec.split('\t');
    const [mode, type, sha] = meta.split(' ');
    if (type !== 'blob') {
      out[p] = `${mode} ${sha}`;
      continue;
    }
    const bytes = execFileSync('git', ['cat-file', 'blob', sha], { cwd: repo });
    out[p] = contentHash(bytes);
  }
  return out;
}

function setup(opts: { commit?: boolean } = {}): { repo: string; mem: string; store: CheckpointStore } {
  const repo = makeRepo({ ...opts, dir: temp('checkpoint-repo-') });
  const mem = path.join(temp(), 'memory');
  return { repo, mem, store: new CheckpointStore({ memoryDir: mem, cwd: repo }) };
}

const BINARY = Buffer.from([0, 1, 2, 255, 254, 0, 10, 13, 0, 7]);

test('a snapshot records tracked changes and untracked files, leaving index, work tree, stash and HEAD byte-identical', async () => {
  const { repo, store } = setup();
  commitFiles(repo, { '.gitignore': 'build/\n*.log\n', 'old name.txt': 'to be renamed\n', 'gone.txt': 'to be deleted\n', 'staged.txt': 'v1\n' }, 'files');
  // A stash entry the snapshot must not touch.
  writeFileSync(path.join(repo, 'README.md'), 'stashed change\n');
  git(repo, 'stash', '-q');
  // Tracked changes: modified, staged then modified again, renamed, deleted; untracked text and binary; ignored.
  writeFileSync(path.join(repo, 'README.md'), '# demo\nchanged in the work tree\n');
  writeFileSync(path.join(repo, 'staged.txt'), 'v2 staged\n');
  git(repo, 'add', 'staged.txt');
  writeFileSync(path.join(repo, 'staged.txt'), 'v3 in the work tree\n');
  git(repo, 'mv', 'old name.txt', 'new name.txt');
  unlinkSync(path.join(repo, 'gone.txt'));
  mkdirSync(path.join(repo, 'src', 'deep'), { recursive: true });
  writeFileSync(path.join(repo, 'src', 'deep', 'new.ts'), 'export const x = 1;\n');
  writeFileSync(path.join(repo, 'image.bin'), BINARY);
  mkdirSync(path.join(repo, 'build'));
  writeFileSync(path.join(repo, 'build', 'out.js'), 'ignored\n');
  writeFileSync(path.join(repo, 'debug.log'), 'ignored\n');
  const before = userState(repo);

  const r = await store.save({ name: 'snap', leftOff: 'testing' });

  assert.deepEqual(userState(repo), before, 'index, HEAD, stash, branches and work tree unchanged');
  const head = git(repo, 'rev-parse', 'HEAD').trim();
  assert.equal(r.checkpoint.head, head);
  assert.match(r.checkpoint.snapshot ?? '', /^[0-9a-f]{40}$/);
  const snap = r.checkpoint.snapshot!;
  assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/snap').trim(), snap);
  assert.equal(git(repo, 'rev-parse', `${snap}^`).trim(), head, 'HEAD is the parent');
  // Exactly the work tree's files that git does not ignore, with their bytes.
  const expected = workTreeFiles(repo);
  delete expected['build/out.js'];
  delete expected['debug.log'];
  assert.deepEqual(snapshotFiles(repo, snap), expected);
  assert.ok(!('gone.txt' in expected) && !('old name.txt' in expected) && 'new name.txt' in expected && 'image.bin' in expected);
  // The file says so in its front matter, and reads back.
  const text = readFileSync(r.path, 'utf8');
  assert.match(text, new RegExp(`\\nhead: "${head}"\\nsnapshot: "${snap}"\\n---\\n`));
  const back = await store.show('snap');
  assert.equal(back.snapshot, snap);
  assert.equal(back.head, head);
});

test('a repository with no commits: a snapshot without a parent, no head in the front matter', async () => {
  const { repo, store } = setup({ commit: false });
  writeFileSync(path.join(repo, 'first.txt'), 'first\n');
  writeFileSync(path.join(repo, 'staged.txt'), 'staged\n');
  git(repo, 'add', 'staged.txt');
  const before = userState(repo);
  const r = await store.save({ name: 'fresh' });
  assert.deepEqual(userState(repo), before);
  assert.equal(r.checkpoint.head, undefined);
  const snap = r.checkpoint.snapshot!;
  assert.equal(git(repo, 'rev-list', '--parents', '-n', '1', snap).trim(), snap, 'no parent');
  assert.deepEqual(Object.keys(snapshotFiles(repo, snap)).sort(), ['first.txt', 'staged.txt']);
  const text = readFileSync(r.path, 'utf8');
  assert.doesNotMatch(text, /\nhead:/);
  assert.match(text, /\nsnapshot: "[0-9a-f]{40}"\n/);
});

test('saves in a row before the first commit and with no identity git will use: each snapshot is parentless, by Checkpoint, equal to a fresh git add -A', async (t) => {
  const { repo, store } = setup({ commit: false });
  git(repo, 'config', '--unset', 'user.name');
  git(repo, 'config', '--unset', 'user.email');
  git(repo, 'config', 'user.useConfigOnly', 'true');
  // git reads the user's global identity from HOME: an empty one here.
  const home = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = temp();
  delete process.env.XDG_CONFIG_HOME;
  t.after(() => {
    for (const [k, v] of Object.entries(home)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  });
  for (let i = 0; i < 3; i++) {
    // The second and third saves update the snapshot index the first one built.
    writeFileSync(path.join(repo, 'first.txt'), `first ${i}\n`);
    writeFileSync(path.join(repo, `new-${i}.txt`), `${i}\n`);
    const expected = freshAddTree(repo);
    const r = await store.save({ name: 'nocommit', leftOff: `save ${i + 1}`, force: true });
    const snap = r.checkpoint.snapshot;
    assert.ok(snap, r.warnings.join('\n'));
    assert.equal(git(repo, 'rev-parse', `${snap}^{tree}`).trim(), expected.trim(), `save ${i + 1}`);
    assert.equal(git(repo, 'rev-list', '--parents', '-n', '1', snap).trim(), snap, 'no parent');
    assert.equal(git(repo, 'log', '-1', '--format=%an <%ae>', snap).trim(), 'Checkpoint <checkpoint@localhost>');
    assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/nocommit').trim(), snap);
  }
});

test('a repository with no commits and no index file: the snapshot holds the untracked files', async () => {
  const { repo, store } = setup({ commit: false });
  writeFileSync(path.join(repo, 'only.txt'), 'only\n');
  const before = userState(repo);
  assert.equal(before.index, 'none');
  const r = await store.save({ name: 'noindex' });
  assert.deepEqual(userState(repo), before, 'still no index file');
  assert.deepEqual(Object.keys(snapshotFiles(repo, r.checkpoint.snapshot!)), ['only.txt']);
});

test('detached HEAD: the snapshot hangs off the detached commit and HEAD stays detached', async () => {
  const { repo, store } = setup();
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  git(repo, 'add', 'a.txt');
  git(repo, 'commit', '-q', '-m', 'a');
  git(repo, 'checkout', '-q', '--detach', 'HEAD~1');
  writeFileSync(path.join(repo, 'wip.txt'), 'wip\n');
  const before = userState(repo);
  const r = await store.save({ name: 'detached' });
  assert.deepEqual(userState(repo), before);
  const head = git(repo, 'rev-parse', 'HEAD').trim();
  assert.equal(r.checkpoint.head, head);
  assert.equal(git(repo, 'rev-parse', `${r.checkpoint.snapshot}^`).trim(), head);
  assert.deepEqual(Object.keys(snapshotFiles(repo, r.checkpoint.snapshot!)).sort(), ['README.md', 'wip.txt']);
});

test('a submodule is recorded at its commit, its own changes skipped, with a note', async () => {
  const { repo, store } = setup();
  const sub = makeRepo({ dir: temp('checkpoint-repo-') });
  git(repo, '-c', 'protocol.file.allow=always', 'submodule', '--quiet', 'add', sub, 'libs/sub');
  git(repo, 'commit', '-q', '-m', 'submodule');
  const subHead = git(path.join(repo, 'libs', 'sub'), 'rev-parse', 'HEAD').trim();
  writeFileSync(path.join(repo, 'libs', 'sub', 'README.md'), 'changed inside the submodule\n');
  writeFileSync(path.join(repo, 'top.txt'), 'top\n');
  const before = userState(repo);
  const subIndex = readFileSync(path.join(repo, '.git', 'modules', 'libs', 'sub', 'index'));
  const r = await store.save({ name: 'with-sub' });
  assert.deepEqual(userState(repo), before);
  assert.ok(readFileSync(path.join(repo, '.git', 'modules', 'libs', 'sub', 'index')).equals(subIndex), "the submodule's index is untouched");
  const files = snapshotFiles(repo, r.checkpoint.snapshot!);
  assert.equal(files['libs/sub'], `160000 ${subHead}`);
  assert.ok('top.txt' in files);
  assert.ok(r.warnings.some((w) => /Submodule libs\/sub is recorded at its commit; its own uncommitted changes are not in the snapshot/.test(w)), r.warnings.join('\n'));
});

test('new content over the size limit: the checkpoint is saved without a snapshot, with a warning', async () => {
  const { repo, store } = setup();
  writeFileSync(path.join(repo, 'big.bin'), Buffer.alloc(300_000, 1));
  writeFileSync(path.join(repo, 'small.txt'), 'small\n');
  const before = userState(repo);
  const objectsBefore = git(repo, 'count-objects', '-v');
  const r = await store.save({ name: 'big', snapshot: { limitBytes: 100_000 } });
  assert.deepEqual(userState(repo), before);
  assert.equal(r.checkpoint.snapshot, undefined);
  assert.ok(r.warnings.some((w) => /Code snapshot skipped: .*more than 0\.1 MB.*big\.bin \(0\.3 MB\)/.test(w)), r.warnings.join('\n'));
  assert.equal(git(repo, 'count-objects', '-v'), objectsBefore, 'no blob was written');
  assert.doesNotMatch(readFileSync(r.path, 'utf8'), /snapshot:/);
  assert.equal(spawnOut(repo, ['for-each-ref', 'refs/checkpoints']), '');
});

test('a save over the size limit leaves the snapshot index as it was and unlocked; one no longer trusted is rebuilt, then trusted again', async () => {
  const { repo, store } = setup();
  const own = path.join(repo, '.git', 'checkpoint-snapshot-index');
  writeFileSync(path.join(repo, 'taken.txt'), 'taken\n');
  await store.save({ name: 'early', force: true });
  writeFileSync(path.join(repo, 'a.txt'), 'a 1\n');
  // The snapshot index is now the one its note names: the next save updates it in place.
  const trusted = await store.save({ name: 'early', force: true });
  assert.equal(git(repo, 'rev-parse', `${trusted.checkpoint.snapshot}^{tree}`).trim(), freshAddTree(repo));
  const ownBefore = readFileSync(own);
  // Over the size limit: no snapshot, the snapshot index untouched and unlocked, no git left running.
  writeFileSync(path.join(repo, 'big.bin'), Buffer.alloc(300_000, 1));
  const big = await store.save({ name: 'early', force: true, snapshot: { limitBytes: 100_000 } });
  assert.equal(big.checkpoint.snapshot, undefined);
  assert.deepEqual(readFileSync(own), ownBefore, 'the snapshot index is as it was');
  assert.equal(existsSync(`${own}.lock`), false);
  await gitProcessesEnded();
  // A file the snapshot index took is gone: it is not trusted, and is rebuilt.
  rmSync(path.join(repo, 'big.bin'));
  rmSync(path.join(repo, 'taken.txt'));
  const rebuilt = await store.save({ name: 'early', force: true });
  assert.equal(git(repo, 'rev-parse', `${rebuilt.checkpoint.snapshot}^{tree}`).trim(), freshAddTree(repo));
  assert.equal(existsSync(`${own}.lock`), false);
  await gitProcessesEnded();
  // And the next one is trusted again.
  writeFileSync(path.join(repo, 'a.txt'), 'a 2\n');
  const again = await store.save({ name: 'early', force: true });
  assert.equal(git(repo, 'rev-parse', `${again.checkpoint.snapshot}^{tree}`).trim(), freshAddTree(repo));
  assert.deepEqual(again.warnings, []);
});

test('snapshot off, outside git, and in Restricted Mode: no snapshot and no warning', async () => {
  const { repo, store } = setup();
  const plain = temp();
  writeFileSync(path.join(repo, 'x.txt'), 'x\n');
  const off = await store.save({ name: 'off', snapshot: { enabled: false } });
  assert.equal(off.checkpoint.snapshot, undefined);
  assert.deepEqual(off.warnings, []);
  const restricted = new CheckpointStore({ memoryDir: path.join(plain, 'mem1'), cwd: repo, allowGit: false });
  assert.equal((await restricted.save({ name: 'r' })).checkpoint.snapshot, undefined);
  const outside = new CheckpointStore({ memoryDir: path.join(plain, 'mem2'), cwd: plain });
  const r = await outside.save({ name: 'outside' });
  assert.equal(r.checkpoint.snapshot, undefined);
  assert.deepEqual(r.warnings, []);
  assert.equal(spawnOut(repo, ['for-each-ref', 'refs/checkpoints']), '');
});

test('overwriting a checkpoint keeps the previous snapshot reachable (a trashed copy may name it)', async () => {
  const { repo, store } = setup();
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  const first = await store.save({ name: 'same' });
  writeFileSync(path.join(repo, 'a.txt'), 'two\n');
  const second = await store.save({ name: 'same', force: true });
  assert.notEqual(first.checkpoint.snapshot, second.checkpoint.snapshot);
  assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/same').trim(), second.checkpoint.snapshot);
  assert.equal(git(repo, 'rev-parse', `refs/checkpoints/kept/${first.checkpoint.snapshot}`).trim(), first.checkpoint.snapshot);
  // The same snapshot again moves nothing.
  await keepSnapshot(repo, 'same', second.checkpoint.snapshot!);
  assert.equal(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints').trim().split('\n').length, 2);
});

test('a save that is refused moves no snapshot ref: the name keeps the snapshot its checkpoint names', async () => {
  const { repo, store } = setup();
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  const first = await store.save({ name: 'kept' });
  const fresh = await store.save({ name: 'fresh-name' });
  writeFileSync(path.join(repo, 'a.txt'), 'two\n');
  const objects = git(repo, 'count-objects', '-v');
  const own = readFileSync(path.join(repo, '.git', 'checkpoint-snapshot-index'));
  await assert.rejects(store.save({ name: 'kept' }), CheckpointExistsError);
  // Refused before git ran: no snapshot was made for it.
  assert.equal(git(repo, 'count-objects', '-v'), objects, 'no object was written');
  assert.deepEqual(readFileSync(path.join(repo, '.git', 'checkpoint-snapshot-index')), own, 'the snapshot index is as it was');
  assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/kept').trim(), first.checkpoint.snapshot);
  assert.equal((await store.show('kept')).snapshot, first.checkpoint.snapshot);
  // A name whose ref did not exist before the refused save has none after it either.
  git(repo, 'update-ref', '-d', 'refs/checkpoints/snapshots/fresh-name');
  await assert.rejects(store.save({ name: 'fresh-name' }), CheckpointExistsError);
  assert.equal(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints/snapshots/fresh-name').trim(), '');
  assert.ok(fresh.checkpoint.snapshot);
  await gitProcessesEnded();
});

test('a save that fails after its snapshot was made (MEMORY.md cannot be replaced) moves no ref and leaves no git running', async () => {
  const { repo, mem, store } = setup();
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  const first = await store.save({ name: 'kept' });
  const index = path.join(mem, 'MEMORY.md');
  rmSync(index);
  mkdirSync(index);
  writeFileSync(path.join(repo, 'a.txt'), 'two\n');
  await assert.rejects(store.save({ name: 'kept', force: true }));
  assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/kept').trim(), first.checkpoint.snapshot);
  // No git the snapshot started outlives the failed save.
  await gitProcessesEnded();
});

/** Resolves once this process has no child process left; fails when one is still running after 5 s (git's limit is 10 s). */
async function gitProcessesEnded(): Promise<void> {
  const deadline = Date.now() + 5000;
  while (process.getActiveResourcesInfo().includes('ProcessWrap')) {
    if (Date.now() > deadline) assert.fail('a git process is still running');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Two saves of different work trees, `name` and then `other`, with their snapshots. */
async function twoSaves(name: string): Promise<{ repo: string; store: CheckpointStore; first: string; other: string }> {
  const { repo, store } = setup();
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  const first = (await store.save({ name })).checkpoint.snapshot!;
  writeFileSync(path.join(repo, 'a.txt'), 'two\n');
  const other = (await store.save({ name: 'other' })).checkpoint.snapshot!;
  assert.ok(first && other && first !== other);
  return { repo, store, first, other };
}

test('a snapshot ref moved by another writer since the checkpoint was read: the save moves it on and keeps the other snapshot', async () => {
  const { repo, store, other } = await twoSaves('moved');
  // Another writer points the name's ref at another snapshot: the checkpoint file still names the first one.
  git(repo, 'update-ref', 'refs/checkpoints/snapshots/moved', other);
  writeFileSync(path.join(repo, 'a.txt'), 'three\n');
  const third = await store.save({ name: 'moved', force: true });
  assert.deepEqual(third.warnings.filter((w) => /ref/.test(w)), []);
  assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/moved').trim(), third.checkpoint.snapshot);
  assert.equal(git(repo, 'rev-parse', `refs/checkpoints/kept/${other}`).trim(), other);
});

test('a snapshot ref that another writer made after this save looked is moved with its kept ref, never overwritten', async () => {
  const { repo, first, other } = await twoSaves('raced');
  // This save looked before the first one's ref existed: its guess of the old value is "none".
  await keepSnapshot(repo, 'raced', other, undefined, '');
  assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/raced').trim(), other);
  assert.equal(git(repo, 'rev-parse', `refs/checkpoints/kept/${first}`).trim(), first);
});

test('a guess of the old value that is the snapshot itself is checked: a ref that never got it is set', async () => {
  const { repo, store } = setup();
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  const saved = await store.save({ name: 'lost' });
  const snap = saved.checkpoint.snapshot!;
  // The ref update of that save was lost: the checkpoint names a snapshot no ref keeps.
  git(repo, 'update-ref', '-d', 'refs/checkpoints/snapshots/lost');
  // A save that makes the same commit guesses it from the checkpoint it replaces.
  await keepSnapshot(repo, 'lost', snap, undefined, snap);
  assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/lost').trim(), snap);
});

test('a name git refuses as a ref: saved without a snapshot, with the reason', async () => {
  const { store } = setup();
  const r = await store.save({ name: 'wip.lock' });
  assert.equal(r.checkpoint.snapshot, undefined);
  assert.ok(r.warnings.some((w) => /Code snapshot skipped: "wip\.lock" cannot be part of a git ref name/.test(w)), r.warnings.join('\n'));
  assert.ok(existsSync(r.path));
});

test('a git that hangs is stopped at the time limit and the save goes on', async () => {
  const { repo, mem } = setup();
  const bin = temp();
  const saved = process.env.PATH;
  try {
    // A `git` first on PATH that runs the real one, but sleeps while hashing the work tree into the snapshot index
    // (as a huge tree or a stuck filter would).
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\nfor a in "$@"; do [ "$a" = update-index ] && exec sleep 30; done\nexec '${real}' "$@"\n`, { mode: 0o755 });
    process.env.PATH = `${bin}${path.delimiter}${saved}`;
    writeFileSync(path.join(repo, 'x.txt'), 'x\n');
    const t0 = Date.now();
    const r = await new CheckpointStore({ memoryDir: mem, cwd: repo }).save({ name: 'slow', snapshot: { timeLimitMs: 1500 } });
    assert.ok(Date.now() - t0 < 10_000, 'the save did not wait for git');
    assert.equal(r.checkpoint.snapshot, undefined);
    assert.ok(r.warnings.some((w) => /Code snapshot skipped: git did not answer within \d+ s and was stopped/.test(w)), r.warnings.join('\n'));
    assert.ok(existsSync(r.path));
    // The reason stays with the checkpoint, for the tree's tooltip.
    assert.match((await new CheckpointStore({ memoryDir: mem, cwd: repo }).show('slow')).snapshotSkipped ?? '', /git did not answer within \d+ s/);
  } finally {
    process.env.PATH = saved;
  }
});

test('git stopped at the time limit on the snapshot index: the snapshot is skipped, not rebuilt (its git would hang again)', async () => {
  const { repo, mem } = setup();
  const bin = temp();
  const log = path.join(bin, 'update-index.log');
  const hang = path.join(bin, 'hang');
  const saved = process.env.PATH;
  try {
    // A `git` first on PATH that runs the real one, but, once `hang` exists, logs and sleeps in update-index (as a
    // clean filter that hangs on the changed file would).
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(
      path.join(bin, 'git'),
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = update-index ] && [ -e '${hang}' ] && echo run >> '${log}' && exec sleep 30; done\nexec '${real}' "$@"\n`,
      { mode: 0o755 },
    );
    process.env.PATH = `${bin}${path.delimiter}${saved}`;
    const store = new CheckpointStore({ memoryDir: mem, cwd: repo });
    writeFileSync(path.join(repo, 'x.txt'), 'x\n');
    assert.ok((await store.save({ name: 'slow' })).checkpoint.snapshot);
    // The snapshot index is now trusted: the next save's update-index runs on it.
    writeFileSync(path.join(repo, 'x.txt'), 'x grew\n');
    writeFileSync(hang, '');
    const r = await store.save({ name: 'slow', force: true, snapshot: { timeLimitMs: 1500 } });
    assert.equal(r.checkpoint.snapshot, undefined);
    assert.ok(r.warnings.some((w) => /Code snapshot skipped: git did not answer within \d+ s and was stopped/.test(w)), r.warnings.join('\n'));
    assert.equal(readFileSync(log, 'utf8'), 'run\n', 'update-index ran once: no rebuild after the time limit');
  } finally {
    process.env.PATH = saved;
  }
});

test('a repository git refuses to work in (core.bare): the save takes no snapshot and says nothing of it, as outside git', async () => {
  const { repo, mem } = setup();
  git(repo, 'config', 'core.bare', 'true');
  writeFileSync(path.join(repo, 'x.txt'), 'x\n');
  const store = new CheckpointStore({ memoryDir: mem, cwd: repo, reads: inlineReads });
  const r = await store.save({ name: 'bare' });
  assert.equal(r.checkpoint.snapshot, undefined);
  assert.equal(r.checkpoint.snapshotSkipped, undefined);
  assert.deepEqual(r.warnings.filter((w) => /snapshot/i.test(w)), []);
});

test('front matter: head and snapshot round-trip; anything but a full object id is ignored', () => {
  const cp: Checkpoint = {
    name: 'rt',
    description: 'x',
    branch: 'main',
    saved: '2026-01-02T03:04:05.000Z',
    leftOff: 'x',
    done: [],
    failed: [],
    decisions: [],
    questions: [],
    modifiedFiles: [],
    head: '0123456789abcdef0123456789abcdef01234567',
    snapshot: 'a'.repeat(64),
  };
  const text = renderCheckpoint(cp);
  assert.match(text, /\nhead: "0123456789abcdef0123456789abcdef01234567"\nsnapshot: "a{64}"\n---\n/);
  assert.deepEqual(parseCheckpoint(text, 'rt'), cp);
  const bogus = text.replace(/snapshot: "a+"/, 'snapshot: "--upload-pack=evil"').replace(/head: "[0-9a-f]+"/, 'head: 12345');
  const parsed = parseCheckpoint(bogus, 'rt');
  assert.equal(parsed.snapshot, undefined);
  assert.equal(parsed.head, undefined);
  assert.doesNotMatch(renderCheckpoint({ ...cp, head: 'HEAD', snapshot: '-x' }), /head:|snapshot:/);
});

test('a compare with now and a snapshot do not write the user index even when its stat data is stale', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  // Touch a tracked file without changing it: a refresh would rewrite the index; we must not.
  const file = path.join(repo, 'README.md');
  writeFileSync(file, readFileSync(file));
  const before = userState(repo);
  const { tree } = await workTreeNow(repo);
  const snap = await takeSnapshot(repo, 'stale');
  assert.deepEqual(userState(repo), before);
  assert.equal(git(repo, 'rev-parse', `${snap.snapshot!.commit}^{tree}`).trim(), tree);
  assert.equal(spawnOut(repo, ['for-each-ref', 'refs/checkpoints']), '', 'a snapshot no save kept has no ref');
  rmSync(path.join(repo, '.git', 'index'));
});

/** The tree `git add -A` records into a fresh copy of the user's index (the definition of a snapshot's content). */
function freshAddTree(cwd: string): string {
  const tmp = path.join(temp(), 'index');
  // The index git uses there, wherever git finds it.
  const [index] = git(cwd, 'rev-parse', '--path-format=absolute', '--git-path', 'index').split('\n');
  if (existsSync(index)) writeFileSync(tmp, readFileSync(index));
  const env = { ...process.env, GIT_INDEX_FILE: tmp, GIT_OPTIONAL_LOCKS: '0' };
  execFileSync('git', ['-c', 'core.splitIndex=false', 'add', '-A'], { cwd, env });
  return execFileSync('git', ['write-tree'], { cwd, env, encoding: 'utf8' }).trim();
}

/** {@link setup} with a committed `sub/kept.txt`. */
function setupWithSub(): { repo: string; mem: string } {
  const { repo, mem } = setup();
  mkdirSync(path.join(repo, 'sub'));
  writeFileSync(path.join(repo, 'sub', 'kept.txt'), 'kept\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'sub');
  return { repo, mem };
}

test('the snapshot index is never trusted blindly: 20 snapshots with edits, a checkout, and the index deleted or corrupted all equal a fresh git add -A', async () => {
  const { repo, store } = setup();
  const own = path.join(repo, '.git', 'checkpoint-snapshot-index');
  const check = async (label: string): Promise<void> => {
    const before = userState(repo);
    const expected = freshAddTree(repo);
    const r = await store.save({ name: 'loop', leftOff: label, force: true });
    assert.ok(r.checkpoint.snapshot, `${label}: ${r.warnings.join('\n')}`);
    const got = git(repo, "rev-parse", `${r.checkpoint.snapshot}^{tree}`);
    assert.equal(got, expected, `${label}: ${got === expected ? "" : git(repo, "diff-tree", "-r", expected, got)}`);
    assert.deepEqual(userState(repo), before, `${label}: the user's index, work tree, stash and HEAD are untouched`);
  };
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  writeFileSync(path.join(repo, 'b.txt'), 'b\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'a and b');
  git(repo, 'stash', 'list');
  for (let i = 0; i < 20; i++) {
    writeFileSync(path.join(repo, 'a.txt'), `a ${i}\n`);
    if (i % 3 === 0) writeFileSync(path.join(repo, `new-${i}.txt`), `${i}\n`);
    if (i % 4 === 1) mkdirSync(path.join(repo, `dir-${i}`, 'deep'), { recursive: true });
    if (i % 4 === 1) writeFileSync(path.join(repo, `dir-${i}`, 'deep', 'f.txt'), `${i}\n`);
    if (i === 5) unlinkSync(path.join(repo, 'new-3.txt')); // an untracked file the previous snapshots took is gone
    if (i === 7) writeFileSync(path.join(repo, '.gitignore'), 'new-6.txt\n'); // one they took is ignored now
    if (i === 9) git(repo, 'checkout', '-q', '--', 'a.txt'); // a change they took is undone
    if (i === 11) git(repo, 'add', 'new-0.txt'); // the user's index changes
    if (i === 13) unlinkSync(path.join(repo, 'b.txt'));
    if (i === 15) writeFileSync(path.join(repo, 'b.txt'), 'b is back, changed\n');
    await check(`snapshot ${i + 1}`);
  }
  git(repo, 'stash', '-q', '-u');
  git(repo, 'checkout', '-q', '-b', 'other');
  writeFileSync(path.join(repo, 'other.txt'), 'on the other branch\n');
  git(repo, 'add', 'other.txt');
  git(repo, 'commit', '-q', '-m', 'other');
  git(repo, 'checkout', '-q', 'main');
  writeFileSync(path.join(repo, 'a.txt'), 'after the checkout\n');
  await check('after a checkout of another branch and back');
  git(repo, 'checkout', '-q', 'other');
  await check('on the other branch');
  unlinkSync(own);
  writeFileSync(path.join(repo, 'a.txt'), 'with the snapshot index deleted\n');
  await check('snapshot index deleted');
  const bytes = readFileSync(own);
  bytes.fill(0x41, 12, Math.min(bytes.length - 20, 200));
  writeFileSync(own, bytes);
  writeFileSync(path.join(repo, 'a.txt'), 'with the snapshot index corrupted\n');
  await check('snapshot index corrupted');
  // Corrupted but with its note rewritten to match: git refuses it, and it is rebuilt.
  const note = JSON.parse(readFileSync(`${own}.json`, 'utf8'));
  writeFileSync(own, Buffer.concat([Buffer.from('DIRC garbage'), readFileSync(own).subarray(-32)]));
  writeFileSync(`${own}.json`, JSON.stringify(note));
  writeFileSync(path.join(repo, 'a.txt'), 'with the snapshot index replaced by garbage\n');
  await check('snapshot index replaced by garbage');
});

test('a save with inline reads (the CLI) records what a fresh git add -A would, from the top, a subfolder or a linked path', async () => {
  const { repo, mem } = setupWithSub();
  const link = path.join(temp(), 'link');
  symlinkSync(repo, link);
  const places = [repo, path.join(repo, 'sub'), link];
  for (let i = 0; i < 9; i++) {
    const cwd = places[i % places.length];
    writeFileSync(path.join(repo, 'a.txt'), `a ${i}\n`);
    writeFileSync(path.join(repo, 'sub', `new-${i}.txt`), `${i}\n`);
    // A file the previous snapshots took grows over the per-file cap: its size is the one read now.
    if (i === 6) writeFileSync(path.join(repo, 'sub', 'new-1.txt'), 'x'.repeat(20_000));
    const expected = i < 6 ? freshAddTree(repo) : undefined;
    const store = new CheckpointStore({ memoryDir: mem, cwd, reads: inlineReads });
    const r = await store.save({ name: 'ground', leftOff: `from ${cwd}`, force: true, snapshot: { fileLimitBytes: 10_000 } });
    assert.ok(r.checkpoint.snapshot, r.warnings.join('\n'));
    const files = snapshotFiles(repo, r.checkpoint.snapshot);
    if (expected) assert.equal(git(repo, 'rev-parse', `${r.checkpoint.snapshot}^{tree}`), expected, `save ${i + 1} from ${cwd}`);
    else {
      assert.equal(files['sub/new-1.txt'], undefined, 'the file now over the cap is left out');
      assert.deepEqual(r.checkpoint.snapshotLeftOut, ['sub/new-1.txt']);
      assert.ok(files[`sub/new-${i}.txt`], 'the new file is taken');
    }
    assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/ground').trim(), r.checkpoint.snapshot, 'the name ref follows each save');
  }
});

test('a file that grows past the per-file cap while git reads it: no snapshot holds it, the reason is said, and the next save rebuilds', async () => {
  const { repo, store } = setup();
  // git's clean filter runs as git reads the file: this one makes it grow by 200 KB first, as a writer racing the save would.
  git(repo, 'config', 'filter.grow.clean', 'sh -c \'head -c 200000 /dev/zero >> "$1"; cat "$1"\' grow %f');
  writeFileSync(path.join(repo, '.gitattributes'), 'log.txt filter=grow\n');
  writeFileSync(path.join(repo, 'log.txt'), 'small\n');
  const r = await store.save({ name: 'grown', snapshot: { fileLimitBytes: 100_000 } });
  assert.equal(r.checkpoint.snapshot, undefined, 'no snapshot holds a blob over the cap');
  assert.ok(r.warnings.some((w) => /Code snapshot skipped: log\.txt grew past 0\.1 MB while the snapshot was taken/.test(w)), r.warnings.join('\n'));
  // The file is over the cap now: the next save leaves it out, as any file over the cap.
  git(repo, 'config', '--unset', 'filter.grow.clean');
  const next = await store.save({ name: 'after', snapshot: { fileLimitBytes: 100_000 } });
  assert.ok(next.checkpoint.snapshot);
  assert.equal(spawnOut(repo, ['ls-tree', '--name-only', next.checkpoint.snapshot!, 'log.txt']), '');
});

test('what a save killed mid-snapshot leaves in .git (an index copy, a note not renamed) is removed by the next save', async () => {
  const { repo, store } = setup();
  writeFileSync(path.join(repo, 'a.txt'), 'a\n');
  assert.ok((await store.save({ name: 'first' })).checkpoint.snapshot);
  // A process id no process has (the kernel's limit is below 2^22).
  const dead = 4_194_304 + 17;
  const gitDir = path.join(repo, '.git');
  const leftovers = [`checkpoint-snapshot-index.${dead}-abc123.tmp`, `checkpoint-snapshot-index.json.${dead}.tmp`];
  for (const f of leftovers) writeFileSync(path.join(gitDir, f), Buffer.alloc(4096, 1));
  // One of this very process (a save still running) stays.
  const own = `checkpoint-snapshot-index.${process.pid}-live.tmp`;
  writeFileSync(path.join(gitDir, own), 'x');
  writeFileSync(path.join(repo, 'a.txt'), 'b\n');
  assert.ok((await store.save({ name: 'second' })).checkpoint.snapshot);
  const left = readdirSync(gitDir).filter((f) => f.endsWith('.tmp'));
  assert.deepEqual(left, [own]);
  rmSync(path.join(gitDir, own));
});
