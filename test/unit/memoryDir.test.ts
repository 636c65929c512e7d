import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeSlug, memoryDirLabel, resolveMemoryDir, type ResolvedMemoryDir } from '../../src/core/memoryDir';
import { resolveMainWorktree } from '../../src/core/gitDir';
import { git, makeRepo, tempDirs } from '../support/fixtures';
import { autoMemoryOffNotice } from '../../src/core/wording';

const temp = tempDirs();

const where = (r: ResolvedMemoryDir): { dir: string; source: string } => ({ dir: r.dir, source: r.source });
/** A temp folder by its real path (git writes real paths into `.git` files). */
const realTemp = (): string => realpathSync(temp());

test('claudeSlug replaces every character outside [A-Za-z0-9] without collapsing runs', () => {
  assert.equal(claudeSlug('/home/me/my_project.v2'), '-home-me-my-project-v2');
  assert.equal(claudeSlug('/a//b'), '-a--b');
});

test('order: setting, env, Claude auto-memory, workspace fallback', async () => {
  const root = temp();
  const ws = path.join(root, 'ws');
  mkdirSync(path.join(ws, '.git'), { recursive: true });
  mkdirSync(path.join(ws, 'sub'));
  const home = path.join(root, 'home');
  mkdirSync(home);
  const env: NodeJS.ProcessEnv = { HOME: home };
  assert.deepEqual(where(await resolveMemoryDir({ cwd: ws, env })), { dir: path.join(ws, '.claude', 'memory'), source: 'workspace' });
  mkdirSync(path.join(home, '.claude'));
  const expected = path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory');
  assert.deepEqual(where(await resolveMemoryDir({ cwd: path.join(ws, 'sub'), env })), { dir: expected, source: 'claude' }, 'uses the git root');
  const cfg = path.join(root, 'cfg');
  mkdirSync(cfg);
  assert.equal((await resolveMemoryDir({ cwd: ws, env: { ...env, CLAUDE_CONFIG_DIR: cfg } })).dir, path.join(cfg, 'projects', claudeSlug(ws), 'memory'));
  assert.deepEqual(where(await resolveMemoryDir({ cwd: ws, env: { ...env, CHECKPOINT_MEMORY_DIR: 'rel/mem' } })), { dir: path.join(ws, 'rel', 'mem'), source: 'env' });
  assert.deepEqual(where(await resolveMemoryDir({ cwd: ws, env: { ...env, CHECKPOINT_MEMORY_DIR: '/x' }, configured: '~/mem' })), { dir: path.join(home, 'mem'), source: 'setting' });
});

/** A workspace folder whose path makes a Claude Code slug over 200 characters, and a Claude config folder. */
function longPathWorkspace(): { ws: string; claude: string; env: NodeJS.ProcessEnv } {
  const root = temp();
  const ws = path.join(root, 'x'.repeat(120), 'y'.repeat(100));
  mkdirSync(ws, { recursive: true });
  const claude = path.join(root, 'claude');
  return { ws, claude, env: { CLAUDE_CONFIG_DIR: claude } };
}

test('a slug over 200 characters: the project whose transcript names the path, else the fallback', async () => {
  const { ws, claude, env } = longPathWorkspace();
  mkdirSync(path.join(claude, 'projects', 'other'), { recursive: true });
  assert.equal((await resolveMemoryDir({ cwd: ws, env })).source, 'workspace');
  const proj = path.join(claude, 'projects', 'hashed-abc123');
  mkdirSync(proj);
  writeFileSync(path.join(proj, 's.jsonl'), `${JSON.stringify({ type: 'user', cwd: ws })}\nnot json\n`);
  writeFileSync(path.join(claude, 'projects', 'other', 's.jsonl'), `${JSON.stringify({ cwd: '/elsewhere' })}\n`);
  assert.deepEqual(where(await resolveMemoryDir({ cwd: ws, env })), { dir: path.join(proj, 'memory'), source: 'claude' });
});

test('a slug over 200 characters: only the first line of each transcript is read', async () => {
  const { ws, claude, env } = longPathWorkspace();
  const proj = path.join(claude, 'projects', 'later-line');
  mkdirSync(proj, { recursive: true });
  // The path is named only on the second line, after a first line of 1 MB: not read, so not this project.
  writeFileSync(path.join(proj, 'a.jsonl'), `${JSON.stringify({ type: 'summary', cwd: '/other' })}\n${JSON.stringify({ cwd: ws })}\n`);
  writeFileSync(path.join(proj, 'b.jsonl'), `${'x'.repeat(1024 * 1024)}\n${JSON.stringify({ cwd: ws })}\n`);
  assert.equal((await resolveMemoryDir({ cwd: ws, env })).source, 'workspace');
  writeFileSync(path.join(proj, 'c.jsonl'), `${JSON.stringify({ cwd: ws })}\r\n`);
  assert.equal((await resolveMemoryDir({ cwd: ws, env })).dir, path.join(proj, 'memory'), 'a CRLF first line names it');
});

