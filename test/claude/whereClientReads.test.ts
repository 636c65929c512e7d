// Where the real Claude Code client reads its auto memory, against where the CLI writes: a relative
// autoMemoryDirectory (ignored by the client, which loads its default folder), the precedence of the settings scopes,
// and a repository path long enough that the client names its project folder with a hash.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { DoctorReport } from '../../src/core/doctor';
import { writeLaunchers } from '../../src/core/launcher';
import { claudeCode, runClaude, type ClaudeSession } from '../support/claudeCode';
import { CLI, makeRepo, runCli, tempDirs } from '../support/fixtures';

/** Temp folders by their real path (the client and git report real paths), removed after the tests. */
const temp = tempDirs();

function makeHome(): string {
  const home = temp('checkpoint-claude-home-');
  mkdirSync(path.join(home, '.claude'));
  return home;
}

const cliEnv = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' });

async function save(cwd: string, home: string, name: string, leftOff: string): Promise<string> {
  const r = await runCli(['save', name, '--left-off', leftOff, '--json'], { cwd, env: cliEnv(home) });
  assert.equal(r.code, 0, `checkpoint save ${name} failed: ${r.err}`);
  return (JSON.parse(r.out) as { path: string }).path;
}

/** The one MEMORY.md the client loaded holds the checkpoint, and it is the one in the folder the CLI saved to. */
function assertLoads(s: ClaudeSession, savedPath: string, name: string): void {
  const loaded = s.memory.map((m) => m.path);
  assert.deepEqual(loaded, [path.join(path.dirname(savedPath), 'MEMORY.md')], `Claude Code loaded ${loaded.join(', ') || 'no MEMORY.md'}; the checkpoint was saved to ${savedPath}`);
  assert.match(s.memory[0].content, new RegExp(`^- \\*\\*${name}\\*\\* `, 'm'));
}

describe('The CLI writes where Claude Code reads', () => {
  test('a relative autoMemoryDirectory in the project\'s settings: ignored by both; `checkpoint dir --json` says so', async () => {
    const home = makeHome();
    const project = makeRepo({ dir: path.join(temp('checkpoint-claude-repo-'), 'project') });
    mkdirSync(path.join(project, '.claude'));
    const settings = path.join(project, '.claude', 'settings.json');
    writeFileSync(settings, JSON.stringify({ autoMemoryDirectory: 'notes/memory' }, null, 2));
    const saved = await save(project, home, 'relative-dir', 'Saved where Claude Code reads');
    const s = await runClaude({ cwd: project, home });
    assertLoads(s, saved, 'relative-dir');
    const dir = await runCli(['dir', '--json'], { cwd: project, env: cliEnv(home) });
    assert.equal(dir.code, 0, dir.err);
    const out = JSON.parse(dir.out) as { dir: string; claudeLoads: boolean; claude: { ignoredAutoMemoryDirectory: unknown } };
    assert.equal(out.dir, path.dirname(saved));
    assert.equal(out.claudeLoads, true);
    assert.deepEqual(out.claude.ignoredAutoMemoryDirectory, { value: 'notes/memory', settingsFile: settings });
    const human = await runCli(['dir'], { cwd: project, env: cliEnv(home) });
    assert.match(human.err, /autoMemoryDirectory "notes\/memory" in .*settings\.json is ignored/);
  });

  test('a relative value in settings.local.json wins over the user\'s absolute one, and the client then loads its default folder', async () => {
    const home = makeHome();
    writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: '~/agent-memory' }));
    const project = makeRepo({ dir: path.join(temp('checkpoint-claude-repo-'), 'project') });
    mkdirSync(path.join(project, '.claude'));
    writeFileSync(path.join(project, '.claude', 'settings.local.json'), JSON.stringify({ autoMemoryDirectory: 'notes/memory' }));
    const saved = await save(project, home, 'local-relative', 'Neither the user folder nor notes/memory');
    assert.ok(saved.startsWith(path.join(home, '.claude', 'projects') + path.sep), saved);
    const s = await runClaude({ cwd: project, home });
    assertLoads(s, saved, 'local-relative');
  });

  test('an absolute autoMemoryDirectory in the project\'s settings is read', async () => {
    const home = makeHome();
    const project = makeRepo({ dir: path.join(temp('checkpoint-claude-repo-'), 'project') });
    const memory = path.join(temp('checkpoint-claude-mem-'), 'memory');
    mkdirSync(path.join(project, '.claude'));
    writeFileSync(path.join(project, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: memory }));
    const saved = await save(project, home, 'project-absolute', 'In the folder the project names');
    assert.equal(path.dirname(saved), memory);
    assertLoads(await runClaude({ cwd: project, home }), saved, 'project-absolute');
  });

  test('a repository path whose slug passes 200 characters, with a non-ASCII letter: the folder the client makes', async () => {
    const home = makeHome();
    let dir = path.join(temp('checkpoint-claude-long-'), 'café-project');
    while (dir.length < 240) dir = path.join(dir, 'a-rather-deep-folder');
    const project = makeRepo({ dir });
    const saved = await save(project, home, 'long-path', 'Saved where the client reads a long path');
    const s = await runClaude({ cwd: project, home });
    // The client names its project folder (where its transcript goes) and loads MEMORY.md from there: the folder the
    // save made is the only one, and it holds the session's transcript.
    const projects = path.join(home, '.claude', 'projects');
    assert.deepEqual(readdirSync(projects).map((p) => path.join(projects, p)), [path.dirname(path.dirname(saved))], 'the project folder the client made');
    assert.ok(readdirSync(path.dirname(path.dirname(saved))).some((f) => f.endsWith('.jsonl')), 'the transcript is there');
    assertLoads(s, saved, 'long-path');
  });

  test('front matter and an HTML comment in MEMORY.md take none of the 200 lines: a bullet at line 206 of the file is loaded, and save does not warn', async () => {
    const home = makeHome();
    const project = makeRepo({ dir: path.join(temp('checkpoint-claude-repo-'), 'project') });
    const dir = (await runCli(['dir'], { cwd: project, env: cliEnv(home) })).out.trim();
    mkdirSync(dir, { recursive: true });
    // "first" is a real checkpoint: the index keeps its bullet.
    assert.equal((await runCli(['save', 'first', '--left-off', 'The first one'], { cwd: project, env: cliEnv(home) })).code, 0);
    const first = readFileSync(path.join(dir, 'MEMORY.md'), 'utf8').split('\n').find((l) => l.startsWith('- **first**'));
    assert.ok(first);
    const notes = Array.from({ length: 193 }, (_, i) => `- note ${i + 1}`);
    const head = ['---', 'name: project-memory', 'description: what this project remembers', '---', '# Project Memory', '<!-- Kept by hand.', 'Checkpoints are indexed below.', '-->', ''];
    const tail = ['', '## Active Checkpoints', first, '', 'Resume any: `continue` or `continue {name}`'];
    writeFileSync(path.join(dir, 'MEMORY.md'), [...head, ...notes, ...tail].join('\n') + '\n');
    const r = await runCli(['save', 'deep-bullet', '--left-off', 'Past line 200 of the file, within what is loaded'], { cwd: project, env: cliEnv(home) });
    assert.equal(r.code, 0, r.err);
    const lines = readFileSync(path.join(dir, 'MEMORY.md'), 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('- **deep-bullet**'));
    assert.ok(at + 1 > 200, `the bullet is at line ${at + 1} of the file`);
    const s = await runClaude({ cwd: project, home });
    assert.equal(s.memory.length, 1);
    assert.ok(s.memory[0].content.includes(lines[at]), `Claude Code did not load the bullet at line ${at + 1}:\n${s.memory[0].content.slice(-600)}`);
    assert.doesNotMatch(r.err, /MEMORY\.md/, 'no warning for a bullet the client loads');
  });
});

