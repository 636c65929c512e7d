// Where the CLI puts checkpoints: Claude Code's memory folder of the repository's main worktree, its
// autoMemoryDirectory setting, auto memory off, and the `.gitignore` of a created `<folder>/.claude/memory`.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeSlug } from '../../src/core/memoryDir';
import { git, makeRepo, tempDirs } from '../support/fixtures';

const temp = tempDirs();

const CLI = path.resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

/** Runs the CLI with HOME in `home` and nothing else of this process's environment but PATH. */
function cli(args: string[], cwd: string, home: string, env: NodeJS.ProcessEnv = {}): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, ...env } });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

test('checkpoint dir --json: a linked worktree resolves to the main worktree\'s Claude memory folder, and says Claude loads it', () => {
  const base = realpathSync(temp());
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  const repo = makeRepo({ dir: path.join(base, 'repo') });
  const worktree = path.join(base, 'repo-feature');
  git(repo, 'worktree', 'add', '-q', '-b', 'feature/x', worktree);
  const expected = path.join(home, '.claude', 'projects', claudeSlug(repo), 'memory');
  const r = cli(['dir', '--json'], worktree, home);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(JSON.parse(r.out), {
    dir: expected,
    source: 'claude',
    claudeLoads: true,
    claude: { dir: expected, settingsFile: null, projectRoot: repo, autoMemoryOff: null },
  });
  assert.equal(cli(['dir'], worktree, home).out.trim(), expected);
  // A checkpoint saved in the worktree is listed from the main checkout.
  assert.equal(cli(['save', 'wt', '--left-off', 'in the worktree'], worktree, home).code, 0);
  assert.deepEqual(JSON.parse(cli(['list', '--json'], repo, home).out).map((c: { name: string }) => c.name), ['wt']);
});

test('checkpoint dir --json: autoMemoryDirectory from the project\'s .claude/settings.local.json (the CLI is trusted)', () => {
  const base = realpathSync(temp());
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: '~/user-memory' }));
  const ws = path.join(base, 'ws');
  mkdirSync(path.join(ws, '.claude'), { recursive: true });
  let out = JSON.parse(cli(['dir', '--json'], ws, home).out);
  assert.equal(out.dir, path.join(home, 'user-memory'));
  assert.equal(out.claude.settingsFile, path.join(home, '.claude', 'settings.json'));
  writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryDirectory: 'notes/memory' }));
  out = JSON.parse(cli(['dir', '--json'], ws, home).out);
  assert.deepEqual([out.dir, out.source, out.claudeLoads], [path.join(ws, 'notes', 'memory'), 'claude', true]);
  assert.equal(cli(['save', 'x', '--left-off', 'here'], ws, home).code, 0);
  assert.ok(existsSync(path.join(ws, 'notes', 'memory', 'checkpoint-x.md')));
});

test('auto memory off: the checkpoint is still saved in Claude\'s folder, and the CLI says once that Claude Code will not load it', () => {
  const base = realpathSync(temp());
  const home = path.join(base, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryEnabled: false }));
  const ws = path.join(base, 'ws');
  mkdirSync(ws);
  const expected = path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory');
  const save = cli(['save', 'off', '--left-off', 'here'], ws, home);
  assert.equal(save.code, 0, save.err);
  assert.ok(existsSync(path.join(expected, 'checkpoint-off.md')));
  assert.match(save.err, /auto memory is off \(autoMemoryEnabled is false in ~\/\.claude\/settings\.json\).*Claude Code will not load them/);
  // Told once (README), not at every save.
  const again = cli(['save', 'off-again', '--left-off', 'here'], ws, home);
  assert.equal(again.code, 0, again.err);
  assert.doesNotMatch(again.err, /auto memory is off/);
  const dir = JSON.parse(cli(['dir', '--json'], ws, home).out);
  assert.equal(dir.claudeLoads, false);
  assert.match(dir.claude.autoMemoryOff, /autoMemoryEnabled is false/);
  const byEnv = cli(['dir'], ws, home, { CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' });
  assert.equal(byEnv.out.trim(), expected);
  assert.match(byEnv.err, /CLAUDE_CODE_DISABLE_AUTO_MEMORY=1/);
});

test('without ~/.claude, a created <repo>/.claude/memory carries a .gitignore of *: git add . commits no checkpoint', () => {
  const base = realpathSync(temp());
  const home = path.join(base, 'home');
  mkdirSync(home);
  const repo = makeRepo({ dir: path.join(base, 'repo') });
  const save = cli(['save', 'mine', '--left-off', 'private notes'], repo, home);
  assert.equal(save.code, 0, save.err);
  const mem = path.join(repo, '.claude', 'memory');
  assert.equal(readFileSync(path.join(mem, '.gitignore'), 'utf8'), '*\n');
  git(repo, 'add', '.');
  assert.equal(git(repo, 'status', '--porcelain', '--untracked-files=all').trim(), '', 'nothing staged or untracked');
  // The .gitignore is no checkpoint: not listed.
  assert.deepEqual(JSON.parse(cli(['list', '--json'], repo, home).out).map((c: { name: string }) => c.name), ['mine']);
  // A folder that already exists is left as it is; outside git, no .gitignore is written.
  const other = makeRepo({ dir: path.join(base, 'other') });
  mkdirSync(path.join(other, '.claude', 'memory'), { recursive: true });
  assert.equal(cli(['save', 'a', '--left-off', 'x'], other, home).code, 0);
  assert.ok(!existsSync(path.join(other, '.claude', 'memory', '.gitignore')));
  const plain = path.join(base, 'plain');
  mkdirSync(plain);
  assert.equal(cli(['save', 'a', '--left-off', 'x'], plain, home).code, 0);
  assert.ok(existsSync(path.join(plain, '.claude', 'memory', 'checkpoint-a.md')));
  assert.ok(!existsSync(path.join(plain, '.claude', 'memory', '.gitignore')));
});
