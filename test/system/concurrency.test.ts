// Many writers at once on one memory directory: separate CLI processes (and the core in this process, as the
// extension host would run it) save, delete and resume distinct checkpoints concurrently. Nothing may be lost:
// every file and every index bullet is there, and MEMORY.md's other content is byte-identical.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, closeSync, existsSync, openSync, readFileSync, readdirSync, watch, writeFileSync, writeSync, mkdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { runCli, workspace, type ProcessResult, type Workspace } from '../support/fixtures';
import { CheckpointStore } from '../../src/core/store';
import { parseCheckpoint } from '../../src/core/checkpointParse';
import { indexedNames, removeFromIndex, RESUME_LINE } from '../../src/core/memoryIndex';
import { TEMP_PREFIX } from '../../src/core/files';
import { LOCK_NAME } from '../../src/core/lock';

/** Concurrent CLI processes saving into one memory directory. */
export const WRITERS = 32;
/** Per kind in the mixed run: CLI saves, CLI deletes, CLI resumes, in-process (extension-like) saves, CLI readers. */
export const MIXED_EACH = 8;

/**
 * MEMORY.md with the user's own content: a heading, a bold bullet of theirs, a fenced block that holds a fake
 * "## Checkpoints" section, another section with a bullet that uses one of our names, CRLF and LF mixed, and
 * no final newline.
 */
const USER_DOC = [
  '# Team memory\r\n',
  '\r\n',
  'Notes for the agent.\r\n',
  '- **Build**: run `make` first\r\n',
  '\r\n',
  '```markdown\r\n',
  '## Checkpoints\r\n',
  '- **fake** (main, Nov 01) — inside a fence\r\n',
  '```\r\n',
  '\r\n',
  '## Decisions\n',
  '- **w-03** (main, Nov 25) — a user bullet that uses one of our names, outside the section\n',
  '### Details\r\n',
  'Trailing text without a final newline',
].join('');

function setup(): Workspace {
  const ws = workspace();
  mkdirSync(ws.mem, { recursive: true });
  writeFileSync(path.join(ws.mem, 'MEMORY.md'), USER_DOC);
  return ws;
}

const fileOf = (mem: string, name: string): string => path.join(mem, `checkpoint-${name}.md`);
const pad = (i: number): string => String(i).padStart(2, '0');

function assertOk(results: ProcessResult[], what: string): void {
  const failed = results.map((r, i) => ({ i, ...r })).filter((r) => r.code !== 0);
  assert.deepEqual(failed, [], `every ${what} exits 0`);
}

/** No temp file and no lock left once every writer is done. */
function assertClean(mem: string): void {
  const leftovers = readdirSync(mem).filter((e) => e.startsWith(TEMP_PREFIX) || e === LOCK_NAME);
  assert.deepEqual(leftovers, []);
}

/** Every file under `.trash`, by base name. */
function trashed(mem: string): string[] {
  const root = path.join(mem, '.trash');
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((day) => readdirSync(path.join(root, day))).sort();
}

/**
 * A start barrier for CLI processes: a `git` first on PATH that announces itself, waits on a FIFO, and then
 * answers `git status` for branch main. `release()` resolves once `count` processes wait, then lets all of them go
 * at once, so that they reach the memory directory's lock together (instead of one after another, as staggered
 * process start-up would have them).
 */
