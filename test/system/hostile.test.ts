// Hostile input: names, files in the memory directory and the workspace, and repositories. Through the CLI
// (separate processes, exit codes per SPEC) and through the core (what the extension calls).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  CLI_MODULE, checkpointText, finished, git, mapLimit, snapshotTree, workspace, type ProcessResult, type Workspace,
} from '../support/fixtures';
import { CheckpointStore } from '../../src/core/store';
import { CheckpointError } from '../../src/core/errors';
import { readBranch, switchBranch } from '../../src/core/git';
import { readActivePlan } from '../../src/core/jsonCheckpoints';
import { readPlanProgress, resolvePlansDir } from '../../src/core/plans';
import { hasSeparator, isLookupName, MAX_NAME_LENGTH } from '../../src/core/names';

interface World extends Workspace {
  /** A folder beside the workspace holding `secret.md`: nothing may ever be written or read there. */
  outside: string;
}

/** A workspace (repository, home folder, memory directory not created yet) and an "outside" folder. */
function world(opts: { commit?: boolean } = {}): World {
  const ws = workspace(opts);
  const outside = path.join(ws.root, 'outside');
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.md'), 'secret\n');
  return { ...ws, outside };
}

/**
 * What a save writes outside the memory directory on purpose: the code snapshot's objects and its refs under
 * refs/checkpoints/ in the repository, and its snapshot index in .git. Nothing else may change.
 */
const MEMORY_AND_SNAPSHOTS = [
  'mem',
  path.join('repo', '.git', 'objects'),
  path.join('repo', '.git', 'refs', 'checkpoints'),
  path.join('repo', '.git', 'checkpoint-snapshot-index'),
  path.join('repo', '.git', 'checkpoint-snapshot-index.json'),
];

/** CLI processes run at once where their order does not matter. */
const PARALLEL = 4;
const json = (r: ProcessResult): any => JSON.parse(r.out); // eslint-disable-line @typescript-eslint/no-explicit-any
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

// ---- names ---------------------------------------------------------------------------------------------------

