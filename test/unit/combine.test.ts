import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseCheckpoint } from '../../src/core/checkpointParse';
import { renderCheckpoint } from '../../src/core/checkpointRender';
import type { Checkpoint } from '../../src/core/checkpoint';
import { combine, combineCheckpoints } from '../../src/core/combine';
import { CheckpointError } from '../../src/core/errors';
import { CheckpointStore } from '../../src/core/store';
import { tempDirs } from '../support/fixtures';

const temp = tempDirs();

function cp(name: string, saved: string, fields: Partial<Checkpoint> = {}): Checkpoint {
  return {
    name,
    description: fields.leftOff ?? `left off in ${name}`,
    branch: 'main',
    saved,
    leftOff: `left off in ${name}`,
    done: [],
    failed: [],
    decisions: [],
    questions: [],
    modifiedFiles: [],
    ...fields,
  };
}

const T1 = '2026-11-20T10:00:00.000Z';
const T2 = '2026-11-21T10:00:00.000Z';
const T3 = '2026-11-22T10:00:00.000Z';
const NOW = '2026-11-25T12:00:00.000Z';

interface MergeCase {
  name: string;
  sources: Checkpoint[];
  expect: Partial<Checkpoint>;
}

const cases: MergeCase[] = [
  {
    name: 'duplicates across sources appear once, newest source first, each source order kept',
    sources: [
      cp('a', T1, { done: ['wrote parser', 'added tests'], modifiedFiles: ['src/a.ts', 'src/b.ts'], decisions: ['use zod'] }),
      cp('b', T2, { done: ['added tests', 'fixed lint'], modifiedFiles: ['src/b.ts', 'src/c.ts'], decisions: ['use zod', 'no cache'] }),
    ],
    expect: {
      leftOff: 'b: left off in b\na: left off in a',
      done: ['added tests', 'fixed lint', 'wrote parser'],
      modifiedFiles: ['src/b.ts', 'src/c.ts', 'src/a.ts'],
      decisions: ['use zod', 'no cache'],
    },
  },
  {
    name: 'conflicting entries: branch and plan come from the newest source whatever the order named; Left Off lists every source’s, newest first',
    sources: [
      cp('new', T3, { leftOff: 'token refresh works; wire the UI', branch: 'feature/ui' }),
      cp('old', T1, { leftOff: 'token refresh still failing', branch: 'feature/oauth', plan: '/plans/auth.md', planStep: 2, planSteps: 5 }),
      cp('mid', T2, { branch: 'main', plan: '/plans/ui.md', planStep: 4, planSteps: 6 }),
    ],
    expect: {
      leftOff: 'new: token refresh works; wire the UI\nmid: left off in mid\nold: token refresh still failing',
      description: 'new: token refresh works; wire the UI',
      branch: 'feature/ui',
      plan: '/plans/ui.md',
      planStep: 4,
      planSteps: 6,
      sources: [
        { name: 'new', saved: T3, branch: 'feature/ui' },
        { name: 'old', saved: T1, branch: 'feature/oauth', planStep: 2, planSteps: 5 },
        { name: 'mid', saved: T2, branch: 'main', planStep: 4, planSteps: 6 },
      ],
    },
  },
  {
    name: 'every source’s failed approaches are kept (the seed’s “tried and ruled out”)',
    sources: [
      cp('a', T1, { failed: ['cookies — SameSite blocks the callback', 'polling — too slow'] }),
      cp('b', T2, { failed: ['localStorage — XSS exposure', 'polling — too slow'] }),
    ],
    expect: { failed: ['localStorage — XSS exposure', 'polling — too slow', 'cookies — SameSite blocks the callback'] },
  },
  {
    name: 'missing sections stay empty and a source without any says nothing',
    sources: [cp('a', T1, { leftOff: '' }), cp('b', T1, { questions: ['rotate keys?'] })],
    expect: { leftOff: 'b: left off in b', description: 'b: left off in b', done: [], failed: [], decisions: [], questions: ['rotate keys?'], modifiedFiles: [] },
  },
  {
    name: 'equal saved times: the first named is the newest; a capped list’s “… and N more” is not a path',
    sources: [cp('x', T2, { leftOff: 'from x', modifiedFiles: ['a.ts', '… and 3 more'] }), cp('y', T2, { leftOff: 'from y', modifiedFiles: ['b.ts'] })],
    expect: { leftOff: 'x: from x\ny: from y', modifiedFiles: ['a.ts', 'b.ts'] },
  },
];

