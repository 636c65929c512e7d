// Whole Claude Code sessions with the Checkpoint plugin, against a scripted model (test/support/scriptedModel.ts):
// what reaches the model when the agent saves through the skill's command and through the MCP tool, in a new
// session, a resumed one, a forked one (`--resume <id> --fork-session`) and after `/compact` (PreCompact, PostCompact
// with the compaction's summary, SessionStart `compact`).
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeTargets, connectClaude, hookProgram } from '../../src/core/claudeSettings';
import { shellQuote } from '../../src/core/escaping';
import { writeLaunchers } from '../../src/core/launcher';
import { packagePlugin, runSession, sessionOf, type SessionRun } from '../support/claudeCode';
import { CLI, makeRepo, removeDir, runCli, tempDir } from '../support/fixtures';
import { scriptedModel, toolResults, turnOf, type ScriptedModel } from '../support/scriptedModel';

const temps: string[] = [];
const temp = (prefix: string): string => {
  const dir = realpathSync(tempDir(prefix));
  temps.push(dir);
  return dir;
};

let plugin = '';
let model: ScriptedModel;
before(async () => {
  plugin = packagePlugin(temp('checkpoint-plugin-')).zip;
  model = await scriptedModel();
});
after(async () => {
  await model.close();
  temps.forEach(removeDir);
});

/** A private HOME with Claude Code set up, a repository, and a PATH with Node and no `checkpoint` on it. */
function world(): { home: string; project: string; env: NodeJS.ProcessEnv } {
  const home = temp('checkpoint-session-home-');
  mkdirSync(path.join(home, '.claude'));
  const project = makeRepo({ dir: path.join(temp('checkpoint-session-repo-'), 'project') });
  const bin = path.join(temp('checkpoint-node-bin-'), 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, path.join(bin, 'node'));
  const dirs = [bin, '/usr/bin', '/bin'];
  assert.ok(!dirs.some((d) => existsSync(path.join(d, 'checkpoint'))), `a checkpoint command is on ${dirs.join(':')}`);
  return { home, project, env: { PATH: dirs.join(path.delimiter) } };
}

const cliEnv = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' });

async function save(w: { home: string; project: string }, name: string, leftOff: string): Promise<string> {
  const r = await runCli(['save', name, '--left-off', leftOff, '--json'], { cwd: w.project, env: cliEnv(w.home) });
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { path: string }).path;
}

/** A session of the plugin in `w`: `claude -p <prompt> --plugin-dir <zip> <args>` against the model. */
function session(w: { home: string; project: string; env: NodeJS.ProcessEnv }, prompt: string, args: string[] = []): Promise<SessionRun> {
  return runSession({ cwd: w.project, home: w.home, env: w.env, model, prompt, args: ['--plugin-dir', plugin, ...args] });
}

/** The SessionStart context in a run's first request (failing, with the output, when none reached the model). */
function contextOf(run: SessionRun): string {
  assert.ok(run.requests.length > 0, `no request reached the model:\n${run.output}`);
  return sessionOf(run.requests[0]).hookContext;
}

const LEFT_OFF = 'Login form validates; the submit handler is next';
const FAILED = 'Storing the token in localStorage — XSS exposure';
const MCP_SAVE = 'mcp__plugin_checkpoint_checkpoint__checkpoint_save';

/** Every tool result of a run, as text, in the order they reached the model. */
const resultsOf = (run: SessionRun): string[] => [...new Set(run.requests.flatMap(toolResults))];

/** A new session's first request tells of `name`: in the SessionStart context and in the MEMORY.md the client loaded. */
function assertToldAt(run: SessionRun, name: string): void {
  const s = sessionOf(run.requests[0]);
  assert.match(s.hookContext, new RegExp(`"${name}"`), `no pending checkpoint in the hook context:\n${s.hookContext || '(none)'}`);
  assert.ok(s.hookContext.includes(LEFT_OFF), s.hookContext);
  assert.ok(s.hookContext.includes(FAILED), s.hookContext);
  assert.equal(s.memory.length, 1, `one MEMORY.md reached the model: ${s.instructions.map((f) => f.path).join(', ') || 'none'}`);
  assert.match(s.memory[0].content, new RegExp(`^- \\*\\*${name}\\*\\* \\(main, .*\\) — ${LEFT_OFF}$`, 'm'), s.memory[0].content);
}

