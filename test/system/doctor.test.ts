// `checkpoint doctor` with the built CLI in temp worlds (a private HOME, a real git repository): each thing that keeps
// the next Claude Code session from getting the checkpoint is named with its fix and exit 1; a healthy world says ok.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { DoctorReport } from '../../src/core/doctor';
import { CLI, isolatedEnv, makeRepo, runCliSync, tempDirs } from '../support/fixtures';

const temp = tempDirs();

interface World {
  home: string;
  repo: string;
  env: NodeJS.ProcessEnv;
}

/** A HOME where Claude Code has run (`~/.claude`), and a repository. */
function world(opts: { repo?: string } = {}): World {
  const root = realpathSync(temp());
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  const repo = makeRepo({ dir: opts.repo ?? path.join(root, 'project') });
  return { home, repo, env: isolatedEnv(home) };
}

/** The SessionStart and PreCompact hooks in the project's settings, as Connect writes them (sources: `matcher`). */
function hooks(w: World, matcher = 'startup|resume|clear|compact|fork'): void {
  mkdirSync(path.join(w.repo, '.claude'), { recursive: true });
  const command = (event: string): { type: string; command: string; timeout: number } => ({ type: 'command', command: `checkpoint hook ${event}`, timeout: 10 });
  const settings = { hooks: { SessionStart: [{ matcher, hooks: [command('session-start')] }], PreCompact: [{ hooks: [command('pre-compact')] }] } };
  const file = path.join(w.repo, '.claude', 'settings.json');
  let current: Record<string, unknown> = {};
  try {
    current = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // a new file
  }
  writeFileSync(file, JSON.stringify({ ...current, ...settings }, null, 2));
}

function save(w: World, name: string, cwd = w.repo): string {
  const r = runCliSync(['save', name, '--left-off', `left off in ${name}`, '--json'], { cwd, env: w.env });
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { path: string }).path;
}