for (const c of cases) {
  test(`merge: ${c.name}`, () => {
    const out = combineCheckpoints('merged', c.sources, NOW);
    for (const [key, value] of Object.entries(c.expect)) assert.deepEqual(out[key as keyof Checkpoint], value, key);
    assert.equal(out.saved, NOW);
    assert.deepEqual(
      out.sources?.map((s) => s.name),
      c.sources.map((s) => s.name),
      'sources in the order named',
    );
  });
}

test('merge: fewer than two sources is refused', () => {
  assert.throws(() => combineCheckpoints('m', [cp('a', T1)], NOW), CheckpointError);
});

test('sources render into front matter and a table, and parse back', () => {
  const out = combineCheckpoints('merged', [cp('a', '2026-11-20T10:00:00.000Z', { branch: 'feature/x|y' }), cp('b-2', '2026-11-21T10:07:00.000Z', { branch: '', plan: '/p.md', planStep: 3, planSteps: 7 })], NOW);
  const text = renderCheckpoint(out);
  assert.match(text, /\nsources: \[a, b-2\]\n---\n/);
  assert.match(text, /## Modified Files\nNone\n## Sources\n\| Name \| Saved \| Branch \| Plan step \|\n\| --- \| --- \| --- \| --- \|\n\| a \| \d{4}-\d\d-\d\d \d\d:\d\d \| feature\/x\\\|y \| — \|\n\| b-2 \| [^|]+ \| \(none\) \| step 3 of 7 \|\n$/);
  const back = parseCheckpoint(text, 'merged');
  assert.deepEqual(back, out);
  assert.equal(renderCheckpoint(back), text);
});

test('source names that YAML would misread are quoted in front matter', () => {
  const names = ['2026-01-01', 'true', 'fix:-login', 'a,b', 'café-menu', '1.5'];
  const out = combineCheckpoints('m', names.map((n, i) => cp(n, `2026-11-2${i}T10:00:00.000Z`)), NOW);
  const back = parseCheckpoint(renderCheckpoint(out), 'm');
  assert.deepEqual(back.sources?.map((s) => s.name), names);
});

test('hand-written sources: a table without front matter is read; front matter names without a table too', () => {
  const table = ['# Checkpoint: merged', '## Left Off', 'x', '## Sources', '| Name | Saved | Branch | Plan step |', '|---|---|---|---|', '| one | 2026-11-20 10:00 | `main` | step 1 of 2 |', '| two | — | dev | — |', ''].join('\n');
  const a = parseCheckpoint(table, 'merged');
  assert.deepEqual(a.sources?.map((s) => [s.name, s.branch, s.planStep]), [['one', 'main', 1], ['two', 'dev', undefined]]);
  assert.equal(a.sources?.[1].saved, '');
  const fmOnly = parseCheckpoint('---\nname: m\nsources: [one, two]\n---\n# Checkpoint: m\n## Left Off\nx\n', 'm');
  assert.deepEqual(fmOnly.sources, [{ name: 'one', saved: '', branch: '' }, { name: 'two', saved: '', branch: '' }]);
  // Front matter whose sources are no list is skipped with the reason; the body is read.
  assert.match(parseCheckpoint('---\nname: m\nsources: {a: 1}\n---\n# Checkpoint: m\n', 'm').frontMatterSkipped ?? '', /sources must be a list/);
  assert.equal(parseCheckpoint(renderCheckpoint(cp('plain', T1)), 'plain').sources, undefined);
});

// ---- against a memory directory ----------------------------------------------------------------------------

async function withStore(fn: (store: CheckpointStore, mem: string, setNow: (iso: string) => void) => Promise<void>): Promise<void> {
  const root = temp();
  const mem = path.join(root, 'mem');
  let now = T1;
  const store = new CheckpointStore({ memoryDir: mem, cwd: root, allowGit: false, now: () => new Date(now) });
  await fn(store, mem, (iso) => (now = iso));
}

async function seed(store: CheckpointStore, setNow: (iso: string) => void): Promise<void> {
  setNow(T1);
  await store.save({ name: 'alpha', leftOff: 'alpha stopped here', done: ['a1', 'shared'], failed: ['fa'], git: { branch: 'feature/a', modifiedFiles: ['a.ts'] } });
  setNow(T2);
  await store.save({ name: 'beta', leftOff: 'beta stopped here', done: ['shared', 'b1'], failed: ['fb'], git: { branch: 'main', modifiedFiles: ['b.ts', 'a.ts'] } });
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

test('combine writes an ordinary checkpoint with its index bullet; the sources stay', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    setNow(NOW);
    const r = await combine(store, 'Hand Off', ['alpha', 'beta']);
    assert.equal(r.path, path.join(mem, 'checkpoint-hand-off.md'));
    const back = await store.show('hand-off');
    assert.equal(back.leftOff, 'beta: beta stopped here\nalpha: alpha stopped here');
    assert.equal(back.branch, 'main');
    assert.deepEqual(back.done, ['shared', 'b1', 'a1']);
    assert.deepEqual(back.failed, ['fb', 'fa']);
    assert.deepEqual(back.modifiedFiles, ['b.ts', 'a.ts']);
    assert.deepEqual(back.sources?.map((s) => [s.name, s.branch]), [['alpha', 'feature/a'], ['beta', 'main']]);
    const index = readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');
    assert.match(index, /- \*\*hand-off\*\* \(main, [A-Z][a-z]{2} \d\d\) — beta: beta stopped here/);
    assert.match(index, /\*\*alpha\*\*/);
    assert.ok(existsSync(path.join(mem, 'checkpoint-alpha.md')) && existsSync(path.join(mem, 'checkpoint-beta.md')));
    assert.deepEqual(r.trashedSources, []);
  });
});