describe('The agent saves, a new session is told', () => {
  before(() => {
    model.rules.push(
      {
        when: /^save checkpoint with the skill$/,
        reply: [
          { tool: 'Skill', input: { skill: 'checkpoint:checkpoint' } },
          { tool: 'Bash', input: { command: `checkpoint save skill-save --left-off '${LEFT_OFF}' --failed '${FAILED}'`, description: 'Save a checkpoint' } },
          { text: 'Checkpoint saved.' },
        ],
      },
      {
        when: /^save checkpoint with the tool$/,
        reply: [
          { tool: 'ToolSearch', input: { query: `select:${MCP_SAVE}` } },
          { tool: MCP_SAVE, input: { name: 'tool-save', leftOff: LEFT_OFF, failed: [FAILED] } },
          { text: 'Checkpoint saved.' },
        ],
      },
    );
  });

  test("through the skill's command (Bash, the plugin's bin/ on PATH); then a new session and a resumed one", async () => {
    const w = world();
    const saving = await session(w, 'save checkpoint with the skill', ['--allowedTools', 'Bash']);
    const results = resultsOf(saving);
    assert.equal(results.length, 2, `two tool results reached the model:\n${results.join('\n---\n')}\n${saving.output}`);
    assert.match(results[1], /Checkpoint "skill-save" saved\./, `the Bash tool's result:\n${results[1]}`);
    assertToldAt(await session(w, 'hello'), 'skill-save');
    const resumed = await session(w, 'go on', ['--resume', saving.sessionId]);
    assert.match(contextOf(resumed), /"skill-save"/, 'a resumed session is told too');
  });

  test('through the MCP tool (ToolSearch select:, then the call)', async () => {
    const w = world();
    const saving = await session(w, 'save checkpoint with the tool', ['--allowedTools', MCP_SAVE]);
    const results = resultsOf(saving);
    assert.equal(results.length, 2, `two tool results reached the model:\n${results.join('\n---\n')}\n${saving.output}`);
    assert.match(results[1], /"tool-save"/, `the MCP tool's result:\n${results[1]}`);
    assertToldAt(await session(w, 'hello'), 'tool-save');
  });
});

