// The agent is a second writer of the memory folder: bullets it writes by hand, names as people type them, where a
// new section goes. Each case is one the product got wrong while it took itself for the only writer.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, isolatedEnv, makeRepo, runCliInProcess, runCliSync, tempDirs, type ProcessResult } from '../support/fixtures';

const temp = tempDirs();

function world(): { repo: string; mem: string; home: string; cli: (...args: string[]) => Promise<ProcessResult> } {
  const home = temp('checkpoint-home-');
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(home, 'mem');
  mkdirSync(mem);
  const env = isolatedEnv(home);
  // The CLI's commands run in this process; the hooks (stdin, time limits) run as processes below.
  return { repo, mem, home, cli: (...args) => runCliInProcess([...args, '--dir', mem], { cwd: repo, env }) };
}

/** A checkpoint as an agent following the seed writes it: no front matter, the file named by the seed's rule. */
function agentCheckpoint(mem: string, fileName: string, leftOff: string): void {
  writeFileSync(path.join(mem, fileName), `# Checkpoint: ${fileName}\n\n- **Branch:** \`main\`\n- **Saved:** 2025-11-05 10:00\n\n## Left Off\n${leftOff}\n`);
}

const index = (mem: string): string => readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');

test('bullets an agent wrote in its own shapes go with their checkpoint: ISO date, Nov 05, en dash, --, no parentheses', async () => {
  const w = world();
  const shapes: Record<string, string> = {
    iso: '- **iso** (main, 2025-11-05) — iso left',
    endash: '- **endash** (main, Nov 05) – endash left',
    dashes: '- **dashes** (main, Nov 5) -- dashes left',
    noparen: '- **noparen** — noparen left',
  };
  for (const name of Object.keys(shapes)) agentCheckpoint(w.mem, `checkpoint-${name}.md`, `${name} left`);
  const doc = `# Project Memory\n\n## Active Checkpoints\n${Object.values(shapes).join('\n')}\n\nResume any: \`continue\` or \`continue {name}\`\n\n## Notes\nmine\n`;
  writeFileSync(path.join(w.mem, 'MEMORY.md'), doc);
  for (const name of ['iso', 'endash', 'dashes']) {
    const r = await w.cli('resume', name);
    assert.equal(r.code, 0, r.err);
    assert.ok(!index(w.mem).includes(`**${name}**`), `resume ${name} took its bullet out of the file Claude Code loads`);
  }
  assert.equal((await w.cli('delete', 'noparen')).code, 0);
  assert.equal(index(w.mem), '# Project Memory\n\n## Notes\nmine\n', 'no bullet left: the section went, nothing else');
});

test('a stale bullet of any shape whose file is gone: resume cleans it up and says so', async () => {
  const w = world();
  writeFileSync(path.join(w.mem, 'MEMORY.md'), '# M\n\n## Active Checkpoints\n- **iso** (main, 2025-11-05) — iso left\n- **kept** — mine\n\nResume any: `continue` or `continue {name}`\n');
  const r = await w.cli('resume', 'iso');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /cleaned up stale entry "iso"/);
  assert.ok(!index(w.mem).includes('**iso**'));
  assert.ok(index(w.mem).includes('- **kept** — mine'), 'the other bullet stays');
});

