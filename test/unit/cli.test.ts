import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, git, isolatedEnv, makeRepo, removeDir, runCliInProcess, runCliSync, type ProcessResult, tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** HOME for CLI runs that do not name one: an empty temp folder, so the real home is never read. */
const defaultHome = temp('checkpoint-home-');
after(() => removeDir(defaultHome));

/** The built CLI, run as a process. */
function cli(args: string[], opts: { cwd?: string; home?: string; env?: NodeJS.ProcessEnv } = {}): ProcessResult {
  return runCliSync(args, { cwd: opts.cwd, env: isolatedEnv(opts.home ?? defaultHome, opts.env) });
}

/** The CLI's commands run in this process (what does not depend on the process itself). */
function inProcess(args: string[], opts: { cwd?: string; home?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessResult> {
  return runCliInProcess(args, { cwd: opts.cwd ?? process.cwd(), env: isolatedEnv(opts.home ?? defaultHome, opts.env) });
}

test('the CLI is built', () => {
  assert.ok(existsSync(CLI), `${CLI} exists (npm run build)`);
  assert.match(readFileSync(CLI, 'utf8').split('\n')[0], /^#!\/usr\/bin\/env node/);
});

test('save / list / show / resume / delete through the process, with --json shapes', () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(temp(), 'mem');
  try {
    git(repo, 'checkout', '-q', '-b', 'feature/oauth');
    writeFileSync(path.join(repo, 'a.ts'), 'x');
    const save = cli(['save', 'my-feature', '--left-off', 'Wiring callback', '--done', 'd1', '--done', 'd2', '--failed', 'f1', '--decision', 'dec', '--question', 'q?', '--dir', mem, '--json'], { cwd: repo });
    assert.equal(save.code, 0, save.err);
    const saved = JSON.parse(save.out);
    assert.deepEqual(
      Object.keys(saved).sort(),
      ['auto', 'blockers', 'branch', 'commit', 'commitError', 'decisions', 'description', 'done', 'failedApproaches', 'frontMatterSkipped', 'head', 'leftOff', 'modifiedFiles', 'name', 'path', 'plan', 'planStep', 'planSteps', 'questions', 'saved', 'session', 'snapshot', 'snapshotLeftOut', 'snapshotSkipped', 'sources', 'trashPath', 'warnings'],
    );
    assert.equal(saved.branch, 'feature/oauth');
    assert.deepEqual(saved.modifiedFiles, ['a.ts']);
    assert.equal(saved.path, path.join(mem, 'checkpoint-my-feature.md'));

    const again = cli(['save', 'my-feature', '--left-off', 'other', '--dir', mem], { cwd: repo });
    assert.equal(again.code, 1);
    assert.match(again.err, /already exists \(saved .*left off: "Wiring callback"\).*--force/);
    assert.equal(again.out, '');

    const list = JSON.parse(cli(['list', '--json', '--dir', mem], { cwd: repo }).out);
    assert.deepEqual(list, [{ name: 'my-feature', path: saved.path, branch: 'feature/oauth', saved: saved.saved, description: 'Wiring callback', plan: null, planStep: null, planSteps: null, unreadable: null, frontMatterSkipped: null }]);

    const show = JSON.parse(cli(['show', 'my-feature', '--json', '--dir', mem], { cwd: repo }).out);
    assert.deepEqual([show.done, show.failedApproaches, show.decisions, show.questions], [['d1', 'd2'], ['f1'], ['dec'], ['q?']]);

    git(repo, 'checkout', '-q', 'main');
    const human = cli(['resume', 'my-feature', '--keep', '--dir', mem], { cwd: repo });
    assert.equal(human.code, 0);
    assert.match(human.out, /Warning: You're on `main` but checkpoint was saved on `feature\/oauth`/);
    assert.match(human.out, /Previously failed: f1/);

    const resumed = JSON.parse(cli(['resume', '--json', '--dir', mem], { cwd: repo }).out);
    const { trashPath, since, ...rest } = resumed;
    const { since: _shownSince, ...shown } = show;
    assert.deepEqual(rest, { ...shown, currentBranch: 'main', branchMismatch: true, consumed: true });
    assert.match(trashPath, /\.trash/);
    assert.equal(since.branch, 'feature/oauth');
    assert.equal(existsSync(saved.path), false);
    assert.equal(readdirSync(path.join(mem, '.trash')).length, 1);

    const none = cli(['resume', '--dir', mem], { cwd: repo });
    assert.equal(none.code, 1);
    assert.match(none.err, /No saved checkpoints found\./);

    cli(['save', 'a', '--dir', mem], { cwd: repo });
    cli(['save', 'b', '--dir', mem], { cwd: repo });
    const del = cli(['delete', 'a', '--dir', mem], { cwd: repo });
    assert.equal(del.code, 0, del.err);
    assert.match(cli(['delete', '--all', '--dir', mem], { cwd: repo }).out, /Moved 1 checkpoint\(s\) to the trash: b\./);
    assert.doesNotMatch(readFileSync(path.join(mem, 'MEMORY.md'), 'utf8'), /## (?:Active )?Checkpoints/);
  } finally {
    removeDir(repo);
    removeDir(path.dirname(mem));
  }
});

test('exit codes: 2 for bad usage, 1 for user errors with nothing written', async () => {
  const dir = temp();
  const mem = path.join(dir, 'mem');
  for (const args of [[], ['frobnicate'], ['save', 'x', 'y'], ['save', 'x', '--nope'], ['list', 'extra'], ['delete']]) {
    const r = await inProcess([...args, '--dir', mem], { cwd: dir });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /checkpoint: /);
  }
  // Each command that takes a checkpoint's name says so, with its usage line.
  for (const command of ['show', 'diff', 'branch']) {
    const r = await inProcess([command, '--dir', mem], { cwd: dir });
    assert.equal(r.code, 2, `${command}: ${r.err}`);
    assert.match(r.err, new RegExp(`^checkpoint: A checkpoint name is required: checkpoint ${command} <name>.*\nUsage: checkpoint ${command} <name>`));
  }
  const bad = await inProcess(['save', '../..', '--dir', mem], { cwd: dir });
  assert.equal(bad.code, 1);
  assert.match(bad.err, /not a usable checkpoint name/);
  assert.equal(existsSync(mem), false, 'nothing written');
  const missing = await inProcess(['show', 'ghost', '--dir', mem], { cwd: dir });
  assert.equal(missing.code, 1);
  for (const args of [['resume', 'ghost'], ['delete', 'ghost'], ['resume']]) {
    assert.equal((await inProcess([...args, '--dir', mem], { cwd: dir })).code, 1, args.join(' '));
  }
  assert.equal(existsSync(mem), false, 'a miss writes nothing, not even the folder');
  const badCwd = await inProcess(['list', '--cwd', path.join(dir, 'nope')]);
  assert.equal(badCwd.code, 1);
});

test('resume of a checkpoint whose file is gone removes the orphan bullet and says so (exit 0)', async () => {
  const dir = temp();
  const mem = path.join(dir, 'mem');
  assert.equal((await inProcess(['save', 'keep', '--left-off', 'k', '--dir', mem], { cwd: dir })).code, 0);
  assert.equal((await inProcess(['save', 'gone', '--left-off', 'g', '--dir', mem], { cwd: dir })).code, 0);
  rmSync(path.join(mem, 'checkpoint-gone.md'));
  const r = await inProcess(['resume', 'gone', '--dir', mem], { cwd: dir });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Checkpoint file missing \(cleaned up stale entry/);
  const index = readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');
  assert.doesNotMatch(index, /\*\*gone\*\*/);
  assert.match(index, /\*\*keep\*\*/);
});

test('a plan file that does not exist is saved with a warning', async () => {
  const dir = temp();
  const r = await inProcess(['save', 'p', '--plan', 'missing.md', '--dir', path.join(dir, 'mem')], { cwd: dir });
  assert.equal(r.code, 0);
  assert.match(r.err, /Plan file .*missing\.md was not found/);
});

test('help is useful', async () => {
  const top = await inProcess(['--help']);
  assert.equal(top.code, 0);
  for (const c of ['save', 'list', 'show', 'resume', 'delete', 'combine', 'dir']) assert.match(top.out, new RegExp(`\\n  ${c}`));
  const save = await inProcess(['save', '--help']);
  assert.equal(save.code, 0);
  assert.match(save.out, /--left-off TEXT/);
  assert.match(save.out, /--force/);
});

test('--version prints the version of package.json', () => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string };
  const r = cli(['--version']);
  assert.equal(r.code, 0);
  assert.equal(r.out.trim(), pkg.version);
});

test('memory directory: --dir, env, Claude folder, fallback', async () => {
  const ws = makeRepo({ dir: temp('checkpoint-repo-') });
  const home = temp();
  assert.equal((await inProcess(['dir'], { cwd: ws, home })).out.trim(), path.join(ws, '.claude', 'memory'));
  mkdirSync(path.join(home, '.claude'));
  assert.equal((await inProcess(['dir'], { cwd: ws, home })).out.trim(), path.join(home, '.claude', 'projects', ws.replace(/[^A-Za-z0-9]/g, '-'), 'memory'));
  assert.equal((await inProcess(['dir', '--cwd', ws], { home, env: { CHECKPOINT_MEMORY_DIR: '/tmp/x-mem' } })).out.trim(), '/tmp/x-mem');
  assert.equal((await inProcess(['dir', '--dir', 'rel', '--json'], { cwd: ws, home })).out.includes(path.join(ws, 'rel')), true);
});

test('combine: one checkpoint from several, --json shape, --trash-sources, errors name the valid checkpoints', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(temp(), 'mem');
  try {
    assert.equal((await inProcess(['save', 'alpha', '--left-off', 'alpha left off', '--done', 'a1', '--failed', 'fa', '--dir', mem], { cwd: repo })).code, 0);
    git(repo, 'checkout', '-q', '-b', 'feature/b');
    assert.equal((await inProcess(['save', 'beta', '--left-off', 'beta left off', '--done', 'a1', '--done', 'b1', '--dir', mem], { cwd: repo })).code, 0);

    const usage = await inProcess(['combine', '--dir', mem], { cwd: repo });
    assert.equal(usage.code, 2);
    for (const args of [['merged', 'alpha'], ['merged', 'alpha', 'gamma']]) {
      const bad = await inProcess(['combine', ...args, '--dir', mem], { cwd: repo });
      assert.equal(bad.code, 1, bad.err);
      assert.match(bad.err, /Checkpoints you can combine: alpha, beta\./);
      assert.equal(bad.out, '');
      assert.ok(!existsSync(path.join(mem, 'checkpoint-merged.md')));
    }

    const r = await inProcess(['combine', 'merged', 'alpha', 'beta', '--json', '--trash-sources', '--dir', mem], { cwd: repo });
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    assert.equal(out.branch, 'feature/b');
    assert.equal(out.trashPath, null);
    assert.deepEqual(out.sources.map((s: { name: string }) => s.name), ['alpha', 'beta']);
    assert.deepEqual(out.trashedSources.map((s: { name: string }) => s.name).sort(), ['alpha', 'beta']);
    assert.equal(out.trashedSources.length, 2);
    const text = readFileSync(out.path, 'utf8');
    assert.match(text, /^sources: \[alpha, beta\]$/m);
    assert.match(text, /## Left Off\nbeta: beta left off\nalpha: alpha left off\n## Done This Session\n- a1\n- b1\n## Failed Approaches\n- fa\n/);
    assert.match(text, /\| alpha \| [^|]+ \| main \| — \|\n\| beta \| [^|]+ \| feature\/b \| — \|\n$/);
    const shown = JSON.parse((await inProcess(['show', 'merged', '--json', '--dir', mem], { cwd: repo })).out);
    assert.deepEqual(shown.sources.map((s: { name: string }) => s.name), ['alpha', 'beta']);
    const list = JSON.parse((await inProcess(['list', '--json', '--dir', mem], { cwd: repo })).out);
    assert.deepEqual(list.map((c: { name: string }) => c.name), ['merged']);

    // Again over the existing name: the previous one goes to the trash first.
    assert.equal((await inProcess(['save', 'gamma', '--left-off', 'g', '--dir', mem], { cwd: repo })).code, 0);
    assert.equal((await inProcess(['save', 'delta', '--left-off', 'd', '--dir', mem], { cwd: repo })).code, 0);
    const again = await inProcess(['combine', 'merged', 'gamma', 'delta', '--dir', mem], { cwd: repo });
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /Checkpoint "merged" combined from gamma, delta\.[^\n]*\n.*checkpoint-merged\.md\nThe previous "merged" was moved to .*\.trash/);
    assert.ok(existsSync(path.join(mem, 'checkpoint-gamma.md')), 'sources stay without --trash-sources');
  } finally {
    removeDir(repo);
    removeDir(path.dirname(mem));
  }
});