/** Names that sanitize to something usable: saved, but only ever as `<memory dir>/checkpoint-<name>.md`. */
export const USABLE_NAMES = [
  '../../escape',
  '../../../../../../etc/passwd',
  '/etc/passwd',
  '/tmp/absolute',
  'a/../../b',
  '..\\..\\windows\\system32',
  'C:\\Windows\\System32\\drivers',
  '\\\\server\\share\\x',
  'red\u001b[31mcolour\u0007bell',
  'tab\there',
  'new\nline',
  'nul-less\u0001\u0002ctrl',
  '🔥fire🔥',
  'x'.repeat(1000),
  'CONSOLE',
  'trailing.',
  'trailing ',
  '.hidden',
  '...dots',
  'MiXeD Case Name',
  'İstanbul',
  '%2e%2e%2fencoded',
  'file:///etc/passwd',
  // Letters of every script are kept (NFC).
  '中文',
  'Жж',
];
/** Names that sanitize to nothing: refused with exit 1, nothing written. */
export const REFUSED_NAMES = ['.', '..', '...', ' ', '/', '\\', '..\\..', './.', '🔥🚀', '\u0001\u0002', '.-.-', '\u202e', '\u200b\u200d'];
/** Device names Windows reserves, whatever their extension: no save writes one. */
const RESERVED_NAMES = ['CON', 'NUL', 'aux', 'COM1', 'LPT9', 'con.txt'];
/** A checkpoint file name the product writes: no separator, control, space or character Windows refuses. */
// eslint-disable-next-line no-control-regex -- the controls a file name must not hold
const WRITTEN_FILE = /^checkpoint-[^\s/\\:*?"<>|\u0000-\u001f\u007f-\u009f]+(?:~\d+)?\.md$/;
/** Names the command line reads as options: bad usage, exit 2. */
const OPTION_NAMES = ['-x', '--evil', '-rf'];

test(`hostile names through the CLI (${USABLE_NAMES.length} usable, ${REFUSED_NAMES.length} refused, ${OPTION_NAMES.length} option-like): never a write outside the memory directory`, async () => {
  const w = world();
  try {
    const before = snapshotTree(w.root, MEMORY_AND_SNAPSHOTS);
    // Refused: exit 1, a clear message without raw control characters, and nothing written at all.
    const refusals = REFUSED_NAMES.flatMap((name) => [['save', name, '--left-off', 'x'], ['show', name], ['resume', name], ['delete', name]]);
    await mapLimit(refusals, PARALLEL, async (args) => {
      const r = await w.cli(args);
      const name = args[1];
      assert.equal(r.code, 1, `${args[0]} ${JSON.stringify(name)}: ${r.err}`);
      // A blank name to resume means "no name": the only checkpoint (there is none here).
      if (args[0] === 'resume' && name.trim() === '') assert.match(r.err, /No saved checkpoints found/);
      // A name that leads nowhere (a path separator, "..", a control character) is never looked up (SPEC).
      else if (args[0] !== 'save' && !isLookupName(name)) assert.match(r.err, /is not a checkpoint name: a name has no "\.\.", NUL or control character/);
      else assert.match(r.err, /is not a usable checkpoint name: use letters or digits/);
      assert.doesNotMatch(r.err, CONTROL);
      assert.equal(r.out, '');
    });
    await mapLimit(RESERVED_NAMES, PARALLEL, async (name) => {
      const r = await w.cli(['save', name, '--left-off', 'x']);
      assert.equal(r.code, 1, `save ${name}`);
      assert.match(r.err, /is a device name Windows reserves/);
    });
    await mapLimit(OPTION_NAMES, PARALLEL, async (name) => {
      const r = await w.cli(['save', name]);
      assert.equal(r.code, 2, `save ${name} is bad usage`);
    });
    assert.equal(existsSync(w.mem), false, 'refusals create nothing, not even the memory directory');

    // Usable: saved inside the memory directory under a sanitized name; shown and deleted there too.
    const saved = new Set<string>();
    await mapLimit(USABLE_NAMES, PARALLEL, async (name) => {
      const r = await w.cli(['save', '--force', '--left-off', 'hostile', '--json', '--', name]);
      assert.equal(r.code, 0, `save ${JSON.stringify(name)}: ${r.err}`);
      const p = json(r).path as string;
      assert.equal(path.dirname(p), w.mem, JSON.stringify(name));
      assert.match(path.basename(p), WRITTEN_FILE);
      assert.ok([...(json(r).name as string)].length <= MAX_NAME_LENGTH, 'at most 64 characters');
      assert.doesNotMatch(json(r).name, /\.\./);
      assert.doesNotMatch(json(r).name, /^[.-]/);
      saved.add(json(r).name);
      // Shown by that name, unless it is one that is never looked up (a path separator, "..", a control character).
      assert.equal((await w.cli(['show', '--json', '--', name])).code, isLookupName(name) ? 0 : 1, `show ${JSON.stringify(name)}`);
      assert.equal((await w.cli(['show', '--json', '--', json(r).name])).code, 0);
    });
    assert.deepEqual(
      // (.trash: names that sanitize alike were saved over each other with --force, and no save destroys a checkpoint.)
      readdirSync(w.mem).filter((e) => e !== 'MEMORY.md' && e !== '.trash').sort(),
      [...saved].map((n) => `checkpoint-${n}.md`).sort(),
      'only checkpoint files and MEMORY.md in the memory directory',
    );
    for (const name of USABLE_NAMES.slice(0, 8)) {
      const r = await w.cli(['delete', '--', name]);
      assert.ok(r.code === 0 || /No checkpoint named|is not a checkpoint name/.test(r.err), `delete ${JSON.stringify(name)}: ${r.err}`);
    }
    assert.deepEqual(snapshotTree(w.root, MEMORY_AND_SNAPSHOTS), before, 'nothing outside the memory directory changed');
    for (const day of readdirSync(path.join(w.mem, '.trash'))) {
      for (const f of readdirSync(path.join(w.mem, '.trash', day))) assert.match(f, WRITTEN_FILE);
    }
  } finally {
    w.done();
  }
});

test('hostile names through the core: saved inside the memory directory, or refused with CheckpointError', async () => {
  const w = world();
  try {
    const before = snapshotTree(w.root, MEMORY_AND_SNAPSHOTS);
    const store = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo });
    for (const name of [...USABLE_NAMES, 'a\u0000b', 'nuls\u0000\u0000']) {
      const r = await store.save({ name, leftOff: 'x', force: true });
      assert.equal(path.dirname(r.path), w.mem);
      assert.equal(path.dirname(store.pathFor(name)), w.mem);
    }
    for (const name of [...RESERVED_NAMES, 'nul\u0000\u0000']) await assert.rejects(store.save({ name, leftOff: 'x' }), /device name Windows reserves/);
    for (const name of [...REFUSED_NAMES, '', '\u0000']) {
      await assert.rejects(store.save({ name, leftOff: 'x' }), CheckpointError, JSON.stringify(name));
      await assert.rejects(store.delete(name), CheckpointError);
      await assert.rejects(store.resume(name), CheckpointError);
      // A name an agent may have written literally (`checkpoint-中文.md`) has its file inside; any other is refused.
      // A `/` maps only through the product's rule, which may leave nothing: then it is refused too.
      // (`\\` is a file name's character outside Windows: `checkpoint-\\.md` is an agent's file in the folder.)
      if (isLookupName(name) && !hasSeparator(name)) assert.equal(path.dirname(store.pathFor(name)), w.mem);
      else assert.throws(() => store.pathFor(name), CheckpointError);
    }
    // Undo only ever moves a file from the memory directory's trash.
    for (const p of [path.join(w.outside, 'checkpoint-secret.md'), path.join(w.mem, '.trash', '..', '..', 'outside', 'checkpoint-x.md'), '/etc/passwd']) {
      await assert.rejects(store.restore(p), CheckpointError, p);
    }
    assert.deepEqual(snapshotTree(w.root, MEMORY_AND_SNAPSHOTS), before);
  } finally {
    w.done();
  }
});

// ---- hostile files -------------------------------------------------------------------------------------------