test('names as people type them: one lookup for show, resume, delete and save (an agent\'s file-name rule, case, spaces, Unicode form)', async () => {
  const w = world();
  agentCheckpoint(w.mem, 'checkpoint-fix:-login.md', 'colon left');
  agentCheckpoint(w.mem, 'checkpoint-My Feature.md', 'space left');
  agentCheckpoint(w.mem, 'checkpoint-café-menu.md', 'menu left');
  const shows: [string, string][] = [
    ['fix: login', 'colon left'],
    ['my feature', 'space left'],
    ['Café Menu', 'menu left'],
    ['Cafe\u0301 Menu', 'menu left'],
  ];
  for (const [typed, leftOff] of shows) {
    const r = await w.cli('show', typed, '--json');
    assert.equal(r.code, 0, `show ${typed}: ${r.err}`);
    assert.equal(JSON.parse(r.out).leftOff, leftOff, typed);
  }
  // Saving a name that resolves to an existing checkpoint asks to overwrite instead of writing a second one.
  const again = await w.cli('save', 'fix: login', '--left-off', 'second try');
  assert.equal(again.code, 1);
  assert.match(again.err, /already exists/);
  assert.ok(!existsSync(path.join(w.mem, 'checkpoint-fix-login.md')), 'no second checkpoint fix-login');
  const forced = await w.cli('save', 'fix: login', '--left-off', 'second try', '--force', '--json');
  assert.equal(forced.code, 0, forced.err);
  assert.equal(JSON.parse(forced.out).path, path.join(w.mem, 'checkpoint-fix:-login.md'));
  assert.deepEqual(readdirSync(w.mem).filter((f) => f.startsWith('checkpoint-')).sort(), ['checkpoint-My Feature.md', 'checkpoint-café-menu.md', 'checkpoint-fix:-login.md']);
  assert.equal(index(w.mem).split('\n').filter((l) => l.startsWith('- **fix')).length, 1, 'the index lists it once');
  // Every name save accepts is found again in the same spelling.
  assert.equal((await w.cli('save', 'feature/OAuth Flow', '--left-off', 'oauth')).code, 0);
  const show = await w.cli('show', 'feature/OAuth Flow', '--json');
  assert.equal(show.code, 0, show.err);
  assert.equal(JSON.parse(show.out).name, 'feature-oauth-flow');
  assert.equal((await w.cli('resume', 'Feature/OAuth Flow', '--keep')).code, 0);
  // Two checkpoints that match loosely: an error naming both, nothing chosen for the person.
  agentCheckpoint(w.mem, 'checkpoint-My-Feature.md', 'dash left');
  const both = await w.cli('show', 'my feature');
  assert.equal(both.code, 1);
  assert.match(both.err, /"My Feature".*"My-Feature"|"My-Feature".*"My Feature"/);
  assert.equal((await w.cli('delete', 'my  FEATURE')).code, 1, 'an ambiguous name deletes nothing');
  assert.ok(existsSync(path.join(w.mem, 'checkpoint-My Feature.md')) && existsSync(path.join(w.mem, 'checkpoint-My-Feature.md')));
  // A lookup never leaves the memory folder.
  assert.equal((await w.cli('show', '../mem/checkpoint-fix:-login')).code, 1);
});