test('save --commit [--push]: commits with the conventional message, lists what was left out; a refused commit is exit 0 (the checkpoint is written: exit 1 means nothing written) with the refusal on stderr', () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const bare = temp('checkpoint-bare-');
  const mem = path.join(temp(), 'mem');
  try {
    git(bare, 'init', '-q', '--bare', '-b', 'main');
    git(repo, 'remote', 'add', 'origin', bare);
    writeFileSync(path.join(repo, 'a.ts'), 'x');
    writeFileSync(path.join(repo, '.env'), 'TOKEN=1');
    const usage = cli(['save', 'x', '--push', '--dir', mem], { cwd: repo });
    assert.equal(usage.code, 2);
    const ok = cli(['save', 'done-it', '--left-off=-rf "quoted"\nmore', '--done', 'd1', '--commit', '--push', '--json', '--dir', mem], { cwd: repo });
    assert.equal(ok.code, 0, ok.err);
    const out = JSON.parse(ok.out);
    assert.equal(out.commit.subject, 'chore(done-it): -rf "quoted"');
    assert.deepEqual(out.commit.files, ['a.ts']);
    assert.deepEqual(out.commit.leftOut, ['.env']);
    assert.equal(out.commit.pushed, true);
    assert.equal(git(bare, 'log', '-1', '--format=%B', 'main').trim(), 'chore(done-it): -rf "quoted"\n\n- d1');

    const nothing = cli(['save', 'again', '--commit', '--dir', mem], { cwd: repo });
    assert.equal(nothing.code, 0, 'the checkpoint was written, so this is not exit 1 (SPEC: exit 1 means nothing written)');
    assert.match(nothing.out, /Checkpoint "again" saved/);
    assert.match(nothing.err, /^Warning: Not committed; the checkpoint is saved\. Nothing to commit \(left out as likely secrets: \.env\)\./m);
    assert.ok(existsSync(path.join(mem, 'checkpoint-again.md')));
    const json = cli(['save', 'third', '--commit', '--json', '--dir', mem], { cwd: repo });
    assert.equal(json.code, 0, json.err);
    const parsed = JSON.parse(json.out);
    assert.equal(parsed.commit, null);
    assert.match(parsed.commitError, /^Nothing to commit/);

    git(repo, 'remote', 'set-url', 'origin', path.join(repo, 'no-such-remote'));
    writeFileSync(path.join(repo, 'b.ts'), 'y');
    const unpushed = cli(['save', 'fourth', '--commit', '--push', '--dir', mem], { cwd: repo });
    assert.equal(unpushed.code, 0, 'the checkpoint and the commit were written');
    assert.match(unpushed.out, /Committed [0-9a-f]{7} on main: chore\(fourth\)/);
    assert.match(unpushed.err, /^Warning: Committed [0-9a-f]{7}, but the push failed: /m);
    assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), 'chore(fourth): checkpoint saved');
  } finally {
    removeDir(repo);
    removeDir(bare);
    removeDir(path.dirname(mem));
  }
});

