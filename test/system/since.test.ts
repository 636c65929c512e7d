// What changed since a checkpoint was saved, and the branch order of pending checkpoints, through the built CLI
// against real git repositories: new commits, a rebase, a force-push taken in, a merged and a deleted branch, a
// detached HEAD, a snapshot pruned by gc, no git at all, and the session-start context.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Since as SinceJson } from '../../src/core/since';
import { git, remotePair, removeDir, runCli, tempDir, workspace, type Workspace } from '../support/fixtures';

const made: Workspace[] = [];
after(() => made.forEach((w) => w.done()));

function ws(): Workspace {
  const w = workspace();
  made.push(w);
  return w;
}

function write(root: string, rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}

function commit(repo: string, rel: string, text: string, subject: string): void {
  write(repo, rel, text);
  git(repo, 'add', '--', rel);
  git(repo, 'commit', '-q', '-m', subject);
}

async function save(w: Workspace, name: string): Promise<void> {
  const r = await w.cli(['save', name, '--left-off', `working on ${name}`]);
  assert.equal(r.code, 0, r.err);
}

/** Checkpoint `name` saved on a new branch `branch` after one commit there (`<branch>.ts`, `subject`); then back on main. */
async function savedOnBranch(w: Workspace, branch: string, name: string, subject = `${branch} work`): Promise<void> {
  git(w.repo, 'checkout', '-q', '-b', branch);
  commit(w.repo, `${branch}.ts`, `${branch}\n`, subject);
  await save(w, name);
  git(w.repo, 'checkout', '-q', 'main');
}

/** `resume --keep --json`'s since object, checked against the human line of `resume --keep`. */
async function since(w: Workspace, name: string): Promise<SinceJson> {
  const r = await w.cli(['resume', '--keep', '--json', name]);
  assert.equal(r.code, 0, r.err);
  const s = (JSON.parse(r.out) as { since: SinceJson }).since;
  const human = await w.cli(['resume', '--keep', name]);
  assert.ok(human.out.split('\n').includes(s.line), human.out);
  return s;
}

test('fresh when nothing moved; moved on with commits, files and the Modified Files that changed again', async () => {
  const w = ws();
  git(w.repo, 'checkout', '-q', '-b', 'feature');
  write(w.repo, 'a.ts', 'one\n');
  write(w.repo, 'b.ts', 'one\n');
  await save(w, 'work');
  const fresh = await since(w, 'work');
  assert.equal(fresh.state, 'fresh', fresh.line);
  assert.match(fresh.line, /^Since saved: fresh/);
  assert.deepEqual(fresh.commits, { count: 0, subjects: [], rewritten: false });
  assert.equal(fresh.files?.count, 0);

  git(w.repo, 'add', '-A');
  git(w.repo, 'commit', '-q', '-m', 'first step');
  for (let i = 2; i <= 5; i++) commit(w.repo, `c${i}.ts`, `${i}\n`, `step ${i}`);
  write(w.repo, 'a.ts', 'two\n');
  const moved = await since(w, 'work');
  assert.equal(moved.state, 'moved');
  assert.equal(moved.commits?.count, 5);
  assert.deepEqual(moved.commits?.subjects, ['step 5', 'step 4', 'step 3']);
  assert.equal(moved.commits?.rewritten, false);
  // a.ts changed again; b.ts is as the snapshot had it; c2…c5 are new.
  assert.equal(moved.files?.count, 5);
  assert.deepEqual(moved.files?.modifiedAgain, ['a.ts']);
  assert.match(moved.line, /^Since saved: moved on: 5 commits, 5 files since — /);
  // `show` says it too, as resume prints it (--raw: the file alone), and in its JSON.
  const show = await w.cli(['show', 'work']);
  assert.ok(show.out.split('\n').includes(moved.line), show.out);
  assert.match((await w.cli(['show', '--raw', 'work'])).out, /^---\n/);
  assert.equal((JSON.parse((await w.cli(['show', '--json', 'work'])).out) as { since: SinceJson }).since.line, moved.line);
});

