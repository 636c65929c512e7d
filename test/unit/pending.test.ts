import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isolatedEnv, makeRepo, removeDir, runCliInProcess, tempDir } from '../support/fixtures';
import { STATE_FILE } from '../../src/core/pending';

const temps: string[] = [];
after(() => temps.forEach(removeDir));

function setup(): { repo: string; mem: string; env: NodeJS.ProcessEnv } {
  const home = tempDir('checkpoint-home-');
  const repo = makeRepo();
  temps.push(home, repo);
  return { repo, mem: path.join(home, 'mem'), env: isolatedEnv(home) };
}

/** The CLI's commands, run in this process. */
async function cli(args: string[], o: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number; out: string; err: string }> {
  const r = await runCliInProcess(args, o);
  return { code: r.code ?? -1, out: r.out, err: r.err };
}

test('checkpoint pending: nothing (exit 0), then every checkpoint not resumed since it was saved, newest first', async () => {
  const { repo, mem, env } = setup();
  const pending = async (): Promise<unknown> => {
    const r = await cli(['pending', '--json', '--dir', mem], { cwd: repo, env });
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out);
  };
  assert.deepEqual(await pending(), []);
  const human = await cli(['pending', '--dir', mem], { cwd: repo, env });
  assert.deepEqual([human.code, human.out.trim()], [0, 'No pending checkpoint.']);
  await cli(['save', 'older', '--left-off', 'a', '--dir', mem], { cwd: repo, env });
  await cli(['save', 'newer', '--left-off', 'b', '--dir', mem], { cwd: repo, env });
  const list = (await pending()) as Record<string, unknown>[];
  assert.deepEqual(list.map((c) => c.name), ['newer', 'older']);
  const p = list[0];
  assert.deepEqual(Object.keys(p).sort(), ['auto', 'branch', 'description', 'frontMatterSkipped', 'name', 'path', 'plan', 'planStep', 'planSteps', 'saved', 'unreadable']);
  assert.deepEqual([p.name, p.branch, p.description, p.auto], ['newer', 'main', 'b', false]);
  assert.match((await cli(['pending', '--dir', mem], { cwd: repo, env })).out, /^\* newer {2}main {2}just now {2}b\n {2}older {2}main {2}just now {2}a$/m);
  // Resuming one (kept) takes only that one off the list: resuming one never hides another (seed 000's sentinels).
  assert.equal((await cli(['resume', 'older', '--keep', '--dir', mem], { cwd: repo, env })).code, 0);
  assert.deepEqual(((await pending()) as { name: string }[]).map((c) => c.name), ['newer']);
  const state = JSON.parse(readFileSync(path.join(mem, STATE_FILE), 'utf8')) as { resumed: Record<string, string> };
  assert.deepEqual(Object.keys(state.resumed), ['older']);
  await cli(['save', 'third', '--left-off', 'c', '--dir', mem], { cwd: repo, env });
  assert.deepEqual(((await pending()) as { name: string }[]).map((c) => c.name), ['third', 'newer']);
});

test('a state file that is not JSON is left as it is: pending ignores it with a warning; resume says it could not record', async () => {
  const { repo, mem, env } = setup();
  await cli(['save', 'one', '--left-off', 'a', '--dir', mem], { cwd: repo, env });
  writeFileSync(path.join(mem, STATE_FILE), '{ not json');
  const r = await cli(['pending', '--json', '--dir', mem], { cwd: repo, env });
  assert.equal(r.code, 0);
  assert.equal((JSON.parse(r.out) as { name: string }[])[0].name, 'one');
  assert.match(r.err, /not valid JSON/);
  const resumed = await cli(['resume', 'one', '--dir', mem], { cwd: repo, env });
  assert.equal(resumed.code, 0);
  assert.match(resumed.err, /resume was not recorded.*left as it is/);
  assert.equal(readFileSync(path.join(mem, STATE_FILE), 'utf8'), '{ not json');
});

test('state-index.json: a save without --plan goes to the active plan; a plan-scoped save sets last_checkpoint and keeps every other byte', async () => {
  const { repo, mem, env } = setup();
  mkdirSync(path.join(repo, '.claude', 'plans'), { recursive: true });
  const plan = path.join(repo, '.claude', 'plans', 'fix-auth.md');
  writeFileSync(plan, '# Fix auth\n- [x] one\n- [ ] two\n- [ ] three\n');
  const index = path.join(repo, '.claude', 'state-index.json');
  const before = '{\n    "active_plan": "fix-auth",\n    "active_tdd_phase": "red",\n    "last_checkpoint": "2026-01-01T00:00:00Z",\n    "extra": [1, 2]\n}';
  writeFileSync(index, before);
  const r = await cli(['save', 'step', '--left-off', 'x', '--dir', mem, '--json'], { cwd: repo, env });
  assert.equal(r.code, 0, r.err);
  const shown = JSON.parse((await cli(['show', 'step', '--json', '--dir', mem], { cwd: repo, env })).out) as Record<string, unknown>;
  assert.deepEqual([shown.plan, shown.planStep, shown.planSteps], [plan, 2, 3]);
  const saved = (JSON.parse(r.out) as { saved: string }).saved;
  assert.equal(readFileSync(index, 'utf8'), before.replace('2026-01-01T00:00:00Z', saved));

  // No last_checkpoint yet: it is added, the rest unchanged.
  writeFileSync(index, '{"active_plan": "fix-auth"}\n');
  const r2 = JSON.parse((await cli(['save', 'step2', '--left-off', 'x', '--dir', mem, '--json'], { cwd: repo, env })).out) as { saved: string };
  assert.deepEqual(JSON.parse(readFileSync(index, 'utf8')), { active_plan: 'fix-auth', last_checkpoint: r2.saved });
  assert.ok(readFileSync(index, 'utf8').startsWith('{"active_plan": "fix-auth",'));

  // An explicit --plan wins; a plan that does not exist is no plan.
  writeFileSync(index, '{"active_plan": "no-such-plan"}');
  const r3 = await cli(['save', 'noplan', '--left-off', 'x', '--dir', mem], { cwd: repo, env });
  assert.equal(r3.code, 0);
  assert.equal((JSON.parse((await cli(['show', 'noplan', '--json', '--dir', mem], { cwd: repo, env })).out) as { plan: string | null }).plan, null);
  // Every save is the last checkpoint (seed 003), with or without a plan; the other keys stay.
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(index, 'utf8')) as object), ['active_plan', 'last_checkpoint']);
});

test('state-index.json that is not valid JSON: the checkpoint is saved, the file is left as it is, with a warning', async () => {
  const { repo, mem, env } = setup();
  mkdirSync(path.join(repo, '.claude'), { recursive: true });
  const plan = path.join(repo, 'plan.md');
  writeFileSync(plan, '1. a\n2. b\n');
  const index = path.join(repo, '.claude', 'state-index.json');
  writeFileSync(index, '{"active_plan": "x",');
  const r = await cli(['save', 'p', '--plan', plan, '--dir', mem], { cwd: repo, env });
  assert.equal(r.code, 0);
  assert.match(r.err, /state-index\.json is not valid JSON.*left as it is/);
  assert.equal(readFileSync(index, 'utf8'), '{"active_plan": "x",');
  assert.ok(existsSync(path.join(mem, 'checkpoint-p.md')));
});