test('combine: the same inputs give the same bytes except the saved time', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    setNow(NOW);
    await combine(store, 'one', ['alpha', 'beta']);
    setNow('2026-11-26T08:30:00.000Z');
    await combine(store, 'two', ['alpha', 'beta']);
    const strip = (f: string): string =>
      readFileSync(path.join(mem, f), 'utf8')
        .replace(/^saved: .*$/m, 'saved: X')
        .replace(/^- \*\*Saved:\*\* .*$/m, '- **Saved:** X')
        .replace(/\b(one|two)\b/g, 'N');
    assert.equal(strip('checkpoint-one.md'), strip('checkpoint-two.md'));
  });
});

test('combine over an existing name moves the old one to the trash first; --trash-sources trashes the sources', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    await store.save({ name: 'merged', leftOff: 'the previous merged', git: { branch: 'main', modifiedFiles: [] } });
    setNow(NOW);
    const r = await combine(store, 'merged', ['alpha', 'beta'], { trashSources: true });
    assert.ok(r.replaced && readFileSync(r.replaced, 'utf8').includes('the previous merged'), 'previous version in the trash');
    assert.equal(r.trashedSources.length, 2);
    assert.ok(!existsSync(path.join(mem, 'checkpoint-alpha.md')) && !existsSync(path.join(mem, 'checkpoint-beta.md')));
    const index = readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');
    assert.doesNotMatch(index, /\*\*alpha\*\*|\*\*beta\*\*/);
    assert.match(index, /\*\*merged\*\*.*beta stopped here/);
    assert.deepEqual((await store.list()).map((c) => c.name), ['merged']);
  });
});

