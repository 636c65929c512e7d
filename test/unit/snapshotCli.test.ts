import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { checkpointText, CLI, git, isolatedEnv, makeRepo, remotePair, removeDir, runCli, runCliInProcess, tempDirs } from '../support/fixtures';
import { shellQuote } from '../../src/core/escaping';
import { commitFiles, contentHash, workTreeFiles, writeFiles } from '../support/snapshots';
import { CheckpointStore } from '../../src/core/store';

const temp = tempDirs();

const home = temp('checkpoint-home-');
after(() => removeDir(home));
const env = isolatedEnv(home);
// The CLI's commands run in-process where the process is not the subject: not for push and pull (git then runs with
// the isolated environment, the remote's hooks and config apart from the user's).

function refs(repo: string): string[] {
  return git(repo, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints').split('\n').filter(Boolean);
}

/** A repository and a memory folder beside it (both removed after the tests), and the CLI run there in-process. */
function repoWithMemory(): { repo: string; mem: string; run: (...args: string[]) => ReturnType<typeof runCliInProcess> } {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(temp(), 'mem');
  return { repo, mem, run: (...args) => runCliInProcess([...args, '--dir', mem], { cwd: repo, env }) };
}

/** The snapshot a checkpoint file names. */
function snapshotOf(mem: string, name: string): string | undefined {
  return /\nsnapshot: "([0-9a-f]{40})"\n/.exec(readFileSync(path.join(mem, `checkpoint-${name}.md`), 'utf8'))?.[1];
}

test('CLI save takes a snapshot in a git repository; --no-snapshot takes none', async () => {
  const { repo, mem, run } = repoWithMemory();
  writeFileSync(path.join(repo, 'wip.ts'), 'export {};\n');
  const a = await run('save', 'with', '--left-off', 'x');
  assert.equal(a.code, 0, a.err);
  assert.equal(a.err, '');
  const snap = snapshotOf(mem, 'with');
  assert.ok(snap);
  assert.deepEqual(refs(repo), ['refs/checkpoints/snapshots/with']);
  assert.equal(git(repo, 'show', `${snap}:wip.ts`), 'export {};');

  const b = await run('save', 'without', '--no-snapshot');
  assert.equal(b.code, 0, b.err);
  assert.doesNotMatch(readFileSync(path.join(mem, 'checkpoint-without.md'), 'utf8'), /snapshot:|head:/);
  assert.deepEqual(refs(repo), ['refs/checkpoints/snapshots/with']);
});

test('CLI saves that fail or are refused leave the snapshot index unlocked and move no ref: the next save uses it', async () => {
  const { repo, mem, run } = repoWithMemory();
  const own = path.join(repo, '.git', 'checkpoint-snapshot-index');
  const save = (...args: string[]): ReturnType<typeof runCliInProcess> => run('save', ...args, '--left-off', 'x');
  writeFileSync(path.join(repo, 'wip.ts'), 'export const a = 1;\n');
  assert.equal((await save('kept')).code, 0);
  writeFileSync(path.join(repo, 'wip.ts'), 'export const a = 2;\n');
  // The snapshot index is now as its note says: each save below may update it in place.
  assert.equal((await save('kept', '--force')).code, 0);
  const kept = snapshotOf(mem, 'kept');
  writeFileSync(path.join(repo, 'wip.ts'), 'export const a = 3;\n');
  const refused = await save('kept');
  assert.equal(refused.code, 1);
  assert.match(refused.err, /already exists/);
  assert.equal(existsSync(`${own}.lock`), false, 'refused: no lock left');
  assert.equal(git(repo, 'rev-parse', 'refs/checkpoints/snapshots/kept'), kept, 'refused: the ref stays');
  const bad = await save('--push');
  assert.equal(bad.code, 2);
  const unusable = await save('!!!');
  assert.equal(unusable.code, 1);
  assert.equal(existsSync(`${own}.lock`), false, 'failed: no lock left');
  // The next save updates the snapshot index in place (its note then names the new one), with no warning.
  const next = await save('kept', '--force');
  assert.equal(next.code, 0);
  assert.equal(next.err, '');
  assert.equal(git(repo, 'show', `${snapshotOf(mem, 'kept')}:wip.ts`), 'export const a = 3;');
  assert.equal(existsSync(`${own}.lock`), false);
});

/** A branch's files, each with a hash of its bytes (as {@link workTreeFiles} gives the work tree's). */
function branchFiles(repo: string, rev: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of git(repo, 'ls-tree', '-r', '-z', '--name-only', rev).split('\0').filter(Boolean)) {
    out[p] = contentHash(execFileSync('git', ['show', `${rev}:${p}`], { cwd: repo }));
  }
  return out;
}

