import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { SKILL_TEXT } from '../../src/core/skill';
import { CLI, git, isolatedEnv, makeRepo, runCliInProcess, tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** Every `checkpoint …` command line the skill shows the agent (in code spans and code blocks). */
function commandLines(text: string): string[] {
  const code = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n'));
  const spans = [...text.replace(/```[a-z]*\n[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  return [...code, ...spans].map((l) => l.trim()).filter((l) => l.startsWith('checkpoint '));
}

test('the skill has the front matter Claude Code needs, and is short', () => {
  const m = /^---\nname: checkpoint\ndescription: (.+)\n---\n/.exec(SKILL_TEXT);
  assert.ok(m, 'name and description front matter');
  assert.match(m[1], /save checkpoint/);
  assert.match(m[1], /continue/);
  assert.ok(SKILL_TEXT.length < 3000, `${SKILL_TEXT.length} characters`);
});

test('every command and option the skill names exists in the CLI', async () => {
  const lines = commandLines(SKILL_TEXT);
  const commands = new Set(lines.map((l) => l.split(/\s+/)[1]));
  assert.deepEqual([...commands].sort(), ['list', 'pending', 'restore', 'resume', 'save', 'show']);
  // Options named in prose (`--done`) belong to the save command line above them.
  const flags = new Map<string, Set<string>>();
  for (const l of lines) {
    const cmd = l.split(/\s+/)[1];
    for (const f of l.match(/--[a-z-]+/g) ?? []) (flags.get(cmd) ?? flags.set(cmd, new Set()).get(cmd)!).add(f);
  }
  for (const f of SKILL_TEXT.replace(/```[\s\S]*?```/g, '').match(/`(--[a-z-]+)/g) ?? []) flags.get('save')!.add(f.slice(1));
  assert.deepEqual([...flags.get('save')!].sort(), ['--decision', '--done', '--failed', '--force', '--left-off', '--plan', '--question']);

  // The CLI's commands, run in this process.
  const home = temp('checkpoint-home-');
  const cli = (argv: string[]) => runCliInProcess(argv, { cwd: home, env: isolatedEnv(home) });
  for (const cmd of commands) {
    const help = await cli([cmd, '--help']);
    assert.equal(help.code, 0, `checkpoint ${cmd} --help: ${help.err}`);
    for (const flag of flags.get(cmd) ?? []) {
      // The CLI's strict parser refuses an option the command does not have (exit 2); --help then prints help.
      const valued = !['--force', '--json', '--keep'].includes(flag);
      const r = await cli([cmd, flag, ...(valued ? ['value'] : []), '--help']);
      assert.equal(r.code, 0, `checkpoint ${cmd} ${flag}: ${r.err}`);
      assert.ok(help.out.includes(flag), `${cmd} --help documents ${flag}`);
    }
  }
  // The check itself catches a name the CLI does not have.
  assert.equal((await cli(['save', '--no-such-flag', 'v', '--help'])).code, 2);
});

/** A command line of the skill as argv: words and "double-quoted" strings (kept as written, placeholders and all). */
const words = (line: string): string[] => [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);