test('combine into one of its own sources replaces it (trashed first) and still reads it', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    setNow(NOW);
    const r = await combine(store, 'alpha', ['alpha', 'beta'], { trashSources: true });
    assert.ok(r.replaced);
    assert.deepEqual((await store.show('alpha')).done, ['shared', 'b1', 'a1']);
    assert.ok(!existsSync(path.join(mem, 'checkpoint-beta.md')));
  });
});

const refusals: { name: string; names: string[]; error: RegExp }[] = [
  { name: 'an unknown name', names: ['alpha', 'nope'], error: /No checkpoint named "nope".*Checkpoints you can combine: alpha, beta\./ },
  { name: 'one source', names: ['alpha'], error: /at least two different checkpoints \(got 1\).*alpha, beta/ },
  { name: 'the same source twice', names: ['alpha', 'alpha'], error: /at least two different checkpoints \(got 1\)/ },
  { name: 'a name with a path separator', names: ['alpha', '../beta'], error: /No checkpoint named "\.\.\/beta"/ },
  { name: 'no names', names: [], error: /got 0/ },
];
for (const r of refusals) {
  test(`combine refuses ${r.name}, naming the valid checkpoints, and writes nothing`, async () => {
    await withStore(async (store, mem, setNow) => {
      await seed(store, setNow);
      const before = snapshot(mem);
      await assert.rejects(combine(store, 'merged', r.names, { trashSources: true }), (err: Error) => err instanceof CheckpointError && r.error.test(err.message));
      assert.deepEqual(snapshot(mem), before);
    });
  });
}

test('combine looks names up with the core rule: a name the product writes may hold ".." (v1..2), a path never', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    setNow(T3);
    // As Checkpoint 0.2.0 wrote it (names written now never hold ".."): still found by its name.
    writeFileSync(path.join(mem, 'checkpoint-v1..2.md'), renderCheckpoint({ ...cp('v1..2', T3), leftOff: 'dots in the name' }));
    setNow(NOW);
    const r = await combine(store, 'merged', ['alpha', 'v1..2']);
    assert.deepEqual(r.checkpoint.sources?.map((c) => c.name), ['alpha', 'v1..2']);
    assert.deepEqual(r.sourcePaths, [path.join(mem, 'checkpoint-alpha.md'), path.join(mem, 'checkpoint-v1..2.md')]);
    await assert.rejects(combine(store, 'other', ['alpha', '../mem/checkpoint-beta']), /No checkpoint named "\.\.\/mem\/checkpoint-beta"/);
  });
});

test('combine refuses an unreadable source with the reason and writes nothing', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    writeFileSync(path.join(mem, 'checkpoint-broken.md'), '---\nsaved: [unclosed\n---\n');
    const before = snapshot(mem);
    await assert.rejects(combine(store, 'merged', ['alpha', 'broken']), /unreadable: invalid front matter/);
    assert.deepEqual(snapshot(mem), before);
  });
});

test('combine reads hand-written sources (no front matter)', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    mkdirSync(mem, { recursive: true });
    writeFileSync(
      path.join(mem, 'checkpoint-agent.md'),
      ['# Checkpoint: agent', '- **Branch:** `feature/agent`', '- **Saved:** 2026-11-24 09:15', '## Left Off', 'Agent stopped mid-refactor', '## Done This Session', '- b1', '- agent work', '## Failed Approaches', '- regex parser — too slow', ''].join('\n'),
    );
    setNow(NOW);
    await combine(store, 'merged', ['beta', 'agent']);
    const back = await store.show('merged');
    assert.equal(back.leftOff, 'agent: Agent stopped mid-refactor\nbeta: beta stopped here');
    assert.equal(back.branch, 'feature/agent');
    assert.deepEqual(back.done, ['b1', 'agent work', 'shared']);
    assert.deepEqual(back.failed, ['regex parser — too slow', 'fb']);
    assert.deepEqual(back.sources?.map((s) => [s.name, s.branch]), [['beta', 'main'], ['agent', 'feature/agent']]);
  });
});

