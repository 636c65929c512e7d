// The product and an agent that follows the session-checkpoint skill understand each other: every file of the corpus
// in test/fixtures/agent-written is listed, shown, resumed, deleted and restored by its own name; MEMORY.md keeps every
// byte outside the checkpoint section and never has two sections after a write.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError } from '../../src/core/errors';
import { CheckpointStore } from '../../src/core/store';
import { CORPUS_INDEXES, CORPUS_NAMES, corpusCheckpoint, installCorpus, outsideSections, sectionCount } from '../support/agentCorpus';
import { runCliInProcess, tempDirs } from '../support/fixtures';
import { terminalText } from '../../src/core/escaping';

const temp = tempDirs();

/** The CLI's commands run in this process, in `cwd`, with `home` as HOME. */
async function cli(args: string[], home: string, cwd: string): Promise<{ code: number; out: string; err: string }> {
  const r = await runCliInProcess(args, { cwd, env: { PATH: process.env.PATH, HOME: home } });
  return { code: r.code ?? -1, out: r.out, err: r.err };
}

/** A temp root with the paths of a home (created), a workspace folder and a memory folder in it. */
function folders(): { root: string; home: string; ws: string; mem: string } {
  const root = temp();
  const home = path.join(root, 'home');
  mkdirSync(home);
  return { root, home, ws: path.join(root, 'ws'), mem: path.join(root, 'mem') };
}

/** A temp home, a workspace folder and a memory folder holding the corpus (and `index` as MEMORY.md). */
function setup(opts: { index?: string; crlf?: boolean; bare?: boolean } = {}): { root: string; home: string; ws: string; mem: string; index?: string } {
  const { root, home, ws, mem } = folders();
  mkdirSync(ws);
  const index = installCorpus(mem, home, opts);
  return { root, home, ws, mem, index };
}

const readIndex = (mem: string): string => readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');
const trashed = (mem: string): string[] =>
  existsSync(path.join(mem, '.trash')) ? readdirSync(path.join(mem, '.trash')).flatMap((d) => readdirSync(path.join(mem, '.trash', d))) : [];

