// The real Claude Code client is the judge: a checkpoint saved with the CLI must be in the MEMORY.md that Claude
// Code loads into a new session, wherever the user works (a repository, a subfolder, a linked worktree, a custom
// memory folder, a custom config folder). Runs `claude -p continue` against a scripted model and reads its first
// request (test/support/claudeCode.ts).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeTargets, connectClaude, hookProgram } from '../../src/core/claudeSettings';
import { formatLocalDateTime } from '../../src/core/dates';
import { shellQuote } from '../../src/core/escaping';
import { writeLaunchers } from '../../src/core/launcher';
import { runClaude, type ClaudeSession } from '../support/claudeCode';
import { CLI, git, makeRepo, runCli, tempDirs } from '../support/fixtures';

/** Temp folders by their real path (the client and git report real paths), removed after the tests. */
const temp = tempDirs();

/** A private HOME with a `.claude` folder (Claude Code set up) unless `claude: false`. */
function makeHome(opts: { claude?: boolean } = {}): string {
  const home = temp('checkpoint-claude-home-');
  if (opts.claude ?? true) mkdirSync(path.join(home, '.claude'));
  return home;
}

function repo(): string {
  const dir = makeRepo({ dir: path.join(temp('checkpoint-claude-repo-'), 'project') });
  return dir;
}

function cliEnv(home: string, configDir?: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8', ...(configDir ? { CLAUDE_CONFIG_DIR: configDir } : {}) };
}

interface Saved {
  path: string;
  branch: string;
  /** What the CLI printed on stderr (warnings). */
  err: string;
}