test('a new section goes after the first level-one heading, between blank lines; never under a "## Setup"', async () => {
  const w = world();
  writeFileSync(path.join(w.mem, 'MEMORY.md'), '# Title\nIntro paragraph line.\n');
  assert.equal((await w.cli('save', 'first', '--left-off', 'x')).code, 0);
  assert.match(index(w.mem), /^# Title\n\n## Active Checkpoints\n- \*\*first\*\* .*\n\nResume any: .*\n\nIntro paragraph line\.\n$/);
  writeFileSync(path.join(w.mem, 'MEMORY.md'), 'Intro\n## Setup\n- x\n# Real Title\n');
  assert.equal((await w.cli('save', 'second', '--left-off', 'y')).code, 0);
  assert.match(index(w.mem), /^Intro\n## Setup\n- x\n# Real Title\n\n## Active Checkpoints\n- \*\*(second|first)\*\* [^]*\nResume any: .*\n$/);
  // No level-one heading: the section goes first, followed by a blank line.
  writeFileSync(path.join(w.mem, 'MEMORY.md'), '## Setup\n- x\n');
  assert.equal((await w.cli('save', 'third', '--left-off', 'z')).code, 0);
  assert.match(index(w.mem), /^## Active Checkpoints\n(?:- .*\n)+\nResume any: .*\n\n## Setup\n- x\n$/);
  assert.match(index(w.mem), /^- \*\*third\*\* /m);
});

/** Runs `checkpoint hook <event>` with `input` as its stdin JSON; returns SessionStart's context ('' when none). */
function hook(event: string, input: object, opts: { cwd: string; env: NodeJS.ProcessEnv; dir?: string }): { code: number | null; context: string; err: string } {
  const args = [CLI, 'hook', event, ...(opts.dir ? ['--dir', opts.dir] : [])];
  const r = spawnSync(process.execPath, args, { cwd: opts.cwd, env: opts.env, input: JSON.stringify(input), encoding: 'utf8', timeout: 60_000 });
  const context = r.stdout ? (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext : '';
  return { code: r.status, context, err: r.stderr };
}

const pendingNames = async (w: ReturnType<typeof world>): Promise<string[]> => (JSON.parse((await w.cli('pending', '--json')).out) as { name: string }[]).map((c) => c.name);

test('pending: the voluntary checkpoint before the automatic one of the same day; resuming one never hides another; the hook names the first and lists more', async () => {
  const w = world();
  const env = isolatedEnv(w.home);
  assert.equal((await w.cli('save', 'voluntary', '--left-off', 'saved on purpose')).code, 0);
  assert.equal(hook('pre-compact', { session_id: 's1', cwd: w.repo, hook_event_name: 'PreCompact', trigger: 'auto' }, { cwd: w.repo, env, dir: w.mem }).code, 0);
  const names = await pendingNames(w);
  assert.equal(names.length, 2);
  assert.equal(names[0], 'voluntary', 'the voluntary checkpoint wins over the automatic one saved after it');
  assert.match(names[1], /^auto-/);
  assert.equal((await w.cli('save', 'first', '--left-off', 'one')).code, 0);
  assert.equal((await w.cli('save', 'second', '--left-off', 'two')).code, 0);
  assert.equal((await w.cli('resume', 'second', '--keep')).code, 0);
  assert.ok((await pendingNames(w)).includes('first'), 'first was never resumed: still pending');
  assert.ok(!(await pendingNames(w)).includes('second'), 'second was resumed');
  const started = hook('session-start', { session_id: 's2', cwd: w.repo, hook_event_name: 'SessionStart', source: 'startup' }, { cwd: w.repo, env, dir: w.mem });
  const lines = started.context.split('\n');
  assert.match(lines[0], /^Pending checkpoint of earlier work in this project: "(first|voluntary)"/);
  const also = lines.find((l) => l.startsWith('Also pending: ')) ?? '';
  assert.equal(also.match(/"[^"]+" \(saved/g)?.length, 2, `up to two more are listed: ${also}`);
  assert.ok(started.context.length < 10_000);
  assert.doesNotMatch(started.context, /\b(?:run|do not|ask the user)\b/i, 'facts, not instructions');
});

test('a checkpoint dated in the future (another machine\'s clock) is never offered ahead of the person\'s own as "just now"', async () => {
  const w = world();
  writeFileSync(
    path.join(w.mem, 'checkpoint-pulled.md'),
    '---\nname: pulled\ndescription: from elsewhere\ntype: checkpoint\nbranch: main\nsaved: 2099-01-01T00:00:00.000Z\n---\n# Checkpoint: pulled\n## Left Off\nfrom elsewhere\n',
  );
  assert.equal((await w.cli('save', 'mine', '--left-off', 'my own')).code, 0);
  assert.deepEqual(await pendingNames(w), ['mine', 'pulled']);
  assert.equal((await w.cli('resume', 'mine')).code, 0);
  const started = hook('session-start', { session_id: 's', cwd: w.repo, source: 'startup' }, { cwd: w.repo, env: isolatedEnv(w.home), dir: w.mem });
  assert.match(started.context, /"pulled", saved with a date in the future/);
  assert.doesNotMatch(started.context, /just now/);
});

test('bidirectional overrides in a checkpoint never reach the session-start text', async () => {
  const w = world();
  assert.equal((await w.cli('save', 'bidi', '--left-off', 'harmless \u202eelif.exe\u202c \u2066isolated\u2069 text')).code, 0);
  const started = hook('session-start', { session_id: 's', cwd: w.repo, source: 'startup' }, { cwd: w.repo, env: isolatedEnv(w.home), dir: w.mem });
  assert.match(started.context, /harmless/);
  assert.doesNotMatch(started.context, /[\u202a-\u202e\u2066-\u2069]/);
});

test('one memory folder for every entry point: the project\'s autoMemoryDirectory is where save writes and where the hooks and MCP read', async () => {
  const w = world();
  mkdirSync(path.join(w.home, '.claude'), { recursive: true });
  mkdirSync(path.join(w.repo, '.claude'), { recursive: true });
  writeFileSync(path.join(w.repo, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: path.join(w.repo, '.agent-memory') }));
  const env = isolatedEnv(w.home);
  const saved = runCliSync(['save', 'here', '--left-off', 'in the project folder', '--json'], { cwd: w.repo, env });
  assert.equal(saved.code, 0, saved.err);
  assert.equal(path.dirname(JSON.parse(saved.out).path), path.join(w.repo, '.agent-memory'));
  const started = hook('session-start', { session_id: 's', cwd: w.repo, source: 'startup' }, { cwd: w.repo, env });
  assert.match(started.context, /"here"/, 'the hook reads the folder save wrote');
  // VS Code's agent hooks: camelCase input, source "new".
  const vscode = hook('session-start', { sessionId: 's', cwd: w.repo, hookEventName: 'SessionStart', source: 'new' }, { cwd: w.repo, env });
  assert.match(vscode.context, /"here"/);
  const compacted = hook('pre-compact', { sessionId: 'camel-session', cwd: w.repo, hookEventName: 'PreCompact', transcriptPath: '/nonexistent' }, { cwd: w.repo, env });
  assert.equal(compacted.code, 0, compacted.err);
  const auto = readdirSync(path.join(w.repo, '.agent-memory')).find((f) => f.startsWith('checkpoint-auto-'));
  assert.ok(auto, 'pre-compact saved into the same folder');
  assert.match(readFileSync(path.join(w.repo, '.agent-memory', auto), 'utf8'), /^session: camel-session$/m, 'the camelCase session id is read');
});

test('the pre-compact hook that creates <workspace>/.claude/memory makes git ignore it', async () => {
  const w = world();
  // No Claude Code config folder: the fallback folder in the workspace.
  const env = isolatedEnv(w.home, { CLAUDE_CONFIG_DIR: path.join(w.home, 'no-claude') });
  const r = hook('pre-compact', { session_id: 's', cwd: w.repo, hook_event_name: 'PreCompact' }, { cwd: w.repo, env });
  assert.equal(r.code, 0, r.err);
  const mem = path.join(w.repo, '.claude', 'memory');
  assert.ok(readdirSync(mem).some((f) => f.startsWith('checkpoint-auto-')));
  assert.equal(readFileSync(path.join(mem, '.gitignore'), 'utf8'), '*\n');
  assert.equal(spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: w.repo, encoding: 'utf8' }).stdout, '', 'git status lists no checkpoint');
});

test('JSON history alone is mentioned at session start with its next action; its blockers are Blockers', async () => {
  const w = world();
  const history = path.join(w.repo, '.claude', 'checkpoints');
  mkdirSync(history, { recursive: true });
  const recent = new Date(Date.now() - 2 * 24 * 3600 * 1000).toISOString();
  writeFileSync(path.join(history, 'old.json'), JSON.stringify({ timestamp: '2020-01-01T00:00:00Z', summary: 'ancient', next_action: 'nothing', context: {} }));
  writeFileSync(path.join(history, 'recent.json'), JSON.stringify({ timestamp: recent, summary: 'Parser half done', next_action: 'Write the lexer tests', blockers: ['CI image lacks node 20'], context: {} }));
  const started = hook('session-start', { session_id: 's', cwd: w.repo, source: 'startup' }, { cwd: w.repo, env: isolatedEnv(w.home), dir: w.mem });
  assert.match(started.context, /recent\.json/);
  assert.match(started.context, /Its next action: Write the lexer tests/);
  assert.doesNotMatch(started.context, /ancient/);
  const shown = await w.cli('show', 'recent');
  assert.equal(shown.code, 0, shown.err);
  assert.match(shown.out, /Blockers:\n- CI image lacks node 20/);
  assert.doesNotMatch(shown.out, /Open questions/i);
  // A Markdown checkpoint pending wins over the history.
  assert.equal((await w.cli('save', 'md', '--left-off', 'x')).code, 0);
  assert.match(hook('session-start', { session_id: 's', cwd: w.repo }, { cwd: w.repo, env: isolatedEnv(w.home), dir: w.mem }).context, /^Pending checkpoint .*"md"/);
});

test('save without a name uses the name the Save form would suggest (the branch) and prints it', async () => {
  const w = world();
  spawnSync('git', ['checkout', '-q', '-b', 'feature/OAuth'], { cwd: w.repo });
  const r = await w.cli('save', '--left-off', 'no name given', '--json');
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).name, 'feature-oauth');
  assert.match(r.err, /No name given: saving as "feature-oauth"/);
});