/** After any write: one section at most, under `## Active Checkpoints`, and the text around it as it was. */
function assertIndexKept(original: string, now: string, label: string): void {
  assert.ok(sectionCount(now) <= 1, `${label}: one section at most`);
  assert.doesNotMatch(now, /^## Checkpoints\r?$/m, `${label}: the 0.1.0 heading is renamed`);
  const { before, after } = outsideSections(original);
  if (sectionCount(now) === 1) {
    assert.ok(now.startsWith(before), `${label}: the bytes before the section are kept`);
    assert.ok(now.endsWith(after), `${label}: the bytes after the section are kept`);
  }
}

const FIX_LOGIN_PLAN = (home: string): string => path.join(home, '.claude', 'plans', 'fix-login.md');

for (const indexName of ['skill.md', 'shapes.md', 'agent-shapes.md']) test(`corpus through the CLI: list, show, resume, restore and delete every agent-written checkpoint by its own name (${indexName})`, async () => {
  const { home, ws, mem, index } = setup({ index: indexName });
  const list = await cli(['list', '--json', '--dir', mem], home, ws);
  assert.equal(list.code, 0, list.err);
  const items = JSON.parse(list.out) as { name: string; unreadable: string | null; plan: string | null; planStep: number | null; planSteps: number | null; branch: string }[];
  assert.deepEqual(items.map((i) => i.name).sort(), [...CORPUS_NAMES].sort());
  assert.ok(items.every((i) => i.unreadable === null), 'all readable');
  const fix = items.find((i) => i.name === 'fix:-login')!;
  assert.deepEqual([fix.branch, fix.plan, fix.planStep, fix.planSteps], ['fix/login', FIX_LOGIN_PLAN(home), 2, 4], '~/ plan path expanded');
  assert.equal(items.find((i) => i.name === 'My Feature')!.plan, FIX_LOGIN_PLAN(home), 'one plan, one path');

  for (const name of CORPUS_NAMES) {
    const show = await cli(['show', name, '--raw', '--dir', mem], home, ws);
    assert.equal(show.code, 0, `show ${name}: ${show.err}`);
    assert.equal(show.out, terminalText(corpusCheckpoint(name)).trimEnd() + '\n', `show --raw ${name} prints the file`);
    const json = JSON.parse((await cli(['show', name, '--json', '--dir', mem], home, ws)).out) as { name: string; leftOff: string };
    assert.equal(json.name, name);
    assert.ok(json.leftOff.length > 0);
  }

  let previous = index!;
  for (const name of CORPUS_NAMES) {
    const r = await cli(['resume', name, '--json', '--dir', mem], home, ws);
    assert.equal(r.code, 0, `resume ${name}: ${r.err}`);
    assert.equal(JSON.parse(r.out).consumed, true);
    assert.ok(!existsSync(path.join(mem, `checkpoint-${name}.md`)), `${name} consumed`);
    assert.ok(trashed(mem).includes(`checkpoint-${name}.md`), `${name} in the trash`);
    const now = readIndex(mem);
    assert.ok(!now.includes(`- **${name}**`), `${name}'s bullet removed`);
    assertIndexKept(previous, now, `resume ${name}`);
    previous = now;
  }
  // No bullet left: the whole section went (heading, bullets, resume line), nothing else.
  assert.equal(readIndex(mem), index!.replace(/\n#{2,3} Active Checkpoints\n[^]*?Resume any: .*\n/i, ''));

  for (const name of CORPUS_NAMES) {
    const r = await cli(['restore', name, '--dir', mem], home, ws);
    assert.equal(r.code, 0, `restore ${name}: ${r.err}`);
    assert.equal(readFileSync(path.join(mem, `checkpoint-${name}.md`), 'utf8'), corpusCheckpoint(name), `${name} back as it was`);
    assert.ok(readIndex(mem).includes(`- **${name}** (`), `${name}'s bullet back`);
    assert.equal(sectionCount(readIndex(mem)), 1);
  }
  for (const name of CORPUS_NAMES) {
    const before = readIndex(mem);
    const r = await cli(['delete', name, '--dir', mem], home, ws);
    assert.equal(r.code, 0, `delete ${name}: ${r.err}`);
    assert.ok(!existsSync(path.join(mem, `checkpoint-${name}.md`)));
    assertIndexKept(before, readIndex(mem), `delete ${name}`);
  }
  assert.equal(readIndex(mem), index!.replace(/\n#{2,3} Active Checkpoints\n[^]*?Resume any: .*\n/i, ''));
});

for (const variant of [
  { index: 'skill.md', crlf: true },
  { index: 'v0.1.0.md' },
  { index: 'v0.1.0.md', crlf: true, bare: true },
  { index: 'both.md' },
  { index: 'both.md', crlf: true, bare: true },
  { index: 'shapes.md' },
  { index: 'shapes.md', crlf: true },
  { index: 'agent-shapes.md' },
  { index: 'agent-shapes.md', crlf: true, bare: true },
]) {
  const label = `${variant.index}${variant.crlf ? ' CRLF' : ''}${variant.bare ? ' without a final newline' : ''}`;
  test(`corpus through the core (${label}): resume, restore, delete keep every byte outside the section and leave one section`, async () => {
    const { home, ws, mem, index } = setup(variant);
    const store = new CheckpointStore({ memoryDir: mem, cwd: ws, allowGit: false, home });
    assert.deepEqual((await store.indexedNames()).sort(), [...CORPUS_NAMES].sort(), 'every bullet is read');
    let previous = index!;
    for (const name of CORPUS_NAMES) {
      const r = await store.resume(name);
      assert.equal(r.checkpoint.name, name);
      const now = readIndex(mem);
      assertIndexKept(previous, now, `resume ${name}`);
      assert.ok(!(await store.indexedNames()).includes(name));
      await store.restoreNamed(name);
      assert.ok((await store.indexedNames()).includes(name), `${name} restored with its bullet`);
      assert.equal(sectionCount(readIndex(mem)), 1);
      await store.delete(name);
      assert.ok(!(await store.indexedNames()).includes(name));
      previous = readIndex(mem);
    }
    const final = readIndex(mem);
    assert.equal(sectionCount(final), 0, 'no bullet left: no section');
    const eol = variant.crlf ? '\r\n' : '\n';
    const expected = {
      'skill.md': ['# Project Memory', '', '## Conventions', '- Run `make check` before pushing.', '- **Never** commit generated files.', '', '## Notes', 'Text that stays byte for byte, trailing spaces too.   ', ''],
      'v0.1.0.md': ['# Memory', '', 'Notes the user keeps above the section.', '', '## Later', '- **Build**: the user\'s own bold bullet, not a checkpoint.', ''],
      'both.md': ['# Project Memory', '', '## Conventions', '- Run `make check` before pushing.', ''],
      'shapes.md': ['# Project Memory', '', '## Conventions', '- Run `make check` before pushing.', ''],
      'agent-shapes.md': ['# Project Memory', '', '## Conventions', '- Run `make check` before pushing.', ''],
    }[variant.index]!.join(eol);
    assert.equal(final, variant.bare ? expected.replace(/\r?\n$/, '') : expected);
    assert.equal(trashed(mem).length, CORPUS_NAMES.length, 'each deleted one is in the trash (the resumed copies were restored from it)');
  });
}

test('saving next to an agent-written index: one section, the agent\'s bullets kept, # Project Memory for a new MEMORY.md', async () => {
  for (const which of CORPUS_INDEXES) {
    const { ws, mem, index } = setup({ index: which });
    const store = new CheckpointStore({ memoryDir: mem, cwd: ws, allowGit: false });
    await store.save({ name: 'ours', leftOff: 'saved by the product' });
    const now = readIndex(mem);
    assert.equal(sectionCount(now), 1, which);
    assert.equal(now.split('Resume any:').length, 2, `${which}: one resume line`);
    // The section under the heading as the agent spelled it (`### Active checkpoints`): updated, never a second one.
    assert.match(now, /^#{2,3} Active Checkpoints\n- \*\*ours\*\* /im);
    assert.deepEqual((await store.indexedNames()).sort(), ['ours', ...CORPUS_NAMES].sort());
    assertIndexKept(index!, now, which);
    assert.ok(now.includes('## Conventions') || which === 'v0.1.0.md');
  }
  const { root, ws } = setup();
  const mem = path.join(root, 'fresh');
  await new CheckpointStore({ memoryDir: mem, cwd: ws, allowGit: false }).save({ name: 'first', leftOff: 'x' });
  assert.match(readIndex(mem), /^# Project Memory\n\n## Active Checkpoints\n- \*\*first\*\* /);
});

test('an agent-written bullet whose file is gone: resume removes it and says so (not "No checkpoint named")', async () => {
  const { home, ws, mem, index } = setup({ index: 'skill.md' });
  rmSync(path.join(mem, 'checkpoint-café-menu.md'));
  const r = await cli(['resume', 'café-menu', '--dir', mem], home, ws);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Checkpoint file missing \(cleaned up stale entry "café-menu"\)/);
  assert.equal(readIndex(mem), index!.replace(/^- \*\*café-menu\*\*.*\n/m, ''));
});

test('lookup: the literal file name first, then the sanitized one', async () => {
  const { ws, mem } = setup();
  const store = new CheckpointStore({ memoryDir: mem, cwd: ws, allowGit: false });
  assert.equal((await store.find('My Feature'))?.path, path.join(mem, 'checkpoint-My Feature.md'));
  assert.equal((await store.find('My-Feature'))?.path, path.join(mem, 'checkpoint-My-Feature.md'));
  // A name typed loosely finds the product's sanitized file when there is no literal one.
  assert.equal((await store.find('DB Migration'))?.path, path.join(mem, 'checkpoint-db-migration.md'));
  // café in the other Unicode normalization (as a macOS file name may spell it).
  assert.equal((await store.find('café-menu'.normalize('NFD')))?.name, 'café-menu');
});

test('lookup never takes a name with "..", NUL or a control character; a "/" only maps through the naming rules', async () => {
  const { root, home, ws, mem } = setup();
  writeFileSync(path.join(root, 'checkpoint-outside.md'), '# Checkpoint: outside\n## Left Off\nnot in the memory folder\n');
  const store = new CheckpointStore({ memoryDir: mem, cwd: ws, allowGit: false });
  for (const bad of ['../outside', '..', 'x\u0000y', 'x\ny', 'tab\there', '\u001b[31m']) {
    await assert.rejects(store.find(bad), CheckpointError, JSON.stringify(bad));
    await assert.rejects(store.delete(bad), CheckpointError, JSON.stringify(bad));
  }
  const r = await cli(['show', '../outside', '--dir', mem], home, ws);
  assert.equal(r.code, 1);
  assert.match(r.err, /not a checkpoint name/);
  assert.equal((await cli(['resume', 'a/b', '--dir', mem], home, ws)).code, 1);
  // "a/b" is the seed's and the product's "a-b": that file, inside the memory folder, and no other.
  writeFileSync(path.join(mem, 'checkpoint-a-b.md'), '# Checkpoint: a-b\n## Left Off\nslash\n');
  assert.equal((await store.find('a/b'))?.path, path.join(mem, 'checkpoint-a-b.md'));
  assert.equal((await store.find('a\\b'))?.path, path.join(mem, 'checkpoint-a-b.md'));
  assert.equal((await cli(['delete', '..', '--dir', mem], home, ws)).code, 1);
  assert.ok(existsSync(path.join(root, 'checkpoint-outside.md')));
});

test('a checkpoint file that is a symbolic link out of the memory folder is never followed', async () => {
  const { root, home, ws, mem } = setup();
  const outside = path.join(root, 'secret.md');
  writeFileSync(outside, '# Checkpoint: secret\n## Left Off\nprivate\n');
  symlinkSync(outside, path.join(mem, 'checkpoint-Linked Out.md'));
  symlinkSync(path.join(mem, 'checkpoint-db-migration.md'), path.join(mem, 'checkpoint-Linked In.md'));
  const store = new CheckpointStore({ memoryDir: mem, cwd: ws, allowGit: false });
  await assert.rejects(store.show('Linked Out'), /symbolic link/);
  await assert.rejects(store.resume('Linked Out'), /symbolic link/);
  const r = await cli(['show', 'Linked Out', '--dir', mem], home, ws);
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.out, /private/);
  assert.ok(existsSync(outside));
});

test('resume without a name: the only Markdown checkpoint, whatever JSON history lies beside it', async () => {
  const { home, ws, mem } = folders();
  mkdirSync(mem);
  writeFileSync(path.join(mem, 'checkpoint-fix:-login.md'), corpusCheckpoint('fix:-login'));
  const history = path.join(ws, '.claude', 'checkpoints');
  mkdirSync(history, { recursive: true });
  for (const ts of ['20261120T100000Z', '20261121T100000Z']) {
    writeFileSync(path.join(history, `${ts}.json`), JSON.stringify({ timestamp: '2026-11-20T10:00:00Z', summary: 'old history', decisions: [], next_action: 'x', blockers: [], context: {} }));
  }
  assert.equal(JSON.parse((await cli(['list', '--json', '--dir', mem], home, ws)).out).length, 3, 'the JSON history is listed');
  const r = await cli(['resume', '--json', '--dir', mem], home, ws);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual([JSON.parse(r.out).name, JSON.parse(r.out).consumed], ['fix:-login', true]);
  assert.equal(readdirSync(history).length, 2, 'history untouched');
  // Only history left: nothing is resumed on its own; the history is offered by name.
  const history2 = await cli(['resume', '--dir', mem], home, ws);
  assert.equal(history2.code, 1);
  assert.match(history2.err, /name one/);
  rmSync(history, { recursive: true });
  const none = await cli(['resume', '--dir', mem], home, ws);
  assert.equal(none.code, 1);
  assert.match(none.err, /No saved checkpoints found\./);
});

test('a plan written as ~/… is one plan with its absolute form: a plan under the home folder saved as ~/…, read expanded, live step read', async () => {
  const { home, ws, mem } = setup();
  const plan = FIX_LOGIN_PLAN(home);
  // The agent's form, quoted so no shell expands it.
  const saved = await cli(['save', 'tilde', '--plan', '~/.claude/plans/fix-login.md', '--left-off', 'x', '--dir', mem], home, ws);
  assert.equal(saved.code, 0, saved.err);
  assert.doesNotMatch(saved.err, /not found/);
  // Written as the seed writes it, `~/…`, so that a checkpoint pulled on another machine finds the plan there.
  assert.match(readFileSync(path.join(mem, 'checkpoint-tilde.md'), 'utf8'), /^plan: ~\/\.claude\/plans\/fix-login\.md$/m);
  assert.match(readFileSync(path.join(mem, 'checkpoint-tilde.md'), 'utf8'), /^- \*\*Plan:\*\* `~\/\.claude\/plans\/fix-login\.md`/m);
  assert.equal((await cli(['save', 'absolute', '--plan', plan, '--left-off', 'y', '--dir', mem], home, ws)).code, 0);
  assert.match(readFileSync(path.join(mem, 'checkpoint-absolute.md'), 'utf8'), /^plan: ~\/\.claude\/plans\/fix-login\.md$/m);
  const items = JSON.parse((await cli(['list', '--json', '--dir', mem], home, ws)).out) as { name: string; plan: string | null; planStep: number | null }[];
  const byPlan = new Map<string, string[]>();
  for (const i of items) if (i.plan) byPlan.set(i.plan, [...(byPlan.get(i.plan) ?? []), i.name]);
  assert.deepEqual(byPlan.get(plan)?.sort(), ['My Feature', 'absolute', 'fix:-login', 'tilde'], 'one plan whatever form its path was written in');
  // Resume gives the plan as a path that opens.
  const store = new CheckpointStore({ memoryDir: mem, cwd: ws, allowGit: false, home });
  const r = await store.resume('fix:-login', { keep: true });
  assert.equal(r.checkpoint.plan, plan);
  assert.ok(existsSync(r.checkpoint.plan!));
});
