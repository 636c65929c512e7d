import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { acceptedAutoMemoryDirectory, claudeProjectName, claudeSlug, javaHashCode, memoryDirLabel, resolveMemoryDir, type ResolvedMemoryDir } from '../../src/core/memoryDir';
import { resolveMainWorktree } from '../../src/core/gitDir';
import { git, makeRepo, tempDirs } from '../support/fixtures';
import { autoMemoryOffNotice } from '../../src/core/wording';

const temp = tempDirs();

const where = (r: ResolvedMemoryDir): { dir: string; source: string } => ({ dir: r.dir, source: r.source });
/** A temp folder by its real path (git writes real paths into `.git` files). */
const realTemp = (): string => realpathSync(temp());

/** A temp folder holding a home with `.claude/` and a workspace folder `ws/` (with a `.claude/` of its own: `wsClaude`). */
function homeAndWorkspace(opts: { wsClaude?: boolean } = {}): { root: string; home: string; ws: string } {
  const root = temp();
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  mkdirSync(opts.wsClaude ? path.join(ws, '.claude') : ws, { recursive: true });
  return { root, home, ws };
}

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

test('a slug over 200 characters: its first 200, "-" and Java\'s hashCode of the path in base 36, as Claude Code names the folder', async () => {
  const root = temp();
  const ws = path.join(root, 'x'.repeat(120), 'y'.repeat(100));
  mkdirSync(ws, { recursive: true });
  const claude = path.join(root, 'claude');
  mkdirSync(claude);
  const r = await resolveMemoryDir({ cwd: ws, env: { CLAUDE_CONFIG_DIR: claude } });
  const slug = claudeSlug(ws);
  assert.deepEqual(where(r), { dir: path.join(claude, 'projects', `${slug.slice(0, 200)}-${Math.abs(javaHashCode(ws)).toString(36)}`, 'memory'), source: 'claude' });
  assert.equal(r.claudeLoads, true);
  // Java's values; over UTF-16 code units (a letter outside the BMP is two); wrapping at 32 bits. The folder the real
  // client makes is compared in test/claude/whereClientReads.test.ts.
  assert.equal(javaHashCode('hello'), 99162322);
  assert.equal(javaHashCode('é'), 233);
  assert.equal(javaHashCode('\u{1F600}'), 0xd83d * 31 + 0xde00);
  assert.equal(javaHashCode('Hello World'), -862545276);
  assert.equal(claudeProjectName('/short/path'), '-short-path');
  assert.equal(claudeProjectName('/' + 'a'.repeat(199)), '-' + 'a'.repeat(199), 'exactly 200: as is');
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

test('autoMemoryDirectory from Claude Code\'s user settings: absolute or ~ expanded; a relative value is ignored, as Claude Code ignores it', async () => {
  const { root, home, ws } = homeAndWorkspace();
  const env = { HOME: home };
  const userSettings = path.join(home, '.claude', 'settings.json');
  const cases: [string, string][] = [
    [path.join(root, 'abs-mem'), path.join(root, 'abs-mem')],
    ['~/notes/memory', path.join(home, 'notes', 'memory')],
    [`${path.join(root, 'trailing')}/`, path.join(root, 'trailing')],
  ];
  for (const [value, expected] of cases) {
    writeFileSync(userSettings, JSON.stringify({ autoMemoryDirectory: value, model: 'x' }));
    const r = await resolveMemoryDir({ cwd: ws, env });
    assert.deepEqual(where(r), { dir: expected, source: 'claude' }, value);
    assert.equal(r.claude?.settingsFile, userSettings);
    assert.equal(r.claudeLoads, true);
  }
  // Relative, not a string, empty, or a file that is not JSON: the default folder; a value set but ignored is named.
  const byDefault = path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory');
  for (const value of ['rel/memory', 'notes', './x', '~', '~/', '~/..', '~/../elsewhere', '~user/x', 3, '', ' ']) {
    writeFileSync(userSettings, JSON.stringify({ autoMemoryDirectory: value }));
    const r = await resolveMemoryDir({ cwd: ws, env });
    assert.deepEqual(where(r), { dir: byDefault, source: 'claude' }, String(value));
    assert.equal(r.claudeLoads, true);
    assert.equal(r.claude?.settingsFile, undefined);
    assert.deepEqual(r.claude?.ignored, { value: typeof value === 'string' ? value : JSON.stringify(value), settingsFile: userSettings }, String(value));
  }
  for (const text of ['{ not json', '[]', JSON.stringify({ autoMemoryDirectory: null })]) {
    writeFileSync(userSettings, text);
    const r = await resolveMemoryDir({ cwd: ws, env });
    assert.equal(r.dir, byDefault, text);
    assert.equal(r.claude?.ignored, undefined, text);
  }
  // The setting and the environment variable still come first.
  writeFileSync(userSettings, JSON.stringify({ autoMemoryDirectory: '/from-claude' }));
  assert.equal((await resolveMemoryDir({ cwd: ws, env: { ...env, CHECKPOINT_MEMORY_DIR: '/from-env' } })).source, 'env');
});

test('the project\'s .claude/settings(.local).json are read only in a trusted workspace; local > project > user; the first that sets it decides, accepted or not', async () => {
  const { root, home, ws } = homeAndWorkspace({ wsClaude: true });
  const env = { HOME: home };
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: '/user-mem' }));
  writeFileSync(path.join(ws, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: 'project-mem' }));
  assert.equal((await resolveMemoryDir({ cwd: ws, env })).dir, '/user-mem', 'untrusted by default: the user\'s setting');
  assert.equal((await resolveMemoryDir({ cwd: ws, env, trusted: false })).dir, '/user-mem');
  // The project's relative value is the one Claude Code takes, and ignores: its default folder, not the user's.
  const ignored = await resolveMemoryDir({ cwd: ws, env, trusted: true });
  assert.equal(ignored.dir, path.join(home, '.claude', 'projects', claudeSlug(ws), 'memory'));
  assert.deepEqual(ignored.claude?.ignored, { value: 'project-mem', settingsFile: path.join(ws, '.claude', 'settings.json') });
  writeFileSync(path.join(ws, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: path.join(root, 'project-mem') }));
  assert.equal((await resolveMemoryDir({ cwd: ws, env, trusted: true })).dir, path.join(root, 'project-mem'));
  writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryDirectory: '~/local-mem' }));
  const r = await resolveMemoryDir({ cwd: ws, env, trusted: true });
  assert.equal(r.dir, path.join(home, 'local-mem'));
  assert.equal(r.claude?.settingsFile, path.join(ws, '.claude', 'settings.local.json'));
  // An untrusted workspace cannot turn Claude's auto memory off either.
  writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryEnabled: false }));
  assert.equal((await resolveMemoryDir({ cwd: ws, env })).claudeLoads, true);
  assert.equal((await resolveMemoryDir({ cwd: ws, env, trusted: true })).claudeLoads, false);
});