test('files since its snapshot: new, deleted and changed ones count; changed back, staged, committed or untouched ones do not; odd names are named', async () => {
  const w = ws();
  for (const f of ['keep.ts', 'gone.ts', 'back.ts', 'staged.ts']) write(w.repo, f, `${f}\n`);
  git(w.repo, 'add', '-A');
  git(w.repo, 'commit', '-q', '-m', 'files');
  // At the save: staged.ts changed and not staged, two untracked files.
  write(w.repo, 'staged.ts', 'changed before the save\n');
  write(w.repo, 'notes.txt', 'untracked, left alone\n');
  write(w.repo, 'draft.txt', 'untracked, then edited\n');
  await save(w, 'files');
  const fresh = await since(w, 'files');
  assert.deepEqual(fresh.files, { count: 0, paths: [], modifiedAgain: [] }, fresh.line);

  rmSync(path.join(w.repo, 'gone.ts'));
  write(w.repo, 'back.ts', 'edited for a moment\n');
  write(w.repo, 'back.ts', 'back.ts\n');
  git(w.repo, 'add', 'staged.ts');
  git(w.repo, 'commit', '-q', '-m', 'staged.ts as it was saved');
  write(w.repo, 'draft.txt', 'edited since\n');
  write(w.repo, 'new file.ts', 'new\n');
  write(w.repo, 'line\nbreak.ts', 'new\n');
  // Added to the index since (or as intent-to-add), then removed from the work tree: neither the snapshot nor the
  // work tree has it. An untracked file left alone but added as intent-to-add is what the snapshot holds.
  for (const [f, how] of [['fleeting.ts', []], ['intended.ts', ['-N']]] as [string, string[]][]) {
    write(w.repo, f, 'x\n');
    git(w.repo, 'add', ...how, f);
    rmSync(path.join(w.repo, f));
  }
  git(w.repo, 'add', '-N', 'notes.txt');
  const expected = { count: 4, paths: ['draft.txt', 'gone.ts', 'line\nbreak.ts', 'new file.ts'], modifiedAgain: ['draft.txt'] };
  const moved = await since(w, 'files');
  assert.deepEqual(moved.files, expected, moved.line);
  assert.match(moved.line, /4 files changed since its snapshot \(draft\.txt, gone\.ts, line break\.ts, new file\.ts\)/);
  // The same from a resume run in the repository itself (no --cwd), and from a folder inside it.
  mkdirSync(path.join(w.repo, 'sub'));
  for (const cwd of [w.repo, path.join(w.repo, 'sub')]) {
    const r = await runCli(['resume', '--dir', w.mem, '--keep', '--json', 'files'], { cwd, env: w.env });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual((JSON.parse(r.out) as { since: SinceJson }).since.files, expected, cwd);
  }
});

test('a rebase and a force-push taken in: the branch no longer holds the checkpoint’s HEAD', async () => {
  const w = ws();
  await savedOnBranch(w, 'topic', 'rebased');
  commit(w.repo, 'm.ts', 'm\n', 'main moved');
  git(w.repo, 'checkout', '-q', 'topic');
  git(w.repo, 'rebase', '-q', 'main');
  const s = await since(w, 'rebased');
  assert.equal(s.commits?.rewritten, true, s.line);
  assert.match(s.line, /topic was rewritten \(rebased or force-pushed\)/);
  assert.equal(s.state, 'moved');

  // Another clone rewrites the branch and force-pushes; this one takes it in.
  const root = tempDir('checkpoint-since-remote-');
  try {
    const { a, b } = remotePair(root);
    git(a, 'checkout', '-q', '-b', 'shared');
    commit(a, 's.ts', 's\n', 'shared work');
    git(a, 'push', '-q', 'origin', 'shared');
    const mem = path.join(root, 'mem');
    const r = await runCli(['save', '--dir', mem, '--cwd', a, 'pushed', '--left-off', 'x'], { env: w.env });
    assert.equal(r.code, 0, r.err);
    git(b, 'fetch', '-q', 'origin');
    git(b, 'checkout', '-q', 'shared');
    git(b, 'commit', '-q', '--amend', '-m', 'shared work, reworded');
    git(b, 'push', '-q', '--force', 'origin', 'shared');
    git(a, 'fetch', '-q', 'origin');
    git(a, 'reset', '-q', '--hard', 'origin/shared');
    const out = await runCli(['resume', '--dir', mem, '--cwd', a, '--keep', '--json', 'pushed'], { env: w.env });
    const f = (JSON.parse(out.out) as { since: SinceJson }).since;
    assert.equal(f.commits?.rewritten, true, f.line);
    assert.deepEqual(f.commits?.subjects, ['shared work, reworded']);
  } finally {
    removeDir(root);
  }
});