function indexHash(repo: string): string {
  return readFileSync(path.join(repo, '.git', 'index')).toString('hex');
}

test('diff and branch: exactly the saved content, against the work tree now, and nothing of the user touched', async () => {
  const { repo, run } = repoWithMemory();
  commitFiles(repo, { '.gitignore': 'secret.env\n', 'keep.txt': 'keep\n', 'drop.txt': 'drop\n' }, 'base');
  writeFileSync(path.join(repo, 'README.md'), '# demo\nsaved line\n');
  writeFileSync(path.join(repo, 'logo.bin'), Buffer.from([0, 255, 1, 254, 0]));
  writeFileSync(path.join(repo, 'secret.env'), 'TOKEN=1\n');
  git(repo, 'mv', 'keep.txt', 'kept.txt');
  const atSave = workTreeFiles(repo);
  delete atSave['secret.env'];
  assert.equal((await run('save', 'feat', '--left-off', 'x')).code, 0);

  const same = await run('diff', 'feat');
  assert.equal(same.code, 0, same.err);
  assert.match(same.out, /^No changes since the snapshot of "feat" \([0-9a-f]{12}\)\.\n$/);

  // Work goes on after the checkpoint.
  writeFileSync(path.join(repo, 'README.md'), '# demo\nsaved line\nlater line\n');
  writeFileSync(path.join(repo, 'later.txt'), 'later\n');
  unlinkSync(path.join(repo, 'drop.txt'));
  const changes = JSON.parse((await run('diff', 'feat', '--json')).out).changes;
  assert.deepEqual(changes, [
    { status: 'M', path: 'README.md' },
    { status: 'D', path: 'drop.txt' },
    { status: 'A', path: 'later.txt' },
  ]);
  const stat = await run('diff', 'feat', '--stat');
  assert.match(stat.out, /README\.md \| 1 \+\n drop\.txt {2}\| 1 -\n later\.txt \| 1 \+\n 3 files changed/);
  const patch = await run('diff', 'feat');
  assert.match(patch.out, /\n\+later line\n/);
  assert.doesNotMatch(patch.out, /secret/);

  const before = { index: indexHash(repo), head: git(repo, 'rev-parse', 'HEAD'), branch: git(repo, 'symbolic-ref', 'HEAD'), tree: workTreeFiles(repo) };
  const b = await run('branch', 'feat', '--json');
  assert.equal(b.code, 0, b.err);
  assert.equal(JSON.parse(b.out).branch, 'checkpoint/feat');
  assert.deepEqual({ index: indexHash(repo), head: git(repo, 'rev-parse', 'HEAD'), branch: git(repo, 'symbolic-ref', 'HEAD'), tree: workTreeFiles(repo) }, before);
  assert.deepEqual(branchFiles(repo, 'checkpoint/feat'), atSave, 'the branch holds exactly the saved work tree');
  assert.equal(git(repo, 'rev-parse', 'checkpoint/feat^').trim(), before.head.trim());

  const again = await run('branch', 'feat');
  assert.equal(again.code, 1);
  assert.match(again.err, /A branch named checkpoint\/feat exists already/);

  assert.equal((await run('save', 'plain', '--no-snapshot')).code, 0);
  const none = await run('diff', 'plain');
  assert.equal(none.code, 1);
  assert.match(none.err, /has no code snapshot/);
});

test('diff: a file grown past the size cap since the snapshot is left out of the work tree\'s side, and the warning says so', async () => {
  const { repo, run } = repoWithMemory();
  writeFiles(repo, { 'data.bin': 'small when saved\n', 'notes.txt': 'as saved\n' });
  assert.equal((await run('save', 'capped', '--left-off', 'x')).code, 0);
  writeFileSync(path.join(repo, 'data.bin'), Buffer.alloc(10 * 1024 * 1024 + 1, 7));
  writeFileSync(path.join(repo, 'notes.txt'), 'edited since\n');
  const r = await run('diff', 'capped', '--json');
  assert.equal(r.code, 0, r.err);
  // Never read into the repository: the work tree's side lacks it, and the warning says why it shows as deleted.
  assert.deepEqual(JSON.parse(r.out).changes, [
    { status: 'D', path: 'data.bin' },
    { status: 'M', path: 'notes.txt' },
  ]);
  assert.equal(r.err.trim(), 'Warning: Left out as larger than 10 MB, as a save leaves them out of its snapshot: data.bin. One the snapshot holds shows as deleted.');
  const patch = await run('diff', 'capped');
  assert.match(patch.out, /edited since/);
  assert.equal(patch.err, r.err);
});