/** The session-start hook as Claude Code runs it at a session start of `source`. */
function sessionStart(w: World, source: string): void {
  const input = JSON.stringify({ session_id: `s-${source}`, cwd: w.repo, hook_event_name: 'SessionStart', source });
  const r = spawnSync(process.execPath, [CLI, 'hook', 'session-start'], { cwd: w.repo, env: w.env, input, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
}

function doctor(w: World, cwd = w.repo): { code: number | null; report: DoctorReport; text: string } {
  const json = runCliSync(['doctor', '--json'], { cwd, env: w.env });
  const text = runCliSync(['doctor'], { cwd, env: w.env });
  assert.equal(text.code, json.code, 'the same verdict with and without --json');
  return { code: json.code, report: JSON.parse(json.out) as DoctorReport, text: text.out };
}

/** Exit 1, with `id` as the first problem, named in the text with its fix. */
function assertFirstProblem(r: ReturnType<typeof doctor>, id: string, message: RegExp): void {
  assert.equal(r.code, 1, r.text);
  assert.equal(r.report.ok, false);
  assert.equal(r.report.problems[0]?.id, id, JSON.stringify(r.report.problems, null, 2));
  assert.match(r.report.problems[0].message, message);
  assert.match(r.text, /^Problem: .*\n {2}Fix: \S/m);
  assert.ok(r.text.includes(r.report.problems[0].fix), r.text);
}

test('a healthy world: ok, exit 0, with the folder Claude Code loads, the hooks and the last session start', () => {
  const w = world();
  hooks(w);
  const saved = save(w, 'healthy');
  sessionStart(w, 'fork');
  const r = doctor(w);
  assert.equal(r.code, 0, r.text);
  assert.equal(r.report.ok, true);
  assert.deepEqual(r.report.problems, []);
  assert.equal(r.report.memory.dir, path.dirname(saved));
  assert.equal(r.report.memory.claudeLoads, path.dirname(saved));
  assert.equal(r.report.memory.autoMemory, 'on');
  assert.deepEqual(r.report.hooks.missing, []);
  assert.deepEqual(r.report.hooks.sources.map((s) => [s.kind, s.sessionStart, s.events]), [['settings', ['startup', 'resume', 'clear', 'compact', 'fork'], ['PreCompact']]]);
  assert.equal(r.report.lastSessionStart?.source, 'fork');
  assert.equal(r.report.lastSessionStart?.told, true);
  assert.ok(Date.now() - Date.parse(r.report.lastSessionStart?.at ?? '') < 60_000);
  assert.deepEqual(r.report.index, { file: path.join(path.dirname(saved), 'MEMORY.md'), exists: true, firstLineLeftOut: null, checkpointsLeftOut: [] });
  assert.deepEqual(r.report.pending, ['healthy']);
  assert.match(r.text, /^ok: the next Claude Code session in this folder gets the checkpoint "healthy"\.$/m);
  assert.match(r.text, /^Pending: "healthy"$/m);
  assert.match(r.text, /^Last session start answered: \S+ \(fork, told about a checkpoint\)$/m);
});

test('the plugin not installed and no hooks in any settings file: "no-hooks", with how to install it', () => {
  const w = world();
  save(w, 'unheard');
  const r = doctor(w);
  assertFirstProblem(r, 'no-hooks', /not enabled/);
  assert.match(r.report.problems[0].fix, /claude plugin install checkpoint@checkpoint/);
  assert.deepEqual(r.report.hooks.sources, []);
});

test('the plugin enabled and installed: its hooks count; enabled but not installed: a note, and "no-hooks"', () => {
  const w = world();
  hooks(w);
  writeFileSync(path.join(w.home, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'checkpoint@checkpoint': true } }));
  const plugin = path.join(w.home, 'plugin-copy');
  mkdirSync(path.join(plugin, 'hooks'), { recursive: true });
  // Installed: its hooks count (here with the matcher of an older version: fork is missing).
  mkdirSync(path.join(w.home, '.claude', 'plugins'), { recursive: true });
  writeFileSync(
    path.join(plugin, 'hooks', 'hooks.json'),
    JSON.stringify({ hooks: { SessionStart: [{ matcher: 'startup|resume|clear|compact', hooks: [{ type: 'command', command: 'sh "${CLAUDE_PLUGIN_ROOT}/bin/checkpoint" hook session-start' }] }] } }),
  );
  writeFileSync(path.join(w.home, '.claude', 'plugins', 'installed_plugins.json'), JSON.stringify({ version: 2, plugins: { 'checkpoint@checkpoint': [{ scope: 'user', installPath: plugin }] } }));
  const r = doctor(w);
  assert.equal(r.code, 0, r.text);
  assert.deepEqual(r.report.hooks.sources.map((s) => [s.where, s.sessionStart]), [
    ['plugin checkpoint@checkpoint', ['startup', 'resume', 'clear', 'compact']],
    [path.join(w.repo, '.claude', 'settings.json'), ['startup', 'resume', 'clear', 'compact', 'fork']],
  ]);
  // Another marketplace's plugin named checkpoint is not this one: its hooks do not count.
  writeFileSync(path.join(w.home, '.claude', 'plugins', 'installed_plugins.json'), JSON.stringify({ version: 2, plugins: { 'checkpoint@elsewhere': [{ scope: 'user', installPath: plugin }] } }));
  assert.deepEqual(doctor(w).report.hooks.sources.map((s) => s.where), [path.join(w.repo, '.claude', 'settings.json')]);
  writeFileSync(path.join(w.home, '.claude', 'plugins', 'installed_plugins.json'), JSON.stringify({ version: 2, plugins: {} }));
  writeFileSync(path.join(w.repo, '.claude', 'settings.json'), '{}');
  const gone = doctor(w);
  assertFirstProblem(gone, 'no-hooks', /not enabled/);
  assert.ok(gone.report.notes.some((n) => /enabled in .*settings\.json, but Claude Code lists no installed copy/.test(n)), gone.report.notes.join('\n'));
});

test('hooks of an older version (no fork): "missing-sources" names fork', () => {
  const w = world();
  hooks(w, 'startup|resume|clear|compact');
  save(w, 'forked');
  const r = doctor(w);
  assertFirstProblem(r, 'missing-sources', /does not run for fork/);
  assert.deepEqual(r.report.hooks.missing, ['fork']);
  // A match-all matcher, or a pattern of the five, is complete.
  for (const matcher of ['*', '.*', '', '^(startup|resume|clear|compact|fork)$']) {
    hooks(w, matcher);
    assert.deepEqual(doctor(w).report.hooks.missing, [], matcher);
  }
});