describe('checkpoint doctor after a session of the real client', () => {
  test('ok: the client\'s version, the session start its hook answered, the folder the client loaded', async () => {
    const home = makeHome();
    const project = makeRepo({ dir: path.join(temp('checkpoint-claude-repo-'), 'project') });
    const saved = await save(project, home, 'doctor-ok', 'Everything in place');
    // The hooks as this version writes them, run through `checkpoint` on PATH.
    const launchers = await writeLaunchers(path.join(temp('checkpoint-claude-bin-'), 'bin'), { execPath: process.execPath, cliPath: CLI });
    mkdirSync(path.join(project, '.claude'));
    const hook = (event: string): unknown => ({ type: 'command', command: `checkpoint hook ${event}`, timeout: 10 });
    writeFileSync(
      path.join(project, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { SessionStart: [{ matcher: 'startup|resume|clear|compact|fork', hooks: [hook('session-start')] }], PreCompact: [{ hooks: [hook('pre-compact')] }] } }),
    );
    const { bin } = await claudeCode();
    const PATH = [launchers.dir, path.dirname(path.resolve(bin)), process.env.PATH ?? ''].join(path.delimiter);
    const s = await runClaude({ cwd: project, home, env: { PATH } });
    assertLoads(s, saved, 'doctor-ok');
    const r = await runCli(['doctor', '--json'], { cwd: project, env: { ...cliEnv(home), PATH } });
    const report = JSON.parse(r.out) as DoctorReport;
    assert.equal(r.code, 0, JSON.stringify(report.problems, null, 2));
    assert.match(report.claudeCode.version ?? '', /^\d+\.\d+\.\d+ \(Claude Code\)$/);
    assert.equal(report.memory.claudeLoads, path.dirname(s.memory[0].path));
    assert.equal(report.lastSessionStart?.source, 'startup');
    assert.equal(report.lastSessionStart?.told, true);
  });
});