test('an unclosed code fence in Left Off does not hide the sections after it', async () => {
  const dir = temp();
  const mem = path.join(dir, 'mem');
  assert.equal((await inProcess(['save', 'f', '--dir', mem, '--left-off', 'see:\n```ts\nconst a = 1', '--failed', 'f1', '--done', 'd1'], { cwd: dir })).code, 0);
  const cp = JSON.parse((await inProcess(['show', 'f', '--json', '--dir', mem], { cwd: dir })).out);
  assert.deepEqual([cp.done, cp.failedApproaches], [['d1'], ['f1']]);
  assert.equal(cp.leftOff, 'see:\n```ts\nconst a = 1');
});

test('a MEMORY.md that is not valid UTF-8 is refused and left byte-identical; nothing is written', async () => {
  const dir = temp();
  const mem = path.join(dir, 'mem');
  mkdirSync(mem);
  const bytes = Buffer.from('# Notes\ncaf\xe9\n', 'latin1');
  writeFileSync(path.join(mem, 'MEMORY.md'), bytes);
  const r = await inProcess(['save', 'a', '--dir', mem, '--left-off', 'x'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.err, /not valid UTF-8/);
  assert.ok(readFileSync(path.join(mem, 'MEMORY.md')).equals(bytes));
  assert.equal(existsSync(path.join(mem, 'checkpoint-a.md')), false);
});

test('global options may come before the command; an empty name is a user error (exit 1)', async () => {
  const dir = temp();
  const mem = path.join(dir, 'mem');
  assert.equal((await inProcess(['--dir', mem, 'save', 'x', '--left-off', 'y'], { cwd: dir })).code, 0);
  const listed = await inProcess(['--json', '--dir', mem, 'list'], { cwd: dir });
  assert.equal(listed.code, 0, listed.err);
  assert.equal(JSON.parse(listed.out)[0].name, 'x');
  const empty = await inProcess(['save', '', '--dir', mem], { cwd: dir });
  assert.equal(empty.code, 1);
  assert.match(empty.err, /not a usable checkpoint name/);
});

test('a plan path that does not exist is not written as a plan', async () => {
  const dir = temp();
  const mem = path.join(dir, 'mem');
  const r = await inProcess(['save', 'p', '--plan', 'gone.md', '--dir', mem, '--left-off', 'x'], { cwd: dir });
  assert.equal(r.code, 0);
  assert.match(r.err, /was not found; saved without a plan/);
  const text = readFileSync(path.join(mem, 'checkpoint-p.md'), 'utf8');
  assert.doesNotMatch(text, /plan|Plan/);
});

test('JSON checkpoints are read-only history: delete refuses and writes nothing', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const d = path.join(repo, '.claude', 'checkpoints');
  mkdirSync(d, { recursive: true });
  writeFileSync(path.join(d, '20261125T101500Z.json'), JSON.stringify({ timestamp: '2026-11-25T10:15:00Z', summary: 's' }));
  const mem = path.join(repo, 'mem');
  const r = await inProcess(['delete', '20261125t101500z', '--dir', mem], { cwd: repo });
  assert.equal(r.code, 1);
  assert.match(r.err, /read-only/);
  assert.ok(existsSync(path.join(d, '20261125T101500Z.json')));
  assert.equal(existsSync(mem), false);
});