test('a relative autoMemoryDirectory: "ignored-auto-memory-directory", with the absolute path to write', () => {
  const w = world();
  hooks(w);
  const settings = path.join(w.repo, '.claude', 'settings.json');
  writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, 'utf8')), autoMemoryDirectory: 'notes/memory' }));
  const saved = save(w, 'relative');
  const r = doctor(w);
  assertFirstProblem(r, 'ignored-auto-memory-directory', /"notes\/memory" in .*settings\.json is ignored/);
  assert.ok(r.report.problems[0].fix.includes(JSON.stringify(path.join(w.repo, 'notes', 'memory'))), r.report.problems[0].fix);
  assert.deepEqual(r.report.memory.ignoredAutoMemoryDirectory, { value: 'notes/memory', settingsFile: settings });
  assert.equal(r.report.memory.claudeLoads, path.dirname(saved), 'checkpoints still go where the client reads');
});

test('auto memory off (settings or environment): "auto-memory-off", with how to turn it on', () => {
  const w = world();
  hooks(w);
  save(w, 'unloaded');
  writeFileSync(path.join(w.home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryEnabled: false }));
  const r = doctor(w);
  assertFirstProblem(r, 'auto-memory-off', /autoMemoryEnabled is false/);
  assert.match(r.report.problems[0].fix, /"autoMemoryEnabled": true/);
  assert.equal(r.report.memory.claudeLoads, null);
  writeFileSync(path.join(w.home, '.claude', 'settings.json'), '{}');
  const env = doctor({ ...w, env: { ...w.env, CLAUDE_CODE_DISABLE_AUTO_MEMORY: '1' } });
  assertFirstProblem(env, 'auto-memory-off', /CLAUDE_CODE_DISABLE_AUTO_MEMORY/);
  assert.match(env.report.problems[0].fix, /Unset CLAUDE_CODE_DISABLE_AUTO_MEMORY/);
});

test('MEMORY.md past what Claude Code loads: "past-budget" names the checkpoints past it', () => {
  const w = world();
  hooks(w);
  const saved = save(w, 'buried');
  const index = path.join(path.dirname(saved), 'MEMORY.md');
  const notes = Array.from({ length: 210 }, (_, i) => `- note ${i + 1}`);
  writeFileSync(index, ['# Project Memory', ...notes, '', readFileSync(index, 'utf8').split('\n').slice(2).join('\n')].join('\n'));
  const r = doctor(w);
  assertFirstProblem(r, 'past-budget', /"buried"/);
  assert.deepEqual(r.report.index?.checkpointsLeftOut, ['buried']);
  assert.equal(r.report.index?.firstLineLeftOut, 201);
  assert.match(r.text, /^MEMORY\.md: loaded up to line 200; past it: "buried"$/m);
});

test('a long repository path before the fix (checkpoints in <folder>/.claude/memory): "left-behind", with where to move them', () => {
  const root = realpathSync(temp());
  let dir = path.join(root, 'long');
  while (dir.length < 230) dir = path.join(dir, 'a-deep-folder');
  const w = world({ repo: dir });
  hooks(w);
  // What an earlier version wrote: the workspace fallback, which the client never loads.
  const old = path.join(w.repo, '.claude', 'memory');
  mkdirSync(old, { recursive: true });
  writeFileSync(path.join(old, 'checkpoint-before.md'), '# Checkpoint: before\n\n## Left Off\nSaved by an earlier version\n');
  const r = doctor(w);
  assertFirstProblem(r, 'left-behind', /checkpoint-before\.md/);
  assert.ok(r.report.problems[0].fix.includes(path.basename(path.dirname(r.report.memory.dir))), r.report.problems[0].fix);
  assert.match(path.basename(path.dirname(r.report.memory.dir)), /^.{200}-[0-9a-z]+$/, 'Claude Code\'s folder named with the hash');
  assert.equal(r.report.memory.claudeLoads, r.report.memory.dir);
});

test('a memory folder set elsewhere (CHECKPOINT_MEMORY_DIR): "elsewhere", with what to unset', () => {
  const w = world();
  hooks(w);
  const r = doctor({ ...w, env: { ...w.env, CHECKPOINT_MEMORY_DIR: path.join(w.home, 'elsewhere') } });
  assertFirstProblem(r, 'elsewhere', /CHECKPOINT_MEMORY_DIR is set/);
  assert.match(r.report.problems[0].fix, /^Unset CHECKPOINT_MEMORY_DIR/);
});

test('Claude Code never run (no ~/.claude): "no-claude"', () => {
  const w = world();
  const r = doctor({ ...w, env: { ...w.env, CLAUDE_CONFIG_DIR: path.join(w.home, 'not-there') } });
  assertFirstProblem(r, 'no-claude', /does not exist/);
  assert.equal(r.report.claudeCode.configDirExists, false);
  assert.ok(!existsSync(path.join(w.repo, '.claude')), 'doctor writes nothing');
});