test('a linked worktree and a subfolder share the main worktree\'s memory folder, as Claude Code does', async () => {
  const base = realTemp();
  const repo = makeRepo({ dir: path.join(base, 'repo') });
  const worktree = path.join(base, 'repo-feature');
  git(repo, 'worktree', 'add', '-q', '-b', 'feature/x', worktree);
  mkdirSync(path.join(worktree, 'src'));
  const claude = path.join(base, 'claude');
  mkdirSync(claude);
  const env = { CLAUDE_CONFIG_DIR: claude, HOME: path.join(base, 'home') };
  const expected = path.join(claude, 'projects', claudeSlug(repo), 'memory');
  for (const cwd of [repo, worktree, path.join(worktree, 'src')]) {
    const r = await resolveMemoryDir({ cwd, env });
    assert.deepEqual(where(r), { dir: expected, source: 'claude' }, cwd);
    assert.equal(r.claude?.projectRoot, repo);
    assert.equal(r.claudeLoads, true);
  }
  assert.equal(await resolveMainWorktree(worktree), repo);
  // A submodule is a repository of its own.
  const lib = makeRepo({ dir: path.join(base, 'lib') });
  git(repo, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', lib, 'vendor/lib');
  assert.equal(await resolveMainWorktree(path.join(repo, 'vendor', 'lib')), path.join(repo, 'vendor', 'lib'));
  assert.equal(await resolveMainWorktree(path.join(base, 'claude')), undefined);
});

test('autoMemoryDirectory from Claude Code\'s user settings: absolute, ~ expanded, relative against the folder', async () => {
  const root = temp();
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  mkdirSync(ws);
  const env = { HOME: home };
  const userSettings = path.join(home, '.claude', 'settings.json');
  const cases: [string, string][] = [
    [path.join(root, 'abs-mem'), path.join(root, 'abs-mem')],
    ['~/notes/memory', path.join(home, 'notes', 'memory')],
    ['rel/memory', path.join(ws, 'rel', 'memory')],
  ];
  for (const [value, expected] of cases) {
    writeFileSync(userSettings, JSON.stringify({ autoMemoryDirectory: value, model: 'x' }));
    const r = await resolveMemoryDir({ cwd: ws, env });
    assert.deepEqual(where(r), { dir: expected, source: 'claude' }, value);
    assert.equal(r.claude?.settingsFile, userSettings);
    assert.equal(r.claudeLoads, true);
  }
  // Not a string, empty, or a file that is not JSON: the default folder.
  for (const text of [JSON.stringify({ autoMemoryDirectory: 3 }), JSON.stringify({ autoMemoryDirectory: ' ' }), '{ not json', '[]']) {
    writeFileSync(userSettings, text);
    assert.equal((await resolveMemoryDir({ cwd: ws, env })).dir, path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory'), text);
  }
  // The setting and the environment variable still come first.
  writeFileSync(userSettings, JSON.stringify({ autoMemoryDirectory: '/from-claude' }));
  assert.equal((await resolveMemoryDir({ cwd: ws, env: { ...env, CHECKPOINT_MEMORY_DIR: '/from-env' } })).source, 'env');
});

test('the project\'s .claude/settings(.local).json are read only in a trusted workspace; local > project > user', async () => {
  const root = temp();
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  mkdirSync(path.join(ws, '.claude'), { recursive: true });
  const env = { HOME: home };
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: '/user-mem' }));
  writeFileSync(path.join(ws, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: 'project-mem' }));
  assert.equal((await resolveMemoryDir({ cwd: ws, env })).dir, '/user-mem', 'untrusted by default: the user\'s setting');
  assert.equal((await resolveMemoryDir({ cwd: ws, env, trusted: false })).dir, '/user-mem');
  assert.equal((await resolveMemoryDir({ cwd: ws, env, trusted: true })).dir, path.join(ws, 'project-mem'));
  writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryDirectory: '~/local-mem' }));
  const r = await resolveMemoryDir({ cwd: ws, env, trusted: true });
  assert.equal(r.dir, path.join(home, 'local-mem'));
  assert.equal(r.claude?.settingsFile, path.join(ws, '.claude', 'settings.local.json'));
  // An untrusted workspace cannot turn Claude's auto memory off either.
  writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryEnabled: false }));
  assert.equal((await resolveMemoryDir({ cwd: ws, env })).claudeLoads, true);
  assert.equal((await resolveMemoryDir({ cwd: ws, env, trusted: true })).claudeLoads, false);
});