/** `checkpoint save <name> --left-off <leftOff>` in `cwd`, as a user or an agent runs it. */
async function save(cwd: string, env: NodeJS.ProcessEnv, name: string, leftOff: string): Promise<Saved> {
  const r = await runCli(['save', name, '--left-off', leftOff, '--json'], { cwd, env });
  assert.equal(r.code, 0, `checkpoint save ${name} failed: ${r.err}`);
  const out = JSON.parse(r.out) as { path: string; branch: string };
  return { path: out.path, branch: out.branch, err: r.err };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The index bullet of a checkpoint: `- **name** (branch, Mon DD) — left off`. */
function bulletRe(name: string, branch: string, leftOff: string): RegExp {
  return new RegExp(`^- \\*\\*${escape(name)}\\*\\* \\(${escape(branch)}, [A-Z][a-z]{2} \\d{1,2}\\) — ${escape(leftOff)}$`, 'm');
}

function describeSession(s: ClaudeSession): string {
  const files = s.instructions.map((f) => `${f.kind} ${f.path}`).join(', ') || 'none';
  return `instruction files Claude Code loaded: ${files}; memory folder in its system prompt: ${s.memoryDir ?? 'none'}`;
}

/**
 * The checkpoint is in the one MEMORY.md Claude Code loaded, and its file is in the memory folder the agent is
 * told about (where the session-checkpoint skill looks for `checkpoint-<name>.md`).
 */
function assertLoaded(s: ClaudeSession, saved: Saved, name: string, leftOff: string): string {
  assert.equal(s.memory.length, 1, `Claude Code loaded no auto-memory MEMORY.md (${describeSession(s)}); the checkpoint was saved to ${saved.path}`);
  const [mem] = s.memory;
  assert.match(mem.content, bulletRe(name, saved.branch, leftOff), `the MEMORY.md Claude Code loaded (${mem.path}) has no bullet for ${name}:\n${mem.content}`);
  assert.ok(s.memoryDir, `Claude Code's system prompt names no memory folder (${describeSession(s)})`);
  assert.equal(path.join(s.memoryDir, 'MEMORY.md'), mem.path);
  assert.ok(existsSync(path.join(s.memoryDir, `checkpoint-${name}.md`)), `checkpoint-${name}.md is not in ${s.memoryDir}, the memory folder Claude Code names; it was saved to ${saved.path}`);
  assert.doesNotMatch(saved.err, /MEMORY\.md/, 'no budget warning for a short MEMORY.md');
  return mem.content;
}

/**
 * Saves `name` with the CLI in `cwd`, then starts Claude Code there: the checkpoint must be in what it loaded (see
 * {@link assertLoaded}). Returns the save, the session, and the MEMORY.md text Claude Code loaded.
 */
async function saveAndLoad(cwd: string, home: string, name: string, leftOff: string, configDir?: string): Promise<{ saved: Saved; s: ClaudeSession; content: string }> {
  const saved = await save(cwd, cliEnv(home, configDir), name, leftOff);
  const s = await runClaude({ cwd, home, configDir });
  return { saved, s, content: assertLoaded(s, saved, name, leftOff) };
}

describe('Claude Code loads the checkpoint the CLI saved', () => {
  test('in a repository', async () => {
    const home = makeHome();
    const project = repo();
    await saveAndLoad(project, home, 'fix-login', 'Token refresh still failing');
  });

  test('in a subfolder of a repository (the repository shares one memory folder)', async () => {
    const home = makeHome();
    const project = repo();
    const sub = path.join(project, 'packages', 'api');
    mkdirSync(sub, { recursive: true });
    await saveAndLoad(sub, home, 'api-routes', 'Routes wired; auth middleware next');
  });

  test('in a linked git worktree (Claude Code loads the main worktree\'s memory)', async () => {
    const home = makeHome();
    const project = repo();
    const worktree = path.join(path.dirname(project), 'project-login');
    git(project, 'worktree', 'add', '-q', '-b', 'feature/login', worktree);
    const { saved } = await saveAndLoad(worktree, home, 'login-form', 'Form validates; submit handler next');
    assert.equal(saved.branch, 'feature/login');
  });

  test('with autoMemoryDirectory in ~/.claude/settings.json', async () => {
    const home = makeHome();
    writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: '~/agent-memory' }, null, 2));
    const project = repo();
    const { s } = await saveAndLoad(project, home, 'custom-memory', 'Saved where the user keeps agent memory');
    assert.equal(s.memoryDir?.replace(/\/$/, ''), path.join(home, 'agent-memory'));
  });

  test('with CLAUDE_CONFIG_DIR (no ~/.claude)', async () => {
    const home = makeHome({ claude: false });
    const configDir = path.join(temp('checkpoint-claude-config-'), 'claude-config');
    mkdirSync(configDir);
    const project = repo();
    const { saved } = await saveAndLoad(project, home, 'config-dir', 'Saved under a custom config folder', configDir);
    assert.ok(saved.path.startsWith(configDir + path.sep), `saved to ${saved.path}, outside ${configDir}`);
  });
});

