import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { RECENT_PLAN_MS, suggestPlan } from '../../src/core/stateIndex';
import { removeDir, tempDir } from '../support/fixtures';

/** A folder with a plans folder of `plans` (name → age in ms) and, when given, a state-index.json. */
function folderWith(plans: Record<string, number>, stateIndex?: string): { cwd: string; plansDir: string; now: number } {
  const cwd = tempDir('checkpoint-suggest-plan-');
  const plansDir = path.join(cwd, 'plans');
  mkdirSync(plansDir);
  const now = Date.now();
  for (const [name, age] of Object.entries(plans)) {
    const file = path.join(plansDir, `${name}.md`);
    writeFileSync(file, '# Plan\n- [ ] one\n');
    const t = (now - age) / 1000;
    utimesSync(file, t, t);
  }
  if (stateIndex !== undefined) {
    mkdirSync(path.join(cwd, '.claude'));
    writeFileSync(path.join(cwd, '.claude', 'state-index.json'), stateIndex);
  }
  return { cwd, plansDir, now };
}

test('suggestPlan: active_plan first, else the newest plan when it changed in the last 24 hours, else none', async () => {
  const hour = 60 * 60 * 1000;
  const cases: { title: string; plans: Record<string, number>; stateIndex?: string; expected?: { plan: string; why: string } }[] = [
    { title: 'no plans at all', plans: {}, expected: undefined },
    { title: 'a plan edited an hour ago', plans: { 'fix-auth': hour, old: 3 * 24 * hour }, expected: { plan: 'fix-auth', why: 'recent' } },
    { title: 'only plans older than a day', plans: { old: RECENT_PLAN_MS + hour }, expected: undefined },
    {
      title: 'active_plan names an older plan: it wins over the newest',
      plans: { 'fix-auth': hour, migration: 5 * 24 * hour },
      stateIndex: '{"active_plan": "plans/migration.md"}',
      expected: { plan: 'migration', why: 'active' },
    },
    {
      title: 'active_plan names a missing file: the recent rule applies',
      plans: { 'fix-auth': hour },
      stateIndex: '{"active_plan": "plans/gone.md"}',
      expected: { plan: 'fix-auth', why: 'recent' },
    },
    { title: 'state-index.json is not JSON: the recent rule applies', plans: { 'fix-auth': hour }, stateIndex: '{nope', expected: { plan: 'fix-auth', why: 'recent' } },
  ];
  for (const c of cases) {
    const f = folderWith(c.plans, c.stateIndex);
    try {
      const s = await suggestPlan(f.cwd, f.plansDir, { now: f.now, env: { HOME: f.cwd } });
      assert.deepEqual(
        s && { plan: path.basename(s.path, '.md'), why: s.why },
        c.expected,
        c.title,
      );
    } finally {
      removeDir(f.cwd);
    }
  }
});