test('auto memory off: still Claude\'s folder, reported with the reason so the user can be told', async () => {
  const root = temp();
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  mkdirSync(ws);
  const claudeDir = path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory');
  const on = await resolveMemoryDir({ cwd: ws, env: { HOME: home } });
  assert.equal(on.claudeLoads, true);
  assert.equal(autoMemoryOffNotice(on), undefined);

  const byEnv = await resolveMemoryDir({ cwd: ws, env: { HOME: home, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' } });
  assert.deepEqual(where(byEnv), { dir: claudeDir, source: 'claude' });
  assert.equal(byEnv.claudeLoads, false);
  assert.match(autoMemoryOffNotice(byEnv, home) ?? '', /CLAUDE_CODE_DISABLE_AUTO_MEMORY=1.*Claude Code will not load them/);

  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryEnabled: false }));
  const bySettings = await resolveMemoryDir({ cwd: ws, env: { HOME: home } });
  assert.equal(bySettings.dir, claudeDir);
  assert.equal(bySettings.claudeLoads, false);
  assert.match(autoMemoryOffNotice(bySettings, home) ?? '', /autoMemoryEnabled is false in ~\/\.claude\/settings\.json/);
  // Claude Code's own override turns it back on.
  assert.equal((await resolveMemoryDir({ cwd: ws, env: { HOME: home, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '0' } })).claudeLoads, true);
  // A folder of the user's own choosing is not Claude's: nothing to tell about Claude's auto memory.
  const own = await resolveMemoryDir({ cwd: ws, env: { HOME: home }, configured: path.join(root, 'own') });
  assert.equal(own.claudeLoads, false);
  assert.equal(autoMemoryOffNotice(own), undefined);
});

test('the setting naming Claude\'s own folder: Claude Code loads it', async () => {
  const root = temp();
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  const ws = path.join(root, 'ws');
  mkdirSync(ws);
  const claudeDir = path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory');
  assert.equal((await resolveMemoryDir({ cwd: ws, env: { HOME: home }, configured: claudeDir })).claudeLoads, true);
  assert.equal((await resolveMemoryDir({ cwd: ws, env: { HOME: home }, configured: path.join(ws, 'm') })).claudeLoads, false);
});

test('the workspace fallback inside a git repository asks for a .gitignore; outside git it does not', async () => {
  const root = temp();
  const env = { HOME: path.join(root, 'home') };
  const repo = makeRepo({ dir: path.join(root, 'repo') });
  const r = await resolveMemoryDir({ cwd: repo, env });
  assert.deepEqual(where(r), { dir: path.join(repo, '.claude', 'memory'), source: 'workspace' });
  assert.equal(r.ignoreInGit, true);
  assert.equal(r.claudeLoads, false);
  const plain = path.join(root, 'plain');
  mkdirSync(plain);
  assert.equal((await resolveMemoryDir({ cwd: plain, env })).ignoreInGit, undefined);
});

test('memoryDirLabel: Claude\'s folder of a project by the project\'s name, any other folder with ~ for home', () => {
  const home = '/home/dev';
  const claude = { dir: '/home/dev/.claude/projects/-home-dev-shop-app/memory', projectRoot: '/home/dev/shop-app' };
  assert.equal(memoryDirLabel({ dir: claude.dir, source: 'claude', claude, claudeLoads: true }, home), "Claude Code's memory for shop-app");
  assert.equal(memoryDirLabel({ dir: '/home/dev/shop-app/.claude/memory', source: 'workspace', claudeLoads: false }, home), '~/shop-app/.claude/memory');
  assert.equal(memoryDirLabel({ dir: '/srv/notes', source: 'setting', claude, claudeLoads: false }, home), '/srv/notes');
  // autoMemoryDirectory names the folder: shown as the path it is.
  const named = { dir: '/home/dev/notes', settingsFile: '/home/dev/.claude/settings.json' };
  assert.equal(memoryDirLabel({ dir: named.dir, source: 'claude', claude: named, claudeLoads: true }, home), '~/notes');
});