test('push and pull between two clones through a bare remote; a differing local checkpoint goes to the trash first', async () => {
  const root = temp();
  const { a, b, bare } = remotePair(root);
  const memA = path.join(root, 'mem-a');
  const memB = path.join(root, 'mem-b');

  writeFileSync(path.join(a, 'wip.ts'), 'export const wip = 1;\n');
  assert.equal((await runCli(['save', 'handoff', '--left-off', 'from machine A', '--done', 'wired it', '--dir', memA], { cwd: a, env })).code, 0);
  const push = await runCli(['push', '--dir', memA, '--json'], { cwd: a, env });
  assert.equal(push.code, 0, push.err);
  const pushed = JSON.parse(push.out);
  assert.equal(pushed.remote, 'origin');
  assert.deepEqual(pushed.pushed.map((p: { name: string }) => p.name), ['handoff']);
  const remoteRefs = git(bare, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints').trim().split('\n');
  assert.deepEqual(remoteRefs, ['refs/checkpoints/files/handoff', 'refs/checkpoints/snapshots/handoff']);

  // Machine B has its own checkpoint of that name.
  assert.equal((await runCli(['save', 'handoff', '--left-off', 'local on B', '--no-snapshot', '--dir', memB], { cwd: b, env })).code, 0);
  const pull = await runCli(['pull', '--dir', memB, '--json'], { cwd: b, env });
  assert.equal(pull.code, 0, pull.err);
  const pulled = JSON.parse(pull.out);
  assert.equal(pulled.written.length, 1);
  assert.equal(pulled.written[0].name, 'handoff');
  const trashPath = pulled.written[0].trashPath as string;
  assert.match(readFileSync(trashPath, 'utf8'), /## Left Off\nlocal on B\n/, 'the local one is in the trash');
  assert.ok(trashPath.startsWith(path.join(memB, '.trash')));
  const show = JSON.parse((await runCli(['show', 'handoff', '--json', '--dir', memB], { cwd: b, env })).out);
  assert.equal(show.leftOff, 'from machine A');
  assert.deepEqual(show.done, ['wired it']);
  assert.match(readFileSync(path.join(memB, 'MEMORY.md'), 'utf8'), /- \*\*handoff\*\* \(main, \w{3} \d{2}\) — from machine A/);
  assert.deepEqual(git(b, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints').trim().split('\n'), ['refs/checkpoints/snapshots/handoff'], 'no fetched refs left behind');

  // The snapshot came along: compare and branch work on B.
  const diff = JSON.parse((await runCli(['diff', 'handoff', '--json', '--dir', memB], { cwd: b, env })).out);
  assert.deepEqual(diff.changes, [{ status: 'D', path: 'wip.ts' }]);
  assert.equal((await runCli(['branch', 'handoff', '--dir', memB], { cwd: b, env })).code, 0);
  assert.equal(git(b, 'show', 'checkpoint/handoff:wip.ts'), 'export const wip = 1;');

  // Pulling again changes nothing.
  const again = JSON.parse((await runCli(['pull', '--dir', memB, '--json'], { cwd: b, env })).out);
  assert.deepEqual([again.written, again.unchanged], [[], ['handoff']]);
  assert.deepEqual(readdirSync(path.dirname(trashPath)), [path.basename(trashPath)], 'nothing more went to the trash');

  // A remote must be a configured one: never a URL, never something git could read as an option.
  const marker = path.join(root, 'marker');
  for (const remote of [`--upload-pack=touch ${marker}`, `ext::sh -c touch% ${marker}`, bare]) {
    const bad = await runCli(['push', `--remote=${remote}`, '--dir', memA], { cwd: a, env });
    assert.equal(bad.code, 1, bad.err);
    assert.match(bad.err, /No git remote named .* \(remotes: origin\)/);
  }
  assert.equal(existsSync(marker), false);
});

test('gc and save purge old trash and only the snapshot refs no checkpoint names; Undo keeps its snapshot', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(temp(), 'mem');
  const store = new CheckpointStore({ memoryDir: mem, cwd: repo });
  const refNames = (): string[] => git(repo, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints').split('\n').filter(Boolean);
  try {
    writeFileSync(path.join(repo, 'a.txt'), '1\n');
    const s1 = (await store.save({ name: 'x' })).checkpoint.snapshot!;
    const trash1 = await store.delete('x');
    writeFileSync(path.join(repo, 'a.txt'), '2\n');
    const s2 = (await store.save({ name: 'x' })).checkpoint.snapshot!;
    // The trashed x still has its snapshot: kept by refs/checkpoints/kept/<sha>.
    assert.deepEqual(refNames().sort(), [`refs/checkpoints/kept/${s1}`, 'refs/checkpoints/snapshots/x']);
    assert.equal(git(repo, 'cat-file', '-t', s1).trim(), 'commit');

    // Age the trash folder to 40 days ago; a fresh save purges it, and with it the ref only it named.
    const day = path.dirname(trash1);
    const old = new Date();
    old.setDate(old.getDate() - 40);
    const oldDay = path.join(path.dirname(day), `${old.getFullYear()}-${String(old.getMonth() + 1).padStart(2, '0')}-${String(old.getDate()).padStart(2, '0')}`);
    renameSync(day, oldDay);
    writeFileSync(path.join(repo, 'a.txt'), '3\n');
    await store.save({ name: 'y' });
    assert.equal(existsSync(oldDay), false, 'trash older than 30 days is purged on save');
    assert.deepEqual(refNames().sort(), ['refs/checkpoints/snapshots/x', 'refs/checkpoints/snapshots/y']);

    // A recent trash copy keeps its ref through gc; gc --older-than 0 empties the trash and drops it.
    await store.delete('y');
    const gc30 = await runCliInProcess(['gc', '--dir', mem, '--json'], { cwd: repo, env });
    assert.deepEqual(JSON.parse(gc30.out), { purged: [], refsRemoved: [], dryRun: false, warnings: [] });
    assert.ok(refNames().includes('refs/checkpoints/snapshots/y'));
    const gc0 = await runCliInProcess(['gc', '--older-than', '0', '--dir', mem, '--json'], { cwd: repo, env });
    assert.equal(gc0.code, 0, gc0.err);
    assert.deepEqual(JSON.parse(gc0.out).refsRemoved, ['refs/checkpoints/snapshots/y']);
    assert.deepEqual(refNames(), ['refs/checkpoints/snapshots/x'], 'the live checkpoint keeps its snapshot');
    assert.equal((await store.show('x')).snapshot, s2);
    assert.equal((await runCliInProcess(['gc', '--older-than', 'soon', '--dir', mem], { cwd: repo, env })).code, 2);
  } finally {
    removeDir(repo);
    removeDir(path.dirname(mem));
  }
});

test('push holds back a snapshot taken on local commits nobody pushed (a key committed, then removed), says why, and --with-history pushes it', async () => {
  const root = temp();
  const { a, bare } = remotePair(root);
  const mem = path.join(root, 'mem');
  writeFileSync(path.join(a, 'deploy.txt'), 'AKIA-SECRET-KEY-1234\n');
  git(a, 'add', 'deploy.txt');
  git(a, 'commit', '-q', '-m', 'add deploy key');
  const keyBlob = git(a, 'rev-parse', 'HEAD:deploy.txt').trim();
  git(a, 'rm', '-q', 'deploy.txt');
  git(a, 'commit', '-q', '-m', 'remove deploy key');
  writeFileSync(path.join(a, 'wip.ts'), 'export const wip = 1;\n');
  assert.equal((await runCli(['save', 'local', '--left-off', 'on unpushed commits', '--dir', mem], { cwd: a, env })).code, 0);

  const held = await runCli(['push', '--dir', mem, '--json'], { cwd: a, env });
  assert.equal(held.code, 0, held.err);
  const r = JSON.parse(held.out);
  assert.deepEqual(r.pushed, [{ name: 'local', snapshot: null }]);
  assert.equal(r.heldBack[0].name, 'local');
  assert.equal(r.heldBack[0].snapshotOnly, true);
  assert.match(held.err, /Held back: the snapshot of "local" \(the checkpoint itself is pushed\): its snapshot was taken on 2 commit\(s\) that are not on origin; .*--with-history/);
  assert.deepEqual(refs(bare), ['refs/checkpoints/files/local']);
  assert.match((await runCli(['push', '--dry-run', '--dir', mem], { cwd: a, env })).out, /^ {2}local \(without its snapshot, held back\)$/m);
  assert.throws(() => git(bare, 'cat-file', '-e', keyBlob), 'the key committed locally is not on the remote');

  const all = await runCli(['push', '--with-history', '--dir', mem, '--json'], { cwd: a, env });
  assert.equal(all.code, 0, all.err);
  assert.deepEqual(refs(bare), ['refs/checkpoints/files/local', 'refs/checkpoints/snapshots/local']);
  // Once the branch is pushed, the snapshot goes without --with-history.
  git(a, 'push', '-q', 'origin', 'main');
  assert.deepEqual(JSON.parse((await runCli(['push', '--dir', mem, '--json'], { cwd: a, env })).out).heldBack, []);
});

test('push --dry-run lists the checkpoints and each snapshot\'s files beyond the remote\'s history, untracked ones marked, and pushes nothing', async () => {
  const root = temp();
  const { a, bare } = remotePair(root);
  const mem = path.join(root, 'mem');
  writeFileSync(path.join(a, 'README.md'), '# changed\n');
  writeFileSync(path.join(a, 'notes-private.txt'), 'not for sharing\n');
  assert.equal((await runCli(['save', 'listed', '--left-off', 'x', '--dir', mem], { cwd: a, env })).code, 0);
  const dry = await runCli(['push', '--dry-run', '--dir', mem], { cwd: a, env });
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /^Would push to origin:\n {2}listed with its snapshot [0-9a-f]{12}: 2 file\(s\) beyond the commit it was taken on\n {4}M README\.md\n {4}A notes-private\.txt \(untracked\)\n\(dry run: nothing was pushed\)\n$/);
  assert.deepEqual(refs(bare), []);
  const json = JSON.parse((await runCli(['push', '--dry-run', '--json', '--dir', mem], { cwd: a, env })).out);
  assert.deepEqual(json.checkpoints[0].files, [
    { path: 'README.md', status: 'M', untracked: false },
    { path: 'notes-private.txt', status: 'A', untracked: true },
  ]);
  assert.deepEqual(refs(bare), []);
});

test('push of all with agent-written names (a space, capitals) pushes each as the product names it, and pull takes them', async () => {
  const root = temp();
  const { a, b } = remotePair(root);
  const memA = path.join(root, 'mem-a');
  const memB = path.join(root, 'mem-b');
  assert.equal((await runCli(['save', 'plain', '--left-off', 'x', '--no-snapshot', '--dir', memA], { cwd: a, env })).code, 0);
  writeFileSync(path.join(memA, 'checkpoint-my task.md'), checkpointText('my task', 'agent wrote a space'));
  writeFileSync(path.join(memA, 'checkpoint-Login.md'), checkpointText('Login', 'agent wrote capitals'));
  const push = await runCli(['push', '--dir', memA, '--json'], { cwd: a, env });
  assert.equal(push.code, 0, push.err);
  assert.deepEqual(JSON.parse(push.out).pushed.map((p: { name: string }) => p.name).sort(), ['login', 'my-task', 'plain']);
  const pull = await runCli(['pull', '--dir', memB, '--json'], { cwd: b, env });
  assert.equal(pull.code, 0, pull.err);
  assert.deepEqual(JSON.parse(pull.out).written.map((w: { name: string }) => w.name).sort(), ['login', 'my-task', 'plain']);
  assert.match(readFileSync(path.join(memB, 'checkpoint-login.md'), 'utf8'), /agent wrote capitals/);
});

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

test('push on a terminal shows what it will publish and asks: "n" pushes nothing, "y" pushes; --yes does not ask', { skip: hasScript ? false : 'needs script(1) for a terminal' }, () => {
  const root = temp();
  const { a, bare } = remotePair(root);
  const mem = path.join(root, 'mem');
  writeFileSync(path.join(a, 'wip.ts'), 'export {};\n');
  assert.equal(spawnSync(process.execPath, [CLI, 'save', 'asked', '--left-off', 'x', '--dir', mem], { cwd: a, env }).status, 0);
  // script(1) gives the CLI a terminal; the answer comes on its input.
  const onTerminal = (answer: string, extra: string[] = []): string =>
    spawnSync('script', ['-qec', [process.execPath, CLI, 'push', '--dir', mem, ...extra].map(shellQuote).join(' '), '/dev/null'], { cwd: a, env, input: answer, encoding: 'utf8', timeout: 60_000 }).stdout;
  const no = onTerminal('n\n');
  assert.match(no, /Will push to origin:\r?\n {2}asked with its snapshot [0-9a-f]{12}: 1 file\(s\) beyond the commit it was taken on\r?\n {4}A wip\.ts \(untracked\)/);
  assert.match(no, /Push\? \[y\/N\]/);
  assert.match(no, /Nothing was pushed\./);
  assert.deepEqual(refs(bare), []);
  assert.match(onTerminal('y\n'), /Pushed 1 checkpoint\(s\) to origin/);
  assert.deepEqual(refs(bare), ['refs/checkpoints/files/asked', 'refs/checkpoints/snapshots/asked']);
  assert.doesNotMatch(onTerminal('', ['--yes']), /Push\?/);
});