describe("The skill, as the client gives it to the model", () => {
  test('with several checkpoints pending, `checkpoint pending --json` lists them all and the skill says to ask which', async () => {
    const w = world();
    await save(w, 'first-task', 'First task half done');
    await save(w, 'second-task', 'Second task half done');
    model.rules.push({
      when: /^continue$/,
      reply: [
        { tool: 'Skill', input: { skill: 'checkpoint:checkpoint' } },
        { tool: 'Bash', input: { command: 'checkpoint pending --json', description: 'List pending checkpoints' } },
        { text: 'Which one?' },
      ],
    });
    const run = await session(w, 'continue', ['--allowedTools', 'Bash']);
    const last = run.requests[run.requests.length - 1];
    const seen = JSON.stringify(last.messages);
    assert.match(seen, /pending --json` prints a JSON list/, 'the skill the model read describes the list');
    assert.match(seen, /Several: show them .* and ask the user which/);
    const pending = JSON.parse(resultsOf(run)[1]) as { name: string }[];
    assert.deepEqual(pending.map((c) => c.name).sort(), ['first-task', 'second-task']);
  });
});

describe('A forked session (claude --resume <id> --fork-session)', () => {
  async function forkTold(w: ReturnType<typeof world>, run: (prompt: string, args?: string[]) => Promise<SessionRun>): Promise<void> {
    const first = await run('hello');
    assert.equal(contextOf(first), '', 'nothing pending at the first start');
    await save(w, 'fork-me', 'Saved after the session started; the fork must hear of it');
    const fork = await run('go on', ['--resume', first.sessionId, '--fork-session']);
    assert.notEqual(fork.sessionId, first.sessionId, 'the fork is a session of its own');
    const context = contextOf(fork);
    assert.match(context, /"fork-me"/, `the forked session's first request carries no pending checkpoint:\n${context || '(no hook context)'}`);
    assert.match(context, /Saved after the session started; the fork must hear of it/);
  }

  test("is told about a checkpoint saved since, by the plugin's hooks", async () => {
    const w = world();
    await forkTold(w, (prompt, args) => session(w, prompt, args));
  });

  test("is told about a checkpoint saved since, by the hooks Connect writes", async () => {
    const w = world();
    const launchers = await writeLaunchers(path.join(temp('checkpoint-claude-bin-'), 'bin'), { execPath: process.execPath, cliPath: CLI });
    await connectClaude(claudeTargets('workspace', w.project, cliEnv(w.home)), hookProgram('workspace', shellQuote(launchers.posix)));
    const env = { PATH: `${launchers.dir}${path.delimiter}${process.env.PATH ?? ''}` };
    await forkTold(w, (prompt, args) => runSession({ cwd: w.project, home: w.home, env, model, prompt, args }));
  });
});

/** The summary the scripted model gives when Claude Code asks it to compact: Markdown over several lines. */
const SUMMARY = [
  '## Summary',
  '1. Primary request: rewrite the parser; the tokenizer rewrite is done and its tests pass.',
  '2. Current work: the grammar tests fail on nested `match` arms.',
  '# Next step: fix the nested match arms in src/parser.ts, then run npm test',
].join('\n');
const COMPACT_PROMPT = /^CRITICAL: Respond with TEXT ONLY/;

/** The automatic checkpoints in the memory folder of `w` (names and text). */
async function autoCheckpoints(w: { home: string; project: string }): Promise<{ name: string; text: string }[]> {
  const r = await runCli(['list', '--json'], { cwd: w.project, env: cliEnv(w.home) });
  assert.equal(r.code, 0, r.err);
  const list = JSON.parse(r.out) as { name: string; path: string }[];
  return list.filter((c) => c.name.startsWith('auto-')).map((c) => ({ name: c.name, text: readFileSync(c.path, 'utf8') }));
}

describe('/compact (claude -p "/compact" --resume <id>)', () => {
  before(() => {
    model.rules.push({ when: COMPACT_PROMPT, reply: [{ text: SUMMARY }] });
  });

  test("the automatic checkpoint holds the compaction's summary and the modified files; the next session starts with it", async () => {
    const w = world();
    const first = await session(w, 'Rewrite the parser, starting with the tokenizer');
    writeFileSync(path.join(w.project, 'parser.ts'), 'export const parse = () => 1;\n');
    const compacted = await session(w, '/compact', ['--resume', first.sessionId]);
    assert.ok(compacted.requests.some((r) => COMPACT_PROMPT.test(turnOf(r).prompt)), `the model was not asked for a summary:\n${compacted.output}`);
    const autos = await autoCheckpoints(w);
    assert.equal(autos.length, 1, `one automatic checkpoint: ${autos.map((a) => a.name).join(', ')}`);
    const { text } = autos[0];
    // Left Off: the summary as one escaped line, its first 200 characters or so on a line of their own.
    const leftOff = (/^## Left Off\n((?:.+\n)+?)## /m.exec(text)?.[1] ?? '').trimEnd().split('\n').join(' ');
    assert.match(leftOff, /tokenizer rewrite is done/, `the summary is not its Left Off:\n${text}`);
    assert.match(leftOff, /^The compaction's summary: ## Summary 1\. Primary request: .* nested `match` arms\. # Next step: .*src\/parser\.ts, then run npm test$/);
    assert.doesNotMatch(text, /^#+ (Summary|Next step)/m, 'the summary\'s headings are not headings of the checkpoint');
    assert.match(text, /^## Modified Files\n(- .*\n)*- `?parser\.ts/m, `the modified file is listed:\n${text}`);

    // PreCompact saved it first, with the last prompt; that version is in the trash.
    const memory = path.dirname((JSON.parse((await runCli(['list', '--json'], { cwd: w.project, env: cliEnv(w.home) })).out) as { path: string }[])[0].path);
    const trashed = readdirSync(path.join(memory, '.trash')).flatMap((d) => readdirSync(path.join(memory, '.trash', d)).map((f) => readFileSync(path.join(memory, '.trash', d, f), 'utf8')));
    assert.ok(trashed.some((t) => /^## Left Off\nRewrite the parser, starting with the tokenizer$/m.test(t)), `PreCompact's version is not in the trash:\n${trashed.join('\n---\n')}`);

    // The compacted session goes on from the client's summary; its starts (compact, then resume) were told.
    const resumed = await session(w, 'go on', ['--resume', compacted.sessionId]);
    assert.ok(JSON.stringify(resumed.requests[0].messages).includes('tokenizer rewrite is done'), 'the compacted session carries the summary');
    const starts = contextOf(resumed).split('\n').filter((l) => l.startsWith(`Pending checkpoint of earlier work in this project: "${autos[0].name}"`));
    assert.equal(starts.length, 2, `the SessionStart contexts of the compact and the resume:\n${contextOf(resumed)}`);

    const next = await session(w, 'hello');
    const context = contextOf(next);
    assert.match(context, new RegExp(`"${autos[0].name}"`), `the next session's first request names no automatic checkpoint:\n${context || '(no hook context)'}`);
    assert.match(context, /Left off: .*tokenizer rewrite is done/, `the next session's first request lacks the summary:\n${context}`);
  });
});