/** Front matter that would run code if an engine evaluated it. */
function codeFrontMatter(marker: string): Record<string, string> {
  const payload =
    `(function () { try { require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); } catch (e) {}` +
    ` try { process.mainModule.require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); } catch (e) {}` +
    ` globalThis.__checkpointPwned = true; return { name: 'pwned', description: 'pwned' }; })()`;
  const body = '# Checkpoint: evil\n## Left Off\nx\n';
  const yamlFn = `function () { require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'); }`;
  return {
    'evil-js': `---js\n${payload}\n---\n${body}`,
    'evil-javascript': `---javascript\n${payload}\n---\n${body}`,
    'evil-upper': `---JavaScript\n${payload}\n---\n${body}`,
    'evil-spaced': `--- js \n${payload}\n---\n${body}`,
    'evil-crlf': `---js\r\n${payload}\r\n---\r\n${body}`,
    'evil-coffee': `---coffee\n${payload}\n---\n${body}`,
    'evil-cson': `---cson\n${payload}\n---\n${body}`,
    'evil-yaml-function': `---\nname: !!js/function >\n  ${yamlFn}\n---\n${body}`,
    'evil-yaml-undefined': `---\nname: !!js/undefined ''\n---\n${body}`,
    'evil-yaml-regexp': `---\nname: !!js/regexp /(a+)+$/\n---\n${body}`,
    'evil-bom': `\ufeff---js\n${payload}\n---\n${body}`,
  };
}

test('---js / ---javascript (and other code) front matter never executes: skipped, the file read by its body; list, show, resume, via the CLI and the core', async () => {
  const w = world();
  const marker = path.join(w.outside, 'code-ran');
  try {
    mkdirSync(w.mem);
    const evil = codeFrontMatter(marker);
    for (const [name, text] of Object.entries(evil)) writeFileSync(path.join(w.mem, `checkpoint-${name}.md`), text);
    writeFileSync(path.join(w.mem, 'checkpoint-good.md'), checkpointText('good'));

    const list = await w.cli(['list', '--json']);
    assert.equal(list.code, 0, list.err);
    const items = json(list) as { name: string; unreadable: string | null; description: string }[];
    await mapLimit(Object.keys(evil), PARALLEL, async (name) => {
      const item = items.find((i) => i.name === name) as { unreadable: string | null; description: string; frontMatterSkipped: string | null } | undefined;
      assert.ok(item && item.unreadable === null && item.frontMatterSkipped, `${name} listed, its front matter skipped`);
      assert.notEqual(item.description, 'pwned');
      const show = await w.cli(['show', name]);
      assert.equal(show.code, 0, `show ${name}`);
      assert.match(show.err, /front matter skipped/);
      assert.equal((await w.cli(['resume', name, '--keep'])).code, 0, `resume ${name}`);
    });
    for (const name of ['evil-js', 'evil-javascript', 'evil-upper', 'evil-spaced', 'evil-crlf', 'evil-bom', 'evil-coffee', 'evil-cson']) {
      assert.match((items.find((i) => i.name === name) as { frontMatterSkipped?: string }).frontMatterSkipped ?? '', /never executed/, name);
    }

    const store = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo });
    await store.list();
    for (const name of Object.keys(evil)) {
      assert.ok((await store.show(name)).frontMatterSkipped, name);
      assert.ok((await store.resume(name, { keep: true })).checkpoint.frontMatterSkipped, name);
      // Without a body to read, it is unreadable, and no code runs either.
      const bare = path.join(w.mem, `checkpoint-${name}-bare.md`);
      writeFileSync(bare, evil[name].replace(/# Checkpoint: evil[^]*$/, 'notes\n'));
      await assert.rejects(store.show(`${name}-bare`), CheckpointError);
      rmSync(bare);
    }
    assert.equal((globalThis as { __checkpointPwned?: boolean }).__checkpointPwned, undefined, 'no code ran in this process');
    assert.equal(existsSync(marker), false, 'no code ran in any process');
    for (const [name, text] of Object.entries(evil)) assert.equal(readFileSync(path.join(w.mem, `checkpoint-${name}.md`), 'utf8'), text);
  } finally {
    w.done();
  }
});

/**
 * Files that are not checkpoints: each must be listed as unreadable and never be rewritten or moved. (Front matter
 * that does not parse above a checkpoint's body is skipped and the body read: these have no such body.)
 */