test('managed settings come first: managed-settings.d/ (a later name first), then managed-settings.json', async () => {
  const { root, home, ws } = homeAndWorkspace({ wsClaude: true });
  const managedDir = path.join(root, 'managed');
  mkdirSync(path.join(managedDir, 'managed-settings.d'), { recursive: true });
  const env = { HOME: home };
  writeFileSync(path.join(ws, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryDirectory: '/local-mem' }));
  const opts = { cwd: ws, env, trusted: true, managedDir };
  assert.equal((await resolveMemoryDir(opts)).dir, '/local-mem');
  writeFileSync(path.join(managedDir, 'managed-settings.json'), JSON.stringify({ autoMemoryDirectory: '/managed-mem' }));
  assert.equal((await resolveMemoryDir(opts)).claude?.settingsFile, path.join(managedDir, 'managed-settings.json'));
  writeFileSync(path.join(managedDir, 'managed-settings.d', '10-a.json'), JSON.stringify({ autoMemoryDirectory: '/drop-in-a' }));
  writeFileSync(path.join(managedDir, 'managed-settings.d', '20-b.json'), JSON.stringify({ autoMemoryEnabled: false, autoMemoryDirectory: '/drop-in-b' }));
  writeFileSync(path.join(managedDir, 'managed-settings.d', '.30-hidden.json'), JSON.stringify({ autoMemoryDirectory: '/hidden' }));
  const r = await resolveMemoryDir(opts);
  assert.equal(r.dir, '/drop-in-b');
  assert.match(r.claude?.autoMemoryOff ?? '', /20-b\.json/);
  // The project's files still need trust; managed settings do not.
  assert.equal((await resolveMemoryDir({ ...opts, trusted: false })).dir, '/drop-in-b');
});

test('acceptedAutoMemoryDirectory: absolute or ~/ below home, trailing separators dropped, NFC', () => {
  assert.equal(acceptedAutoMemoryDirectory('/a/b/', '/home/me'), '/a/b');
  assert.equal(acceptedAutoMemoryDirectory('~/m', '/home/me'), '/home/me/m');
  assert.equal(acceptedAutoMemoryDirectory('/cafe\u0301', '/home/me'), '/caf\u00e9');
  for (const bad of ['m', '~', '~/', '~/..', '/', 'a\0b', '/x\0']) assert.equal(acceptedAutoMemoryDirectory(bad, '/home/me'), undefined, bad);
});

test('auto memory off: still Claude\'s folder, reported with the reason so the user can be told', async () => {
  const { root, home, ws } = homeAndWorkspace();
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
  const { home, ws } = homeAndWorkspace();
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