test('writes keep the permissions of the file they replace', async () => {
  const dir = temp();
  const mem = path.join(dir, 'mem');
  mkdirSync(mem);
  writeFileSync(path.join(mem, 'MEMORY.md'), '# Private\n');
  chmodSync(path.join(mem, 'MEMORY.md'), 0o600);
  assert.equal((await inProcess(['save', 'a', '--dir', mem, '--left-off', 'x'], { cwd: dir })).code, 0);
  assert.equal(statSync(path.join(mem, 'MEMORY.md')).mode & 0o777, 0o600);
});

test('delete --all with no checkpoints and no folder writes nothing', async () => {
  const dir = temp();
  const mem = path.join(dir, 'mem');
  const r = await inProcess(['delete', '--all', '--dir', mem], { cwd: dir });
  assert.equal(r.code, 0);
  assert.match(r.out, /Moved 0 checkpoint\(s\) to the trash\./);
  assert.equal(existsSync(mem), false);
});

test('the branch warning for a checkpoint saved on a detached HEAD suggests a command that works', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  git(repo, 'checkout', '-q', '--detach');
  const mem = path.join(repo, 'mem');
  await inProcess(['save', 'd', '--dir', mem], { cwd: repo });
  git(repo, 'checkout', '-q', 'main');
  const out = (await inProcess(['resume', 'd', '--keep', '--dir', mem], { cwd: repo })).out;
  const sha = git(repo, 'rev-parse', '--short=7', 'HEAD').trim();
  assert.match(out, new RegExp(`Switch with: git checkout ${sha}`));
});