function unreadableFiles(): Record<string, Buffer> {
  const b = (s: string): Buffer => Buffer.from(s, 'utf8');
  const nested = ['a: &a [x, x, x, x, x, x, x, x, x]'];
  for (let i = 0; i < 8; i++) nested.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`);
  return {
    'yaml-unclosed-flow': b('---\nname: [unclosed\n---\nnotes\n'),
    'yaml-bad-indent': b('---\nname: x\n  branch: : :\n---\nnotes\n'),
    'yaml-list': b('---\n- a\n- b\n---\nnotes\n'),
    'yaml-bad-date': b('---\nsaved: not a date\n---\nnotes\n'),
    'yaml-negative-step': b('---\nplan: p.md\nplanStep: -3\nplanSteps: 2\n---\nnotes\n'),
    'yaml-duplicate-key': b('---\nname: a\nname: b\n---\nnotes\n'),
    // "Billion laughs": 9^9 strings if expanded; as a description it must fail fast, not expand.
    'yaml-alias-bomb': b(`---\n${nested.join('\n')}\ndescription: *i\n---\nnotes\n`),
    'not-a-checkpoint': b('Just some notes, no front matter and no "# Checkpoint:" heading.\n'),
    'empty': Buffer.alloc(0),
    'binary-random': Buffer.concat([randomBytes(2048), Buffer.from([0]), randomBytes(2048)]),
    'binary-png': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(1024)]),
    'binary-utf16': Buffer.from('\ufeff---\nname: x\n---\n# Checkpoint: x\n', 'utf16le'),
    'binary-no-nul': Buffer.from(Array.from({ length: 4096 }, (_, i) => 0x80 + (i % 0x7f))),
  };
}

test('invalid YAML and binary garbage are unreadable items, byte-identical after list / save / resume / delete of others', async () => {
  const w = world();
  try {
    mkdirSync(w.mem);
    const files = unreadableFiles();
    for (const [name, buf] of Object.entries(files)) writeFileSync(path.join(w.mem, `checkpoint-${name}.md`), buf);
    const before = snapshotTree(w.mem);
    const stat0 = Object.fromEntries(Object.keys(files).map((n) => [n, statSync(path.join(w.mem, `checkpoint-${n}.md`)).mtimeMs]));

    const list = await w.cli(['list', '--json']);
    assert.equal(list.code, 0, list.err);
    const items = json(list) as { name: string; unreadable: string | null }[];
    for (const name of Object.keys(files)) {
      const item = items.find((i) => i.name === name);
      assert.ok(item, `${name} listed`);
      assert.ok(item.unreadable && item.unreadable.length > 0, `${name} unreadable, with a reason`);
      assert.doesNotMatch(item.unreadable, CONTROL);
    }
    assert.match((await w.cli(['list'])).out, /binary-random +\(unreadable: not a text file\)/);
    assert.equal((await w.cli(['resume'])).code, 1, 'no readable checkpoint to resume');
    await mapLimit(Object.keys(files), PARALLEL, async (name) => {
      const show = await w.cli(['show', name]);
      assert.equal(show.code, 1);
      assert.match(show.err, /unreadable/);
      assert.equal((await w.cli(['resume', name])).code, 1, `resume ${name} refuses, consumes nothing`);
    });
    assert.deepEqual(snapshotTree(w.mem), before, 'nothing written by listing, showing or failed resumes');

    // Work on other checkpoints around them.
    for (const args of [['save', 'other', '--left-off', 'x'], ['save', 'other', '--force', '--left-off', 'y'], ['resume', 'other', '--keep'], ['resume', 'other'], ['save', 'third'], ['delete', 'third']]) {
      const r = await w.cli(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    }
    const store = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo });
    await store.save({ name: 'fourth', leftOff: 'x' });
    await store.resume('fourth');
    for (const [name, buf] of Object.entries(files)) {
      const p = path.join(w.mem, `checkpoint-${name}.md`);
      assert.ok(readFileSync(p).equals(buf), `${name} byte-identical`);
      assert.equal(statSync(p).mtimeMs, stat0[name], `${name} never rewritten`);
    }
  } finally {
    w.done();
  }
});

/** Runs the CLI bundle's `run` in a child and reports its peak resident memory (KB). Killed after `timeoutMs`. */
async function measuredCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<ProcessResult & { maxRssKb: number }> {
  const script =
    `require(process.env.CK_CLI).run(JSON.parse(process.env.CK_ARGS), { out: (s) => process.stdout.write(s + '\\n'), err: (s) => process.stderr.write(s + '\\n') })` +
    `.then((c) => { process.stderr.write('\\nMAXRSS ' + process.resourceUsage().maxRSS + '\\n'); process.exitCode = c; });`;
  const child = spawn(process.execPath, ['-e', script], { env: { ...env, CK_CLI: CLI_MODULE, CK_ARGS: JSON.stringify(args) }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL' });
  const r = await finished(child);
  assert.equal(r.signal, null, `${args[0]} finished instead of stalling (${r.signal})`);
  const m = /MAXRSS (\d+)/.exec(r.err);
  return { ...r, maxRssKb: m ? Number(m[1]) : NaN };
}

const MB = 1024 * 1024;
/** Size of the huge checkpoint (and of the huge JSON checkpoint in the workspace). */
export const HUGE_BYTES = 60 * MB;

test('a 60 MB checkpoint, FIFOs, a /dev/zero link and a 60 MB JSON checkpoint do not stall listing; memory stays bounded', async (t) => {
  const w = world();
  const base = world();
  try {
    for (const x of [w, base]) {
      mkdirSync(x.mem);
      writeFileSync(path.join(x.mem, 'checkpoint-a.md'), checkpointText('a'));
      writeFileSync(path.join(x.mem, 'checkpoint-b.md'), checkpointText('b'));
    }
    // The huge one: a valid checkpoint whose Done list goes on for 60 MB.
    const head = checkpointText('huge', 'the huge one').replace('## Done This Session\nNone\n', '## Done This Session\n');
    const line = `- ${'d'.repeat(1000)}\n`;
    const huge = Buffer.alloc(HUGE_BYTES, line);
    Buffer.from(head).copy(huge);
    writeFileSync(path.join(w.mem, 'checkpoint-huge.md'), huge);
    execFileSync('mkfifo', [path.join(w.mem, 'checkpoint-fifo.md')]);
    symlinkSync('/dev/zero', path.join(w.mem, 'checkpoint-zero.md'));
    mkdirSync(path.join(w.mem, 'checkpoint-dir.md'));
    // The workspace's JSON checkpoints (a cloned repository decides what is there).
    const jsonDir = path.join(w.repo, '.claude', 'checkpoints');
    mkdirSync(jsonDir, { recursive: true });
    writeFileSync(path.join(jsonDir, 'bigjson.json'), `{"summary": "${'s'.repeat(HUGE_BYTES)}"}`);
    execFileSync('mkfifo', [path.join(jsonDir, 'jfifo.json')]);
    const planDir = path.join(w.repo, '.claude', 'plans', 'p', 'checkpoints');
    mkdirSync(planDir, { recursive: true });
    execFileSync('mkfifo', [path.join(planDir, 'pfifo.json')]);
    writeFileSync(path.join(planDir, 'ok.json'), JSON.stringify({ summary: 'plan checkpoint', timestamp: '2026-11-21T00:00:00Z' }));

    const baseline = await measuredCli(['list', '--json', '--dir', base.mem, '--cwd', base.repo], base.env);
    assert.equal(baseline.code, 0, baseline.err);
    const r = await measuredCli(['list', '--json', '--dir', w.mem, '--cwd', w.repo], w.env);
    assert.equal(r.code, 0, r.err);
    const items = JSON.parse(r.out) as { name: string; unreadable: string | null; description: string }[];
    const by = (n: string): { name: string; unreadable: string | null; description: string } | undefined => items.find((i) => i.name === n);
    assert.equal(by('a')?.unreadable, null);
    assert.equal(by('b')?.unreadable, null);
    assert.equal(by('huge')?.description, 'the huge one', 'the huge one is listed from its first bytes');
    for (const n of ['fifo', 'dir']) assert.match(by(n)?.unreadable ?? '', /not a regular file/, n);
    assert.match(by('zero')?.unreadable ?? '', /symbolic link/, 'a link is never read through');
    assert.match(by('bigjson')?.unreadable ?? '', /too large/, 'the huge JSON checkpoint is not read');
    for (const n of ['jfifo', 'p-pfifo']) assert.match(by(n)?.unreadable ?? '', /not a regular file/, n);
    assert.equal(by('p-ok')?.description, 'plan checkpoint');
    // Reading the 60 MB file (or the JSON one) whole would add at least its size; a bounded prefix adds little.
    const grew = (r.maxRssKb - baseline.maxRssKb) * 1024;
    t.diagnostic(`peak RSS: baseline ${Math.round(baseline.maxRssKb / 1024)} MB, with the hostile files ${Math.round(r.maxRssKb / 1024)} MB`);
    assert.ok(grew < HUGE_BYTES / 2, `listing grew by ${Math.round(grew / MB)} MB (baseline ${Math.round(baseline.maxRssKb / 1024)} MB)`);

    // show reads a checkpoint whole or not at all: 60 MB is over the limit, refused without reading it.
    const show = await measuredCli(['show', 'huge', '--json', '--dir', w.mem, '--cwd', w.repo], w.env);
    assert.equal(show.code, 1, show.out.slice(0, 200));
    assert.match(show.err, /bytes, more than the \d+ bytes/);
    assert.ok((show.maxRssKb - baseline.maxRssKb) * 1024 < HUGE_BYTES / 2, `show refuses without reading it (${Math.round(show.maxRssKb / 1024)} MB)`);
    t.diagnostic(`peak RSS of show --json: ${Math.round(show.maxRssKb / 1024)} MB`);

    const store = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo });
    const listed = await store.list();
    assert.equal(listed.find((i) => i.name === 'huge' && i.source === 'markdown')?.description, 'the huge one');
  } finally {
    w.done();
    base.done();
  }
});

test('workspace files that are FIFOs (MEMORY.md, plan, .claude/settings.json, state-index.json) never block', { timeout: 60_000 }, async () => {
  const w = world();
  try {
    mkdirSync(w.mem);
    execFileSync('mkfifo', [path.join(w.mem, 'MEMORY.md')]);
    writeFileSync(path.join(w.mem, 'checkpoint-a.md'), checkpointText('a'));
    const save = await measuredCli(['save', 'x', '--left-off', 'x', '--dir', w.mem, '--cwd', w.repo], w.env, 30_000);
    assert.equal(save.code, 1);
    assert.match(save.err, /MEMORY\.md is not a regular file/);
    assert.equal(existsSync(path.join(w.mem, 'checkpoint-x.md')), false, 'nothing saved when the index cannot be read');
    const orphan = await measuredCli(['resume', 'ghost', '--dir', w.mem, '--cwd', w.repo], w.env, 30_000);
    assert.equal(orphan.code, 1);
    const list = await measuredCli(['list', '--json', '--dir', w.mem, '--cwd', w.repo], w.env, 30_000);
    assert.equal(list.code, 0, list.err);

    // What the extension reads from a workspace: a plan named by a checkpoint, the plans setting, the active plan.
    const claude = path.join(w.repo, '.claude');
    mkdirSync(claude);
    for (const f of ['plan.md', 'settings.json', 'state-index.json']) execFileSync('mkfifo', [path.join(claude, f)]);
    assert.equal(await readPlanProgress(path.join(claude, 'plan.md')), undefined);
    assert.equal(await resolvePlansDir({ cwd: w.repo, env: w.env, home: String(w.env.HOME) }), path.join(String(w.env.CLAUDE_CONFIG_DIR), 'plans'));
    assert.equal(await readActivePlan(w.repo), undefined);
    const store = new CheckpointStore({ memoryDir: path.join(w.root, 'mem-ok'), cwd: w.repo });
    const r = await store.save({ name: 'with-plan', leftOff: 'x', plan: '.claude/plan.md' });
    assert.equal(r.checkpoint.planStep, undefined);
  } finally {
    w.done();
  }
});

test('symlinked and hard-linked checkpoints, a symlinked MEMORY.md and a symlinked .trash are never written through', async () => {
  const w = world();
  try {
    const target = path.join(w.outside, 'target.md');
    writeFileSync(target, checkpointText('target', 'outside file'));
    writeFileSync(path.join(w.outside, 'MEMORY.md'), '# Outside memory\n');
    writeFileSync(path.join(w.outside, 'hard.md'), checkpointText('hard', 'hard-linked outside file'));
    mkdirSync(path.join(w.outside, 'trash'));
    const outsideBefore = snapshotTree(w.outside);

    // A checkpoint that is a symlink to a file outside.
    mkdirSync(w.mem);
    const link = path.join(w.mem, 'checkpoint-link.md');
    symlinkSync(target, link);
    const force = await w.cli(['save', 'link', '--force', '--left-off', 'overwrite?']);
    assert.equal(force.code, 1);
    assert.match(force.err, /symbolic link/);
    // SPEC: the resolved path stays inside the memory directory; a link out of it is never followed.
    const shown = await w.cli(['show', 'link']);
    assert.equal(shown.code, 1);
    assert.match(shown.err, /symbolic link that leads out of the memory directory/);
    assert.equal((await w.cli(['resume', 'link', '--json'])).code, 1);
    assert.equal((await w.cli(['delete', 'link'])).code, 1);
    assert.equal(existsSync(link), true, 'left where it is');

    // A checkpoint hard-linked to a file outside: replaced (new inode), the outside file untouched.
    const hard = path.join(w.mem, 'checkpoint-hard.md');
    linkSync(path.join(w.outside, 'hard.md'), hard);
    assert.equal((await w.cli(['save', 'hard', '--force', '--left-off', 'replaced'])).code, 0);
    assert.notEqual(statSync(hard).ino, statSync(path.join(w.outside, 'hard.md')).ino);

    // MEMORY.md a symlink to a file outside: every write refuses, and writes nothing else either.
    const mem2 = path.join(w.root, 'mem2');
    mkdirSync(mem2);
    symlinkSync(path.join(w.outside, 'MEMORY.md'), path.join(mem2, 'MEMORY.md'));
    writeFileSync(path.join(mem2, 'checkpoint-y.md'), checkpointText('y'));
    const save = await w.cli(['save', 'x', '--left-off', 'x'], { mem: mem2 });
    assert.equal(save.code, 1);
    assert.match(save.err, /symbolic link/);
    assert.equal(existsSync(path.join(mem2, 'checkpoint-x.md')), false, 'nothing saved when the index cannot be');
    assert.equal((await w.cli(['delete', 'y'], { mem: mem2 })).code, 1);
    assert.equal((await w.cli(['resume', 'y', '--keep'], { mem: mem2 })).code, 0);
    assert.equal((await w.cli(['resume', 'y'], { mem: mem2 })).code, 1, 'cannot consume: the index cannot be updated');
    assert.ok(existsSync(path.join(mem2, 'checkpoint-y.md')));
    assert.equal((await w.cli(['delete', '--all'], { mem: mem2 })).code, 1);

    // .trash a symlink to a folder outside: resume and delete must not move checkpoints out there.
    const mem3 = path.join(w.root, 'mem3');
    mkdirSync(mem3);
    symlinkSync(path.join(w.outside, 'trash'), path.join(mem3, '.trash'));
    assert.equal((await w.cli(['save', 'z', '--left-off', 'z'], { mem: mem3 })).code, 0);
    const del = await w.cli(['delete', 'z'], { mem: mem3 });
    assert.equal(del.code, 1, del.out);
    assert.match(del.err, /symbolic link/);
    assert.equal((await w.cli(['resume', 'z'], { mem: mem3 })).code, 1);
    assert.equal((await w.cli(['delete', '--all'], { mem: mem3 })).code, 1);
    assert.ok(existsSync(path.join(mem3, 'checkpoint-z.md')), 'the checkpoint stays where it was');

    // The core, as the extension calls it.
    const store = new CheckpointStore({ memoryDir: mem3, cwd: w.repo });
    await assert.rejects(store.delete('z'), /symbolic link/);
    await assert.rejects(store.resume('z'), /symbolic link/);
    await assert.rejects(store.deleteAll(), /symbolic link/);

    assert.deepEqual(snapshotTree(w.outside), outsideBefore, 'nothing outside changed');
  } finally {
    w.done();
  }
});

// ---- hostile repositories ----------------------------------------------------------------------------------

test('detached HEAD and a repository without commits', async () => {
  const w = world();
  const fresh = world({ commit: false });
  try {
    const sha = git(w.repo, 'rev-parse', 'HEAD').trim();
    git(w.repo, 'checkout', '-q', '--detach', 'HEAD');
    const save = await w.cli(['save', 'detached', '--left-off', 'x', '--json']);
    assert.equal(save.code, 0, save.err);
    assert.equal(json(save).branch, `HEAD (detached at ${sha.slice(0, 7)})`);
    const same = json(await w.cli(['resume', 'detached', '--keep', '--json']));
    assert.equal(same.branchMismatch, false);
    git(w.repo, 'checkout', '-q', 'main');
    const other = json(await w.cli(['resume', 'detached', '--keep', '--json']));
    assert.deepEqual([other.currentBranch, other.branchMismatch], ['main', true]);
    await switchBranch(w.repo, other.branch);
    assert.equal(git(w.repo, 'rev-parse', 'HEAD').trim(), sha);
    assert.equal(await readBranch(w.repo), `HEAD (detached at ${sha.slice(0, 7)})`);

    writeFileSync(path.join(fresh.repo, 'new.txt'), 'x');
    const first = await fresh.cli(['save', 'first', '--left-off', 'x', '--json']);
    assert.equal(first.code, 0, first.err);
    assert.equal(json(first).branch, 'main');
    assert.deepEqual(json(first).modifiedFiles, ['new.txt']);
    const r = json(await fresh.cli(['resume', 'first', '--json']));
    assert.deepEqual([r.currentBranch, r.branchMismatch, r.consumed], ['main', false, true]);
  } finally {
    w.done();
    fresh.done();
  }
});

/** Hooks a repository could name; each appends its name to `log` when run. */
export const HOOKS = ['post-checkout', 'post-index-change', 'pre-commit', 'post-commit', 'reference-transaction', 'pre-auto-gc', 'post-rewrite', 'fsmonitor-watchman', 'pre-push', 'post-merge'];

function hostileGitConfig(repo: string, dir: string): string {
  const log = path.join(dir, 'ran.log');
  const hooks = path.join(dir, 'hooks');
  mkdirSync(hooks, { recursive: true });
  for (const h of HOOKS) {
    writeFileSync(path.join(hooks, h), `#!/bin/sh\necho "${h}" >> "${log}"\nexit 0\n`);
    chmodSync(path.join(hooks, h), 0o755);
  }
  const fsmonitor = path.join(dir, 'fsmonitor.sh');
  writeFileSync(fsmonitor, `#!/bin/sh\necho fsmonitor >> "${log}"\nexit 1\n`);
  chmodSync(fsmonitor, 0o755);
  git(repo, 'config', 'core.fsmonitor', fsmonitor);
  git(repo, 'config', 'core.hooksPath', hooks);
  return log;
}