test('a branch merged into the current one, then deleted', async () => {
  const w = ws();
  await savedOnBranch(w, 'feat', 'feat-work');
  commit(w.repo, 'other.ts', 'o\n', 'main goes on');
  git(w.repo, 'merge', '-q', '--no-edit', 'feat');
  const merged = await since(w, 'feat-work');
  assert.equal(merged.merged, true, merged.line);
  assert.equal(merged.branchState, 'present');
  assert.match(merged.line, /feat has been merged into the current branch/);

  git(w.repo, 'branch', '-q', '-d', 'feat');
  const deleted = await since(w, 'feat-work');
  assert.equal(deleted.branchState, 'deleted', deleted.line);
  assert.equal(deleted.merged, true);
  assert.match(deleted.line, /feat has been merged into the current branch and deleted/);
});

test('a deleted branch never merged', async () => {
  const w = ws();
  await savedOnBranch(w, 'dropped', 'dropped-work');
  git(w.repo, 'branch', '-q', '-D', 'dropped');
  const s = await since(w, 'dropped-work');
  assert.equal(s.branchState, 'deleted');
  assert.notEqual(s.merged, true);
  assert.match(s.line, /dropped is no longer a branch here \(deleted, or never in this clone\)/);
});

test('a detached HEAD: commits since are counted on HEAD', async () => {
  const w = ws();
  git(w.repo, 'checkout', '-q', '--detach');
  await save(w, 'detached');
  commit(w.repo, 'x.ts', 'x\n', 'on a detached head');
  const s = await since(w, 'detached');
  assert.equal(s.branchState, 'detached');
  assert.deepEqual(s.commits, { count: 1, subjects: ['on a detached head'], rewritten: false });
  assert.match(s.line, /1 new commit on HEAD \("on a detached head"\)/);
});

