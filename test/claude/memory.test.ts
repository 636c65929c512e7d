// The real Claude Code client is the judge: a checkpoint saved with the CLI must be in the MEMORY.md that Claude
// Code loads into a new session, wherever the user works (a repository, a subfolder, a linked worktree, a custom
// memory folder, a custom config folder). Runs `claude -p continue` with no network (test/support/claudeCode.ts).
import { after, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runClaude, type ClaudeSession } from '../support/claudeCode';
import { git, makeRepo, removeDir, runCli, tempDir } from '../support/fixtures';

const temps: string[] = [];
after(() => temps.forEach(removeDir));

/** A temp folder by its real path (the client and git report real paths). */
function temp(prefix: string): string {
  const dir = realpathSync(tempDir(prefix));
  temps.push(dir);
  return dir;
}

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
  const files = s.instructions.map((f) => `${f.type} ${f.path}`).join(', ') || 'none';
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

describe('Claude Code loads the checkpoint the CLI saved', () => {
  test('in a repository', async () => {
    const home = makeHome();
    const project = repo();
    const saved = await save(project, cliEnv(home), 'fix-login', 'Token refresh still failing');
    const s = await runClaude({ cwd: project, home });
    assertLoaded(s, saved, 'fix-login', 'Token refresh still failing');
  });

  test('in a subfolder of a repository (the repository shares one memory folder)', async () => {
    const home = makeHome();
    const project = repo();
    const sub = path.join(project, 'packages', 'api');
    mkdirSync(sub, { recursive: true });
    const saved = await save(sub, cliEnv(home), 'api-routes', 'Routes wired; auth middleware next');
    const s = await runClaude({ cwd: sub, home });
    assertLoaded(s, saved, 'api-routes', 'Routes wired; auth middleware next');
  });

  test('with CLAUDE_CONFIG_DIR (no ~/.claude)', async () => {
    const home = makeHome({ claude: false });
    const configDir = path.join(temp('checkpoint-claude-config-'), 'claude-config');
    mkdirSync(configDir);
    const project = repo();
    const saved = await save(project, cliEnv(home, configDir), 'config-dir', 'Saved under a custom config folder');
    assert.ok(saved.path.startsWith(configDir + path.sep), `saved to ${saved.path}, outside ${configDir}`);
    const s = await runClaude({ cwd: project, home, configDir });
    assertLoaded(s, saved, 'config-dir', 'Saved under a custom config folder');
  });
});

describe('Claude Code runs the SessionStart hooks of the folder', () => {
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
    assert.deepEqual(s.hookContexts, [`hook saw SessionStart in ${project}`]);
  });
});