test('a .git/config naming core.fsmonitor and core.hooksPath commands: save, list, show, resume, delete run none of them', async () => {
  const w = world();
  try {
    git(w.repo, 'branch', 'other');
    const log = hostileGitConfig(w.repo, path.join(w.root, 'evil'));
    // A tracked file whose stat no longer matches the index: git status would refresh (and write) the index,
    // running post-index-change, if it were allowed to take optional locks.
    writeFileSync(path.join(w.repo, 'README.md'), '# changed\n');
    // The code snapshot adds objects, refs/checkpoints/* and its own snapshot index; nothing else in .git may change.
    const gitWrites = ['objects', path.join('refs', 'checkpoints'), 'checkpoint-snapshot-index', 'checkpoint-snapshot-index.json'];
    const gitDirBefore = snapshotTree(path.join(w.repo, '.git'), gitWrites);
    for (const args of [['save', 'a', '--left-off', 'x', '--json'], ['list', '--json'], ['show', 'a'], ['resume', 'a', '--keep'], ['resume', 'a'], ['save', 'b'], ['save', 'b', '--force'], ['delete', 'b'], ['save', 'c'], ['delete', '--all'], ['dir']]) {
      const r = await w.cli(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
      if (args[0] === 'save' && args.includes('--json')) assert.deepEqual(json(r).modifiedFiles, ['README.md']);
    }
    assert.equal(existsSync(log), false, `no hook or fsmonitor ran: ${existsSync(log) ? readFileSync(log, 'utf8') : ''}`);
    assert.deepEqual(snapshotTree(path.join(w.repo, '.git'), gitWrites), gitDirBefore, 'git wrote nothing else in .git (no index refresh)');
    assert.ok(git(w.repo, 'for-each-ref', 'refs/checkpoints/snapshots/a').trim(), 'the snapshot was taken (through the hostile config)');

    // Switching branch (the extension's "switch to the checkpoint's branch") is a real `git checkout` in a trusted
    // workspace: git runs the repository's post-checkout and post-index-change hooks, as it does for the user.
    // fsmonitor stays off.
    writeFileSync(path.join(w.repo, 'README.md'), '# demo\n');
    await switchBranch(w.repo, 'other');
    assert.equal(await readBranch(w.repo), 'other');
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n').sort(), ['post-checkout', 'post-index-change'], 'documented: checkout runs these two hooks');
  } finally {
    w.done();
  }
});

test('Restricted Mode (allowGit: false) runs no git at all; git missing from PATH: save still works, branch empty', async () => {
  const w = world();
  const savedPath = process.env.PATH;
  try {
    // A git first on PATH that records every call.
    const bin = path.join(w.root, 'bin');
    mkdirSync(bin);
    const calls = path.join(w.root, 'git-calls.log');
    writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> "${calls}"\nexit 1\n`);
    chmodSync(path.join(bin, 'git'), 0o755);
    process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
    const restricted = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo, allowGit: false });
    const saved = await restricted.save({ name: 'r', leftOff: 'restricted' });
    assert.deepEqual([saved.checkpoint.branch, saved.checkpoint.modifiedFiles], ['', []]);
    await restricted.list();
    await restricted.show('r');
    assert.equal(await restricted.currentBranch(), '');
    const resumed = await restricted.resume('r');
    assert.deepEqual([resumed.currentBranch, resumed.branchMismatch, resumed.consumed], ['', false, true]);
    await restricted.save({ name: 'r2' });
    await restricted.delete('r2');
    assert.equal(existsSync(calls), false, 'no git process in Restricted Mode');
    // The same store with git allowed does call it (so the fake git above would have seen any call).
    await new CheckpointStore({ memoryDir: w.mem, cwd: w.repo }).save({ name: 'trusted' });
    assert.ok(existsSync(calls));
    process.env.PATH = savedPath;

    const noGit = { ...w.env, PATH: path.join(w.root, 'empty-path') };
    mkdirSync(noGit.PATH);
    const save = await w.cli(['save', 'nogit', '--left-off', 'x', '--json'], { env: noGit });
    assert.equal(save.code, 0, save.err);
    assert.deepEqual([json(save).branch, json(save).modifiedFiles], ['', []]);
    assert.equal((await w.cli(['list'], { env: noGit })).code, 0);
    const r = json(await w.cli(['resume', 'nogit', '--json'], { env: noGit }));
    assert.deepEqual([r.currentBranch, r.branchMismatch, r.consumed], ['', false, true]);
  } finally {
    process.env.PATH = savedPath;
    w.done();
  }
});

/** Branch names switchBranch must refuse before git could read them as options or anything but a branch. */
export const BAD_BRANCHES = [
  '--orphan=evil',
  '-b',
  '-',
  '--upload-pack=touch MARKER',
  '--output=MARKER',
  'a..b',
  'has space',
  'semi;touch MARKER',
  'nl\nx',
  'ctrl\u0001x',
  'HEAD (detached at zzzzzzz)',
  'HEAD (detached at 1234567; touch MARKER)',
  '',
  'x.lock',
  'trailing/',
  '/leading',
  '~tilde',
  'a^b',
  'a:b',
  'a?b',
  'a*b',
  'a[b',
  'back\\slash',
  'refs/heads/../x',
  'a@{1}',
];
/** Unusual but valid names: switched to like any other. */
export const ODD_BRANCHES = ['feature/ünïcødé', 'release-1.0_rc+1', 'a#b', 'x$(id)', '`id`', 'semi;colon', 'quote"s', "it's", 'emoji-🚀'];

test(`branch names when switching: ${BAD_BRANCHES.length} invalid ones refused without running anything, ${ODD_BRANCHES.length} unusual valid ones switched to`, async () => {
  const w = world();
  try {
    const log = hostileGitConfig(w.repo, path.join(w.root, 'evil'));
    const marker = path.join(w.repo, 'MARKER');
    const branches = (): string => git(w.repo, 'for-each-ref', '--format=%(refname)', 'refs/heads');
    const before = branches();
    for (const bad of BAD_BRANCHES) {
      await assert.rejects(switchBranch(w.repo, bad.replace('MARKER', marker)), CheckpointError, JSON.stringify(bad));
    }
    assert.equal(await readBranch(w.repo), 'main');
    assert.equal(branches(), before, 'no branch created');
    assert.equal(existsSync(marker), false);
    assert.equal(existsSync(log), false, 'refused before git checkout ran');
    for (const odd of ODD_BRANCHES) {
      git(w.repo, 'branch', odd);
      await switchBranch(w.repo, odd);
      assert.equal(await readBranch(w.repo), odd);
    }
    assert.equal(existsSync(marker), false);

    // A hostile checkpoint file carries an option-like branch: resume reports the mismatch, switching refuses.
    const store = new CheckpointStore({ memoryDir: w.mem, cwd: w.repo });
    mkdirSync(w.mem);
    // In the body too (where they differ, the body wins).
    writeFileSync(path.join(w.mem, 'checkpoint-evil.md'), checkpointText('evil').replace('branch: main', 'branch: "--orphan=evil"').replace('- **Branch:** `main`', '- **Branch:** `--orphan=evil`'));
    const r = await store.resume('evil', { keep: true });
    assert.equal(r.branchMismatch, true);
    await assert.rejects(switchBranch(w.repo, r.checkpoint.branch), /not a valid branch name/);
    assert.equal(branches().includes('evil'), false);
  } finally {
    w.done();
  }
});