async function gitBarrier(root: string, count: number): Promise<{ env: NodeJS.ProcessEnv; release: () => Promise<void>; close: () => void }> {
  const bin = path.join(root, 'bin');
  const ready = path.join(root, 'ready');
  const fifo = path.join(root, 'go');
  mkdirSync(bin, { recursive: true });
  mkdirSync(ready, { recursive: true });
  execFileSync('mkfifo', [fifo]);
  // Held open for reading and writing, so that the waiters block in read(), not in open().
  const fd = openSync(fifo, 'r+');
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\n: > "${ready}/$$"\nread x < "${fifo}"\nprintf '# branch.oid 0123456789abcdef0123456789abcdef01234567\\000# branch.head main\\000'\n`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  const release = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      const w = watch(ready);
      const check = (): void => {
        if (readdirSync(ready).length >= count) {
          w.close();
          resolve();
        }
      };
      w.on('change', check);
      check();
    });
    writeSync(fd, '\n'.repeat(count));
  };
  // The barrier holds git until every process has started, which on a busy machine takes longer than git's usual
  // time limit.
  return { env: { PATH: `${bin}${path.delimiter}${process.env.PATH}`, CHECKPOINT_GIT_TIMEOUT_MS: '600000' }, release, close: () => closeSync(fd) };
}

test(`${WRITERS} CLI processes save distinct names at once: every file and bullet present, other content byte-identical`, { timeout: 180_000 }, async () => {
  const { repo, home, mem, env, done } = setup();
  const barrier = await gitBarrier(path.join(home, 'barrier'), WRITERS);
  try {
    const names = Array.from({ length: WRITERS }, (_, i) => `w-${pad(i)}`);
    const running = Promise.all(
      names.map((n) =>
        // --no-snapshot: the barrier's git answers `git status` only (the snapshot's git calls are not under test here).
        runCli(['save', n, '--no-snapshot', '--dir', mem, '--cwd', repo, '--left-off', `left off by ${n}`, '--done', `${n} did this`, '--json'], {
          env: { ...env, ...barrier.env },
        }),
      ),
    );
    await barrier.release();
    const results = await running;
    assertOk(results, 'save');
    for (const n of names) {
      const cp = parseCheckpoint(readFileSync(fileOf(mem, n), 'utf8'), n);
      assert.equal(cp.description, `left off by ${n}`);
      assert.deepEqual(cp.done, [`${n} did this`]);
      assert.equal(cp.branch, 'main');
    }
    const index = readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');
    assert.deepEqual([...indexedNames(index)].sort(), names, 'one bullet per writer, none lost, none doubled');
    assert.equal(index.split(RESUME_LINE).length, 2, 'one resume line');
    assert.equal(removeFromIndex(index, 'all'), USER_DOC, 'everything outside the section is byte-identical');
    assertClean(mem);
  } finally {
    barrier.close();
    done();
  }
});

test('mixed: CLI saves, deletes, resumes and listings with in-process (extension-like) saves, all at once', { timeout: 180_000 }, async () => {
  const { repo, mem, env, done } = setup();
  try {
    const idx = Array.from({ length: MIXED_EACH }, (_, i) => pad(i));
    // Checkpoints to delete and to resume, saved beforehand through the core.
    const pre = new CheckpointStore({ memoryDir: mem, cwd: repo });
    for (const i of idx) {
      await pre.save({ name: `d-${i}`, leftOff: `to delete ${i}` });
      await pre.save({ name: `r-${i}`, leftOff: `to resume ${i}`, failed: [`approach ${i} failed`] });
    }
    // A second store object, as the extension host would hold, writing while the CLI processes run.
    const ext = new CheckpointStore({ memoryDir: mem, cwd: repo });
    const cli = (args: string[]): Promise<ProcessResult> => runCli([...args, '--dir', mem, '--cwd', repo, '--json'], { env });
    const [saves, deletes, resumes, listings, extSaves] = await Promise.all([
      Promise.all(idx.map((i) => cli(['save', `s-${i}`, '--left-off', `saved ${i}`]))),
      Promise.all(idx.map((i) => cli(['delete', `d-${i}`]))),
      Promise.all(idx.map((i) => cli(['resume', `r-${i}`]))),
      Promise.all(idx.map(() => cli(['list']))),
      Promise.all(idx.map((i) => ext.save({ name: `e-${i}`, leftOff: `extension ${i}` }))),
    ]);
    for (const [what, rs] of [['save', saves], ['delete', deletes], ['resume', resumes], ['list', listings]] as const) assertOk(rs, what);
    resumes.forEach((r, k) => {
      const j = JSON.parse(r.out);
      assert.equal(j.name, `r-${idx[k]}`);
      assert.equal(j.consumed, true);
      assert.deepEqual(j.failedApproaches, [`approach ${idx[k]} failed`]);
    });
    // A reader running alongside the writers never sees a torn file.
    for (const l of listings) for (const item of JSON.parse(l.out)) assert.equal(item.unreadable, null, `${item.name} readable while written`);
    assert.equal(extSaves.length, MIXED_EACH);

    const kept = [...idx.map((i) => `e-${i}`), ...idx.map((i) => `s-${i}`)].sort();
    const gone = [...idx.map((i) => `d-${i}`), ...idx.map((i) => `r-${i}`)].sort();
    for (const n of kept) assert.ok(existsSync(fileOf(mem, n)), `${n} saved`);
    for (const n of gone) assert.equal(existsSync(fileOf(mem, n)), false, `${n} consumed or deleted`);
    assert.deepEqual(trashed(mem), gone.map((n) => `checkpoint-${n}.md`), 'each one in trash, once');
    const index = readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');
    assert.deepEqual([...indexedNames(index)].sort(), kept, 'bullets of exactly the kept ones');
    assert.equal(removeFromIndex(index, 'all'), USER_DOC, 'everything outside the section is byte-identical');
    assertClean(mem);
  } finally {
    done();
  }
});
