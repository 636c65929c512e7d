// Where the CLI puts checkpoints: Claude Code's memory folder of the repository's main worktree, its
// autoMemoryDirectory setting, auto memory off, and the `.gitignore` of a created `<folder>/.claude/memory`.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeSlug } from '../../src/core/memoryDir';
import { git, makeRepo, runCliInProcess, tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** Runs the CLI's commands in this process, with HOME in `home` and nothing else of this process's environment but PATH. */
async function cli(args: string[], cwd: string, home: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number; out: string; err: string }> {
  const r = await runCliInProcess(args, { cwd, env: { PATH: process.env.PATH, HOME: home, ...env } });
  return { code: r.code ?? -1, out: r.out, err: r.err };
}

test('checkpoint dir --json: a linked worktree resolves to the main worktree\'s Claude memory folder, and says Claude loads it', async () => {
  const base = realpathSync(temp());
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  const repo = makeRepo({ dir: path.join(base, 'repo') });
  const worktree = path.join(base, 'repo-feature');
  git(repo, 'worktree', 'add', '-q', '-b', 'feature/x', worktree);
  const expected = path.join(home, '.claude', 'projects', claudeSlug(repo), 'memory');
  const r = await cli(['dir', '--json'], worktree, home);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), {
    dir: expected,
    source: 'claude',
    claudeLoads: true,
    claude: { dir: expected, settingsFile: null, projectRoot: repo, autoMemoryOff: null, ignoredAutoMemoryDirectory: null },
    warnings: [],
  });
  assert.equal((await cli(['dir'], worktree, home)).out.trim(), expected);
  // A checkpoint saved in the worktree is listed from the main checkout.
  assert.equal((await cli(['save', 'wt', '--left-off', 'in the worktree'], worktree, home)).code, 0);
  assert.deepEqual(JSON.parse((await cli(['list', '--json'], repo, home)).out).map((c: { name: string }) => c.name), ['wt']);
});

test('checkpoint dir --json: autoMemoryDirectory from the project\'s .claude/settings.local.json (the CLI is trusted)', async () => {
  const base = realpathSync(temp());
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: '~/user-memory' }));
  const ws = path.join(base, 'ws');
  mkdirSync(path.join(ws, '.claude'), { recursive: true });
  let out = JSON.parse((await cli(['dir', '--json'], ws, home)).out);
  assert.equal(out.dir, path.join(home, 'user-memory'));
  assert.equal(out.claude.settingsFile, path.join(home, '.claude', 'settings.json'));
  writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryDirectory: path.join(base, 'local-memory') }));
  out = JSON.parse((await cli(['dir', '--json'], ws, home)).out);
  assert.deepEqual([out.dir, out.source, out.claudeLoads], [path.join(base, 'local-memory'), 'claude', true]);
  assert.equal((await cli(['save', 'x', '--left-off', 'here'], ws, home)).code, 0);
  assert.ok(existsSync(path.join(base, 'local-memory', 'checkpoint-x.md')));
  // A relative value there is the one Claude Code takes and ignores: its default folder (not the user's), and the CLI says why.
  writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryDirectory: 'notes/memory' }));
  out = JSON.parse((await cli(['dir', '--json'], ws, home)).out);
  assert.deepEqual([out.dir, out.claudeLoads], [path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory'), true]);
  assert.deepEqual(out.claude.ignoredAutoMemoryDirectory, { value: 'notes/memory', settingsFile: path.join(ws, '.claude', 'settings.local.json') });
  assert.equal((await cli(['save', 'y', '--left-off', 'here'], ws, home)).code, 0);
  assert.ok(!existsSync(path.join(ws, 'notes')), 'nothing written into the relative folder');
});

test('auto memory off: the checkpoint is still saved in Claude\'s folder, and the CLI says once that Claude Code will not load it', async () => {
  const base = realpathSync(temp());
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryEnabled: false }));
  const ws = path.join(base, 'ws');
  mkdirSync(ws);
  const expected = path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory');
  const save = await cli(['save', 'off', '--left-off', 'here'], ws, home);
  assert.equal(save.code, 0, save.err);
  assert.ok(existsSync(path.join(expected, 'checkpoint-off.md')));
  assert.match(save.err, /auto memory is off \(autoMemoryEnabled is false in ~\/\.claude\/settings\.json\).*Claude Code will not load them/);
  // Told once (README), not at every save.
  const again = await cli(['save', 'off-again', '--left-off', 'here'], ws, home);
  assert.equal(again.code, 0, again.err);
  assert.doesNotMatch(again.err, /auto memory is off/);
  const dir = JSON.parse((await cli(['dir', '--json'], ws, home)).out);
  assert.equal(dir.claudeLoads, false);
  assert.match(dir.claude.autoMemoryOff, /autoMemoryEnabled is false/);
  const byEnv = await cli(['dir'], ws, home, { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' });
  assert.equal(byEnv.out.trim(), expected);
  assert.match(byEnv.err, /CLAUDE_CODE_DISABLE_AUTO_MEMORY=1/);
});

test('without ~/.claude, a created <repo>/.claude/memory carries a .gitignore of *: git add . commits no checkpoint', async () => {
  const base = realpathSync(temp());
  const home = path.join(base, 'home');
  mkdirSync(home);
  const repo = makeRepo({ dir: path.join(base, 'repo') });
  const save = await cli(['save', 'mine', '--left-off', 'private notes'], repo, home);
  assert.equal(save.code, 0, save.err);
  const mem = path.join(repo, '.claude', 'memory');
  assert.equal(readFileSync(path.join(mem, '.gitignore'), 'utf8'), '*\n');
  git(repo, 'add', '.');
  assert.equal(git(repo, 'status', '--porcelain', '--untracked-files=all').trim(), '', 'nothing staged or untracked');
  // The .gitignore is no checkpoint: not listed.
  assert.deepEqual(JSON.parse((await cli(['list', '--json'], repo, home)).out).map((c: { name: string }) => c.name), ['mine']);
  // A folder that already exists is left as it is; outside git, no .gitignore is written.
  const other = makeRepo({ dir: path.join(base, 'other') });
  mkdirSync(path.join(other, '.claude', 'memory'), { recursive: true });
  assert.equal((await cli(['save', 'a', '--left-off', 'x'], other, home)).code, 0);
  assert.ok(!existsSync(path.join(other, '.claude', 'memory', '.gitignore')));
  const plain = path.join(base, 'plain');
  mkdirSync(plain);
  assert.equal((await cli(['save', 'a', '--left-off', 'x'], plain, home)).code, 0);
  assert.ok(existsSync(path.join(plain, '.claude', 'memory', 'checkpoint-a.md')));
  assert.ok(!existsSync(path.join(plain, '.claude', 'memory', '.gitignore')));
});