describe('The index is the section the session-checkpoint skill reads', () => {
  test('Claude Code sees the checkpoint under "## Active Checkpoints", with the resume line', async () => {
    const home = makeHome();
    const project = repo();
    const { saved, content } = await saveAndLoad(project, home, 'oauth-callback', 'Callback wired; refresh failing');
    const lines = content.split('\n');
    const bullet = lines.findIndex((l) => bulletRe('oauth-callback', saved.branch, 'Callback wired; refresh failing').test(l));
    const heading = lines.slice(0, bullet).reverse().find((l) => /^#{1,6} /.test(l));
    assert.equal(heading, '## Active Checkpoints', `the bullet is under ${JSON.stringify(heading)} in what Claude Code loaded:\n${content}`);
    assert.equal(lines.filter((l) => /^#{1,6} .*Checkpoints/.test(l)).length, 1, `one checkpoint section:\n${content}`);
    assert.ok(lines.slice(bullet).includes('Resume any: `continue` or `continue {name}`'), `the resume line follows the bullets:\n${content}`);
  });
});

// Claude Code 2.1.328 loads MEMORY.md trimmed, its first 200 lines, then cut at the last line end within 25,000
// characters, with a note of what it left out. The product warns when a save pushes what the agent should see past that.
describe('A long MEMORY.md: the budget warning names what Claude Code leaves out', () => {
  /** Writes MEMORY.md into the folder the product resolves for `project` (checkpoint dir). */
  async function writeIndex(project: string, env: NodeJS.ProcessEnv, lines: string[]): Promise<string> {
    const r = await runCli(['dir'], { cwd: project, env });
    assert.equal(r.code, 0, r.err);
    const dir = r.out.trim();
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'MEMORY.md'), lines.join('\n') + '\n');
    return dir;
  }
  const RESUME = 'Resume any: `continue` or `continue {name}`';
  const FIRST = '- **first** (main, Nov 20) — Parser rewrite half done; the tokenizer tests pass, the grammar ones do not';
  /** Writes MEMORY.md, saves "second" with the CLI, and returns the save and the MEMORY.md Claude Code loaded. */
  async function saveOver(index: string[]): Promise<{ saved: Saved; loaded: string }> {
    const home = makeHome();
    const project = repo();
    const env = cliEnv(home);
    // "first" is a real checkpoint: the index keeps its bullet (a product-shaped bullet without a file is healed away).
    await save(project, env, 'first', 'Parser rewrite half done');
    await writeIndex(project, env, index);
    const saved = await save(project, env, 'second', 'Grammar tests next');
    const s = await runClaude({ cwd: project, home });
    assert.equal(s.memory.length, 1, describeSession(s));
    const loaded = s.memory[0].content;
    assert.match(loaded, bulletRe('second', saved.branch, 'Grammar tests next'));
    return { saved, loaded };
  }
  const notes = (n: number, width = 12): string[] => Array.from({ length: n }, (_, i) => `- note ${String(i + 1).padStart(3, '0')} ${'x'.repeat(Math.max(0, width - 11))}`);

  test('a checkpoint bullet pushed from line 200 to 201 is the one the warning names and Claude Code does not see', async () => {
    // Lines 1-198 notes, 199 the section heading, 200 the bullet of "first" (the last line Claude Code loads).
    const { saved, loaded } = await saveOver(['# Project Memory', '', ...notes(195), '', '## Checkpoints', FIRST, '', RESUME]);
    assert.doesNotMatch(loaded, /^- \*\*first\*\*/m, 'Claude Code cuts the bullet at line 201');
    assert.match(loaded, /^> WARNING: MEMORY\.md is 203 lines \(limit: 200\)\. .* starting at line 201 \("- \*\*first\*\*/m);
    assert.match(saved.err, /^Warning: .*"first".*MEMORY\.md/m, `the save warns that "first" is past what Claude Code loads; stderr:\n${saved.err}`);
  });

  test('a note of the user pushed past line 200 by a new bullet is warned about', async () => {
    // 200 lines, all loaded: the section at the top, the user's notes below it up to line 200.
    const { saved, loaded } = await saveOver(['# Project Memory', '', '## Checkpoints', FIRST, '', RESUME, '', '## Notes', ...notes(192)]);
    assert.ok(loaded.includes(FIRST), 'both bullets are loaded');
    assert.doesNotMatch(loaded, /^- note 192/m, 'Claude Code cuts the last note, now at line 201');
    assert.match(saved.err, /^Warning: .*MEMORY\.md/m, `the save warns that a line of MEMORY.md is now past what Claude Code loads; stderr:\n${saved.err}`);
  });

  test('a checkpoint bullet pushed past 25,000 characters is the one the warning names and Claude Code does not see', async () => {
    // Under 200 lines; "first" ends 10 characters before the 25,000th, so the new bullet above it pushes it out.
    const head = ['# Project Memory', ''];
    const tail = ['', '## Checkpoints', FIRST];
    const fixed = [...head, ...tail].join('\n').length + 1; // + the newline after the notes
    const width = 199;
    const count = Math.floor((25_000 - 10 - fixed) / (width + 1));
    const filler = notes(count, width);
    const short = 25_000 - 10 - fixed - count * (width + 1); // the last note's length makes the total exact
    filler.push(`- last ${'y'.repeat(Math.max(0, short - 7))}`.slice(0, short));
    const lines = [...head, ...filler, ...tail];
    assert.equal(lines.join('\n').length, 25_000 - 10);
    const { saved, loaded } = await saveOver([...lines, '', RESUME]);
    assert.doesNotMatch(loaded, /^- \*\*first\*\*/m, 'Claude Code cuts the bullet that now ends past 25,000 characters');
    assert.match(saved.err, /^Warning: .*"first".*MEMORY\.md/m, `the save warns that "first" is past what Claude Code loads; stderr:\n${saved.err}`);
  });
});

describe('The agent is a second writer of the memory folder', () => {
  test('a MEMORY.md written by the skill, after resume: the stale bullet is gone from what Claude Code loads', async () => {
    const home = makeHome();
    const project = repo();
    // The memory folder Claude Code uses for the project, as the CLI resolves it.
    const saved = await save(project, cliEnv(home), 'other', 'Kept: never resumed');
    const mem = path.dirname(saved.path);
    for (const name of ['iso', 'noparen']) {
      writeFileSync(path.join(mem, `checkpoint-${name}.md`), `# Checkpoint: ${name}\n\n- **Branch:** \`main\`\n\n## Left Off\n${name} left\n`);
    }
    // Bullets as the skill writes them by hand: an ISO date, and no parentheses at all.
    writeFileSync(
      path.join(mem, 'MEMORY.md'),
      '# Project Memory\n\n## Active Checkpoints\n- **iso** (main, 2025-11-05) — iso left\n- **noparen** — noparen left\n- **other** (main, Nov 05) — Kept: never resumed\n\nResume any: `continue` or `continue {name}`\n',
    );
    for (const name of ['iso', 'noparen']) {
      const r = await runCli(['resume', name], { cwd: project, env: cliEnv(home) });
      assert.equal(r.code, 0, r.err);
    }
    const s = await runClaude({ cwd: project, home });
    assert.equal(s.memory.length, 1, describeSession(s));
    assert.doesNotMatch(s.memory[0].content, /\*\*(iso|noparen)\*\*/, `a resumed checkpoint's bullet is still in what Claude Code loads:\n${s.memory[0].content}`);
    assert.match(s.memory[0].content, /^- \*\*other\*\* /m, 'the checkpoint never resumed stays');
  });

  test("autoMemoryDirectory in the project's settings with Connect's hook: the checkpoint save wrote reaches the session", async () => {
    const home = makeHome();
    const project = repo();
    mkdirSync(path.join(project, '.claude'), { recursive: true });
    const memory = path.join(temp('checkpoint-claude-mem-'), 'agent-memory');
    writeFileSync(path.join(project, '.claude', 'settings.json'), JSON.stringify({ autoMemoryDirectory: memory }, null, 2));
    const saved = await save(project, cliEnv(home), 'project-memory', 'Saved where the project keeps agent memory');
    assert.equal(path.dirname(saved.path), memory);
    const launchers = await writeLaunchers(path.join(temp('checkpoint-claude-bin-'), 'bin'), { execPath: process.execPath, cliPath: CLI });
    await connectClaude(claudeTargets('workspace', project, cliEnv(home)), hookProgram('workspace', shellQuote(launchers.posix)));
    const s = await runClaude({ cwd: project, home, env: { PATH: `${launchers.dir}${path.delimiter}${process.env.PATH ?? ''}` } });
    const context = s.hookContext;
    assert.match(context, /"project-memory"/, `the SessionStart hook read another folder than save wrote (${saved.path}):\n${context || '(no hook context)'}`);
    assert.match(context, /Saved where the project keeps agent memory/);
  });
});

describe('An agent\'s slips never lose a checkpoint', () => {
  test('a checkpoint the agent wrote with a YAML slip reaches the new session: the hook reads it by its body', async () => {
    const home = makeHome();
    const project = repo();
    const dir = await runCli(['dir'], { cwd: project, env: cliEnv(home) });
    const mem = dir.out.trim();
    mkdirSync(mem, { recursive: true });
    // As the agent writes it: an unquoted ": " in the description (no YAML parser reads it), the index under its own
    // heading and with a link bullet.
    const saved = formatLocalDateTime(new Date());
    writeFileSync(
      path.join(mem, 'checkpoint-login.md'),
      `---\nname: login\ndescription: Login: cookie not set\ntype: checkpoint\n---\n# Checkpoint: login\n\n- **Branch:** \`main\`\n- **Saved:** ${saved}\n\n## Left Off\n\nLogin: cookie not set after the OAuth callback.\n`,
    );
    writeFileSync(path.join(mem, 'MEMORY.md'), '# Project Memory\n\n### Active checkpoints\n- [login](checkpoint-login.md) — Login: cookie not set\n');
    const launchers = await writeLaunchers(path.join(temp('checkpoint-claude-bin-'), 'bin'), { execPath: process.execPath, cliPath: CLI });
    await connectClaude(claudeTargets('workspace', project, cliEnv(home)), hookProgram('workspace', shellQuote(launchers.posix)));
    const s = await runClaude({ cwd: project, home, env: { PATH: `${launchers.dir}${path.delimiter}${process.env.PATH ?? ''}` } });
    const context = s.hookContext;
    assert.match(context, /"login"/, `the session was told nothing of the slipped checkpoint:\n${context || '(no hook context)'}`);
    assert.match(context, /cookie not set after the OAuth callback/);
    assert.equal(s.memory.length, 1, describeSession(s));
    assert.match(s.memory[0].content, /^- \[login\]\(checkpoint-login\.md\)/m, 'its index line is in what Claude Code loads');
  });
});

describe('Claude Code runs the SessionStart hooks of the folder', () => {
  test('the hook Connect Claude Code installs brings the pending checkpoint into the session', async () => {
    const home = makeHome();
    const project = repo();
    const saved = await save(project, cliEnv(home), 'parser-rewrite', 'Tokenizer done; grammar tests next');
    // What Connect Claude Code does for a workspace (the same core): the hooks run `checkpoint` from PATH, where the
    // extension's launcher is in VS Code's integrated terminals.
    const launchers = await writeLaunchers(path.join(temp('checkpoint-claude-bin-'), 'bin'), { execPath: process.execPath, cliPath: CLI });
    await connectClaude(claudeTargets('workspace', project, cliEnv(home)), hookProgram('workspace', shellQuote(launchers.posix)));
    const s = await runClaude({ cwd: project, home, env: { PATH: `${launchers.dir}${path.delimiter}${process.env.PATH ?? ''}` } });
    const context = s.hookContext;
    assert.match(context, /parser-rewrite/, `Claude Code got no pending checkpoint from the SessionStart hook (saved to ${saved.path}):\n${context || '(no hook context)'}`);
    assert.match(context, /Tokenizer done; grammar tests next/);
  });

  test('a hook in .claude/settings.json gets the session and its additionalContext reaches the session', async () => {
    const home = makeHome();
    const project = repo();
    const hook = path.join(project, '.claude', 'echo-cwd.js');
    mkdirSync(path.dirname(hook));
    // Reads the hook input Claude Code sends on stdin and answers with the documented SessionStart output.
    writeFileSync(
      hook,
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const i=JSON.parse(s);` +
        `process.stdout.write(JSON.stringify({hookSpecificOutput:{hookEventName:'SessionStart',additionalContext:'hook saw '+i.hook_event_name+' in '+i.cwd}}))})`,
    );
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(hook)}`;
    writeFileSync(
      path.join(project, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command }] }] } }, null, 2),
    );
    const s = await runClaude({ cwd: project, home });
    assert.equal(s.hookContext, `hook saw SessionStart in ${project}`);
  });
});