test('every command the skill names, run as the skill says, prints what the skill says it prints', () => {
  const home = temp('checkpoint-home-');
  mkdirSync(path.join(home, '.claude'));
  const repo = makeRepo({ dir: path.join(temp('checkpoint-skill-'), 'project') });
  const env = isolatedEnv(home);
  writeFileSync(path.join(repo, 'plan.md'), '# Plan\n- [x] one\n- [ ] two\n');
  const run = (argv: string[]): { code: number; out: string; err: string } => {
    const r = spawnSync(process.execPath, [CLI, ...argv], { cwd: repo, env, encoding: 'utf8', timeout: 30_000 });
    return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
  };
  const lines = commandLines(SKILL_TEXT);
  const line = (cmd: string): string[] => {
    const l = lines.find((x) => words(x)[1] === cmd);
    assert.ok(l, `the skill names no checkpoint ${cmd}`);
    return words(l).slice(1);
  };
  const checked = new Set<string>();
  const withName = (cmd: string, name: string): string[] => {
    checked.add(cmd);
    return line(cmd).map((w) => (w === '<name>' ? name : w));
  };

  // pending --json: "a JSON list …, the one to offer first on top (`[]` when none)".
  assert.match(SKILL_TEXT, /pending --json` prints a JSON list .*\(`\[\]` when none\)/);
  const none = run(withName('pending', ''));
  assert.equal(none.code, 0, none.err);
  assert.deepEqual(JSON.parse(none.out), []);
  // None: "`checkpoint list` prints every saved checkpoint, one per line, name first ("No saved checkpoints found." when none)".
  assert.match(SKILL_TEXT, /list` prints every saved checkpoint, one per line, name first \("No saved checkpoints found\." when none\)/);
  assert.equal(run(withName('list', '')).out.trim(), 'No saved checkpoints found.');

  // save, as its code block has it, with the option the text adds for a plan file.
  const plan = /add `(--plan) <path>`/.exec(SKILL_TEXT);
  assert.ok(plan, 'the skill says how to name a plan');
  const saved = run([...withName('save', 'first-task'), plan[1], 'plan.md']);
  assert.equal(saved.code, 0, saved.err);
  // "If the name is taken the command exits 1 and says so: ask the user before adding `--force`".
  assert.match(SKILL_TEXT, /name is taken the command exits 1 and says so: ask the user before adding `--force`/);
  const taken = run(withName('save', 'first-task'));
  assert.equal(taken.code, 1);
  assert.match(taken.err, /"first-task" already exists.*--force/);
  assert.equal(run([...withName('save', 'first-task'), plan[1], 'plan.md', '--force']).code, 0);

  // One pending: the list holds it, with the fields the skill names.
  const one = JSON.parse(run(withName('pending', '')).out) as Record<string, unknown>[];
  assert.deepEqual(one.map((c) => c.name), ['first-task']);
  assert.match(SKILL_TEXT, /each has `name`, `branch`, `saved` and `description`/);
  for (const field of ['name', 'branch', 'saved', 'description']) assert.equal(typeof one[0][field], 'string', field);
  // Several: all of them are listed, so the agent can ask which (seeds 000 and 004).
  assert.match(SKILL_TEXT, /Several: show them .* and ask the user which/);
  git(repo, 'switch', '-q', '-c', 'feature/other');
  assert.equal(run(['save', 'second-task', '--left-off', 'Other work']).code, 0);
  const several = JSON.parse(run(withName('pending', '')).out) as { name: string }[];
  assert.deepEqual(several.map((c) => c.name).sort(), ['first-task', 'second-task']);
  const listed = run(withName('list', '')).out.trim().split('\n');
  assert.deepEqual(listed.map((l) => l.split(/\s+/)[0]).sort(), ['first-task', 'second-task']);

  // show: "read Left Off, Done, Failed Approaches, Decisions, Open Questions and the plan".
  const shown = run(withName('show', 'first-task'));
  assert.equal(shown.code, 0, shown.err);
  for (const heading of ['Left off:', 'Done:', 'Decisions:', 'Open questions:']) assert.ok(shown.out.includes(`\n${heading}\n`), `${heading} in:\n${shown.out}`);
  assert.match(shown.out, /^⚠ Previously failed: /m, 'the failed approaches');
  assert.match(shown.out, /^Plan: .*plan\.md \(step 2 of 2\)$/m);

  // resume --json: "a JSON object"; `branchMismatch`, `branch` against `currentBranch`; `failedApproaches`.
  const resumed = run(withName('resume', 'first-task'));
  assert.equal(resumed.code, 0, resumed.err);
  const r = JSON.parse(resumed.out) as Record<string, unknown>;
  assert.deepEqual([r.branchMismatch, r.branch, r.currentBranch], [true, 'main', 'feature/other']);
  assert.ok(Array.isArray(r.failedApproaches) && r.failedApproaches.length === 1, JSON.stringify(r));
  assert.deepEqual((JSON.parse(run(withName('pending', '')).out) as { name: string }[]).map((c) => c.name), ['second-task'], 'resumed: no longer pending');
  // "moved to the trash; `checkpoint restore <name>` undoes it".
  assert.match(SKILL_TEXT, /moved to the trash; `[^`]*restore <name>` undoes it/);
  const restored = run(withName('restore', 'first-task'));
  assert.equal(restored.code, 0, restored.err);
  assert.deepEqual(run(withName('list', '')).out.trim().split('\n').map((l) => l.split(/\s+/)[0]).sort(), ['first-task', 'second-task'], 'restored: listed again');

  assert.deepEqual([...checked].sort(), [...new Set(lines.map((l) => words(l)[1]))].sort(), 'every command the skill names was run');
});