test('merge: Left Off keeps where each source left off, newest first, each under its name (a multi-line one as one line; none: None)', () => {
  const out = combineCheckpoints('merged', [cp('old', T1, { leftOff: 'parser half done\nnext: the lexer' }), cp('empty', T3, { leftOff: '' }), cp('new', T2, { leftOff: 'UI wired' })], NOW);
  assert.equal(out.leftOff, 'new: UI wired\nold: parser half done next: the lexer');
  assert.equal(combineCheckpoints('merged', [cp('a', T1, { leftOff: '' }), cp('b', T2, { leftOff: ' ' })], NOW).leftOff, '');
});

test('combine refuses a source over the size show and resume refuse: nothing cut, nothing written, nothing trashed', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    const big = path.join(mem, 'checkpoint-beta.md');
    const items = Array.from({ length: 120_000 }, (_, i) => `- done item number ${i} of a very long session`).join('\n');
    writeFileSync(big, `${readFileSync(big, 'utf8').replace('## Done This Session', `## Done This Session\n${items}`)}`);
    const before = snapshot(mem);
    await assert.rejects(combine(store, 'hand-off', ['alpha', 'beta'], { trashSources: true }), (err: Error) => {
      assert.ok(err instanceof CheckpointError);
      assert.match(err.message, /checkpoint-beta\.md.*bytes/);
      return true;
    });
    assert.deepEqual(snapshot(mem), before, 'nothing written, nothing trashed');
  });
});

test('a source saved again while combine runs is not trashed: the combination held only its old version, and nothing is written', async () => {
  await withStore(async (store, mem, setNow) => {
    await seed(store, setNow);
    const saveCombined = store.saveCombined.bind(store);
    // Between combine's read of the sources and its write, an agent saves beta again.
    store.saveCombined = async (...args) => {
      setNow(T3);
      await store.save({ name: 'beta', leftOff: 'beta moved on', force: true, git: { branch: 'main', modifiedFiles: [] } });
      return saveCombined(...args);
    };
    await assert.rejects(combine(store, 'hand-off', ['alpha', 'beta'], { trashSources: true }), /saved again while it was being combined/);
    assert.equal((await store.show('beta')).leftOff, 'beta moved on', 'the new version is live');
    assert.equal((await store.show('alpha')).leftOff, 'alpha stopped here', 'the other source stays too');
    assert.ok(!existsSync(path.join(mem, 'checkpoint-hand-off.md')));
  });
});

test('a combination larger than show and resume accept is refused before anything is written; --trash-sources trashes nothing', async () => {
  const mem = temp();
  mkdirSync(mem, { recursive: true });
  const store = new CheckpointStore({ memoryDir: mem, cwd: mem });
  // Two sources of ≈2.6 MB each: each readable (under 4 MB), their merged lists not.
  const big = (tag: string): string[] => Array.from({ length: 26_000 }, (_, i) => `${tag} step ${i} ${'x'.repeat(80)}`);
  writeFileSync(path.join(mem, 'checkpoint-big-a.md'), renderCheckpoint(cp('big-a', T1, { done: big('a') })));
  writeFileSync(path.join(mem, 'checkpoint-big-b.md'), renderCheckpoint(cp('big-b', T2, { done: big('b') })));
  const before = readdirSync(mem).sort();
  await assert.rejects(combine(store, 'both', ['big-a', 'big-b'], { trashSources: true }), /would be \d+ bytes, more than the 4194304 bytes .* nothing was written and no source was trashed/);
  assert.deepEqual(readdirSync(mem).sort(), before);
  assert.ok((await store.show('big-a')).done.length > 0, 'each source is still readable');
});