test('a snapshot pruned by gc: files since cannot be told, commits still are', async () => {
  const w = ws();
  write(w.repo, 'wip.ts', 'uncommitted\n');
  await save(w, 'pruned');
  const cp = JSON.parse((await w.cli(['show', '--json', 'pruned'])).out) as { snapshot: string };
  assert.ok(cp.snapshot);
  for (const ref of git(w.repo, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints/').split('\n').filter(Boolean)) git(w.repo, 'update-ref', '-d', ref);
  git(w.repo, 'reflog', 'expire', '--expire=now', '--all');
  git(w.repo, 'gc', '-q', '--prune=now');
  assert.throws(() => git(w.repo, 'cat-file', '-e', cp.snapshot));
  const s = await since(w, 'pruned');
  assert.equal(s.files, undefined);
  assert.ok(s.unknown.some((u) => u.includes(`snapshot ${cp.snapshot.slice(0, 12)} is no longer in this repository`)), s.line);
  assert.deepEqual(s.commits, { count: 0, subjects: [], rewritten: false });
  assert.match(s.line, /cannot tell: its snapshot/);
});

test('a repository that does not answer in time: "not checked", and the resume is not held up', async () => {
  const w = ws();
  write(w.repo, 'slow.txt', 'one\n');
  await save(w, 'slow');
  // A clean filter that hangs (as a large LFS file or a network filter can): hashing the changed file waits on it.
  git(w.repo, 'config', 'filter.hang.clean', 'sleep 30; cat');
  write(w.repo, '.gitattributes', 'slow.txt filter=hang\n');
  write(w.repo, 'slow.txt', 'two\n');
  const t0 = Date.now();
  const r = await w.cli(['resume', '--keep', '--json', 'slow']);
  const took = Date.now() - t0;
  assert.equal(r.code, 0, r.err);
  const s = (JSON.parse(r.out) as { since: SinceJson }).since;
  assert.equal(s.state, 'not-checked', s.line);
  assert.match(s.line, /^Since saved: not checked \(the repository did not answer within 2\.0 s\)\.$/);
  assert.ok(took < 15_000, `the resume took ${took} ms`);
});

test('no git: says what it cannot tell', async () => {
  const w = ws();
  const plain = path.join(w.root, 'plain');
  mkdirSync(plain);
  const run = (args: string[]): ReturnType<typeof runCli> => runCli([args[0], '--dir', w.mem, '--cwd', plain, ...args.slice(1)], { env: w.env });
  assert.equal((await run(['save', 'nogit', '--left-off', 'x'])).code, 0);
  const r = await run(['resume', '--keep', '--json', 'nogit']);
  const s = (JSON.parse(r.out) as { since: SinceJson }).since;
  assert.equal(s.state, 'unknown');
  assert.equal(s.line, 'Since saved: cannot tell what changed — not a git repository.');
  assert.ok((await run(['resume', '--keep', 'nogit'])).out.includes(s.line));
});

test('the session start names the current branch’s pending checkpoint first, then a merged one, then another branch’s, each with its branch', async () => {
  const w = ws();
  await save(w, 'on-main');
  await savedOnBranch(w, 'merged-topic', 'on-merged', 'merged topic');
  git(w.repo, 'merge', '-q', '--no-ff', '--no-edit', 'merged-topic');
  await savedOnBranch(w, 'elsewhere', 'on-elsewhere', 'unmerged work');
  commit(w.repo, 'n.ts', 'n\n', 'after the merge');

  const input = JSON.stringify({ session_id: 's1', cwd: w.repo, hook_event_name: 'SessionStart', source: 'startup' });
  const { spawnSync } = await import('node:child_process');
  const { CLI } = await import('../support/fixtures');
  const r = spawnSync(process.execPath, [CLI, 'hook', 'session-start', '--dir', w.mem], { cwd: w.repo, env: w.env, input, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const context = (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
  const lines = context.split('\n');
  assert.match(lines[0], /^Pending checkpoint of earlier work in this project: "on-main", .* on branch main\.$/);
  assert.match(context, /^Since saved: moved on: 3 commits since — 3 new commits on main \("after the merge", "Merge branch 'merged-topic'", "merged topic"\); cannot tell: which files changed since its snapshot \(not compared at a session start; checkpoint show compares them\)\.$/m);
  const also = lines.find((l) => l.startsWith('Also pending: '));
  assert.ok(also, context);
  assert.match(also, /"on-merged" \(saved .*, on merged-topic, merged into main\), "on-elsewhere" \(saved .*, on elsewhere, another branch than main\)/);

  // `checkpoint pending` lists them in the order a new session offers them.
  const pending = (JSON.parse((await w.cli(['pending', '--json'])).out) as { name: string }[]).map((p) => p.name);
  assert.deepEqual(pending, ['on-main', 'on-merged', 'on-elsewhere']);

  // The list keeps its order (newest first) and its branch mark.
  const list = (await w.cli(['list'])).out;
  assert.ok(list.indexOf('on-elsewhere') < list.indexOf('on-merged') && list.indexOf('on-merged') < list.indexOf('on-main'), list);
});
