import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync, utimesSync } from 'node:fs';
import * as path from 'node:path';
import { listPlans, planProgress, resolvePlansDir } from '../../src/core/plans';
import { tempDirs } from '../support/fixtures';
import { formatStep } from '../../src/core/wording';

const temp = tempDirs();

test('checklists: N is the first unchecked item', () => {
  assert.deepEqual(planProgress('# Plan\n- [x] one\n- [x] two\n- [ ] three\n- [ ] four\n'), { step: 3, steps: 4 });
  assert.deepEqual(planProgress('- [X] a\n  - [ ] nested\n* [ ] b\n1. [x] c\n'), { step: 2, steps: 4 });
});

test('all checked: M+1, shown as done', () => {
  const p = planProgress('- [x] a\n- [x] b\n');
  assert.deepEqual(p, { step: 3, steps: 2 });
  assert.equal(formatStep(p!.step, p!.steps), 'all 2 steps done');
  assert.equal(formatStep(3, 7), 'step 3 of 7');
});

test('without checkboxes: top-level ordered items', () => {
  assert.deepEqual(planProgress('# Plan\n1. Design\n2. Build\n   1. nested, not a step\n3. Ship\n'), { step: 1, steps: 3 });
  assert.deepEqual(planProgress('1. ~~Design~~\n2. Build ✅\n3. Ship\n'), { step: 3, steps: 3 });
});

test('checklists win over ordered lists; code fences are ignored; no steps → undefined', () => {
  assert.deepEqual(planProgress('1. intro\n2. more\n- [ ] the step\n'), { step: 1, steps: 1 });
  assert.equal(planProgress('```\n- [ ] not a step\n1. nor this\n```\nprose only\n'), undefined);
  assert.equal(planProgress(''), undefined);
});

test('plans directory: setting, then .claude/settings.json, then the Claude config folder', async () => {
  const root = temp();
  const env = { CLAUDE_CONFIG_DIR: path.join(root, 'claude') };
  assert.equal(await resolvePlansDir({ cwd: root, env }), path.join(root, 'claude', 'plans'));
  mkdirSync(path.join(root, '.claude'));
  writeFileSync(path.join(root, '.claude', 'settings.json'), JSON.stringify({ plansDirectory: 'docs/plans' }));
  assert.equal(await resolvePlansDir({ cwd: root, env }), path.join(root, 'docs', 'plans'));
  assert.equal(await resolvePlansDir({ cwd: root, env, configured: '/abs/plans' }), '/abs/plans');
  assert.equal(await resolvePlansDir({ cwd: root, env, configured: '~/p', home: '/home/u' }), '/home/u/p');
  writeFileSync(path.join(root, '.claude', 'settings.json'), '{ not json');
  assert.equal(await resolvePlansDir({ cwd: root, env }), path.join(root, 'claude', 'plans'));
});

test('listPlans: markdown files, most recently modified first', async () => {
  const dir = temp();
  writeFileSync(path.join(dir, 'old.md'), '- [ ] a');
  writeFileSync(path.join(dir, 'new.md'), '- [ ] a');
  writeFileSync(path.join(dir, 'notes.txt'), 'x');
  utimesSync(path.join(dir, 'old.md'), new Date(2020, 0, 1), new Date(2020, 0, 1));
  assert.deepEqual((await listPlans(dir)).map((p) => p.name), ['new', 'old']);
  assert.deepEqual(await listPlans(path.join(dir, 'missing')), []);
});
