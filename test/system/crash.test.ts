// A save killed with SIGKILL at random moments: the checkpoint file and MEMORY.md are each either the old or
// the new version, never torn, and the next save succeeds (stale temp files ignored or cleaned, a stale lock
// taken over).
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, utimesSync, watch, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { CLI_MODULE, finished, runCli, workspace, type ProcessResult } from '../support/fixtures';
import { parseCheckpoint } from '../../src/core/checkpointParse';
import { formatBullet, removeFromIndex, upsertIndex } from '../../src/core/memoryIndex';
import { TEMP_PREFIX } from '../../src/core/files';
import { LOCK_NAME } from '../../src/core/lock';
import { CheckpointStore } from '../../src/core/store';

/** SIGKILLs that must land on a running save (a save that finished first does not count). */
export const KILLS = 40;
/** Content of each save: `ITEMS` Done items and `ITEMS / 4` Left Off lines of `ITEM_BYTES` each (≈ 2 MB). */
export const ITEMS = 1600;
export const ITEM_BYTES = 1000;
/** The user's own MEMORY.md content around the section (≈ 1 MB, so that its write takes a while too). */
export const INDEX_NOTE_LINES = 10_000;

const NAME = 'big';
const pad = 'x'.repeat(ITEM_BYTES);
const expectedLeftOff = (tag: string): string => [tag, ...Array.from({ length: ITEMS / 4 }, (_, i) => `${tag} line ${i} ${pad}`)].join('\n');
const expectedDone = (tag: string): string[] => Array.from({ length: ITEMS }, (_, i) => `${tag} done ${i} ${pad}`);

/**
 * Runs the CLI bundle's `run` in a child process with ≈ 2 MB of arguments (more than one command-line argument may
 * hold), exactly as `checkpoint save big --force --left-off … --done … ×ITEMS` would.
 */
const DRIVER = `
const { run } = require(process.env.CK_CLI);
const tag = process.env.CK_TAG, items = +process.env.CK_ITEMS, pad = 'x'.repeat(+process.env.CK_SIZE);
const leftOff = [tag, ...Array.from({ length: items / 4 }, (_, i) => tag + ' line ' + i + ' ' + pad)].join('\\n');
const argv = ['save', 'big', '--force', '--dir', process.env.CK_MEM, '--cwd', process.env.CK_REPO, '--left-off', leftOff];
for (let i = 0; i < items; i++) argv.push('--done', tag + ' done ' + i + ' ' + pad);
run(argv, { out: (s) => process.stdout.write(s + '\\n'), err: (s) => process.stderr.write(s + '\\n') }).then((c) => { process.exitCode = c; });
`;

interface Fixture {
  repo: string;
  mem: string;
  env: NodeJS.ProcessEnv;
  userDoc: string;
  done: () => void;
}

function fixture(): Fixture {
  const { repo, mem, env, done } = workspace();
  mkdirSync(mem, { recursive: true });
  const notes = Array.from({ length: INDEX_NOTE_LINES }, (_, i) => `note ${i} ${'y'.repeat(90)}\r\n`).join('');
  const userDoc = `# Big memory\r\n\r\n${notes}## Other\r\n- **big** (main, Nov 01) — a user bullet with our name, outside the section`;
  writeFileSync(path.join(mem, 'MEMORY.md'), userDoc);
  return { repo, mem, env, userDoc, done };
}

function startSave(f: Fixture, tag: string): ChildProcess {
  return spawn(process.execPath, ['-e', DRIVER], {
    env: { ...f.env, CK_CLI: CLI_MODULE, CK_TAG: tag, CK_ITEMS: String(ITEMS), CK_SIZE: String(ITEM_BYTES), CK_MEM: f.mem, CK_REPO: f.repo },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Passes when `text` is the complete checkpoint saved with `tag`; says briefly what is wrong otherwise. */
function assertComplete(text: string, tag: string): void {
  const cp = parseCheckpoint(text, NAME);
  assert.equal(cp.description, tag);
  assert.ok(cp.leftOff === expectedLeftOff(tag), `Left Off of ${tag} complete (${cp.leftOff.length} characters, file ${text.length})`);
  const done = expectedDone(tag);
  const bad = cp.done.findIndex((d, i) => d !== done[i]);
  assert.ok(cp.done.length === done.length && bad < 0, `Done of ${tag} complete: ${cp.done.length} of ${done.length} items, first wrong at ${bad}`);
}

const tagOf = (text: string): string | undefined => /^description: (\S+)$/m.exec(text)?.[1];
const read = (p: string): string | undefined => (existsSync(p) ? readFileSync(p, 'utf8') : undefined);
const temps = (mem: string): string[] => readdirSync(mem).filter((e) => e.startsWith(TEMP_PREFIX));
/** Moves a file's or folder's mtime into the past: what the clock would do, without waiting for it. */
const age = (p: string, seconds: number): void => {
  const t = Date.now() / 1000 - seconds;
  utimesSync(p, t, t);
};

/** Kills `child` at the `n`-th change in the memory directory (lock, temp file, write, rename), or after `ms`. */
function killAt(child: ChildProcess, mem: string, how: { event: number } | { ms: number }): () => void {
  const kill = (): void => void child.kill('SIGKILL');
  if ('ms' in how) {
    const timer = setTimeout(kill, how.ms);
    return () => clearTimeout(timer);
  }
  let seen = 0;
  const w = watch(mem, () => {
    if (++seen === how.event) kill();
  });
  return () => w.close();
}

describe('crash safety', { concurrency: true, timeout: 600_000 }, () => {
  test(`a 2 MB save SIGKILLed at ${KILLS} random moments: each file old or new, never torn; the next save succeeds`, async (t) => {
    const f = fixture();
    const file = path.join(f.mem, `checkpoint-${NAME}.md`);
    const index = path.join(f.mem, 'MEMORY.md');
    const lock = path.join(f.mem, LOCK_NAME);
    const seen = { fileOld: 0, fileNew: 0, indexOld: 0, indexNew: 0, staleLocks: 0, tempFiles: 0, finishedFirst: 0, cleaned: 0 };
    try {
      // A first complete save, timed and its file-system events counted, so that kills spread over a whole run
      // however fast this machine runs it now.
      let t0 = Date.now();
      let fullEvents = 0;
      const counting = watch(f.mem, () => void fullEvents++);
      const first = await finished(startSave(f, 'v0'));
      counting.close();
      const fullMs = Date.now() - t0;
      assert.equal(first.code, 0, first.err);
      assertComplete(read(file)!, 'v0');
      let kills = 0;
      for (let iter = 1; kills < KILLS && iter <= KILLS * 3; iter++) {
        const oldFile = read(file)!;
        const oldIndex = read(index)!;
        const tag = `v${iter}`;
        const child = startSave(f, tag);
        // Two thirds at the n-th file-system event of the save (lock, temp file, each write, renames; up to as many as a
        // whole save made, and a few past it), one third at a random time over a whole run.
        const how = iter % 3 === 0 ? { ms: Math.floor(Math.random() * fullMs) } : { event: 1 + Math.floor(Math.random() * (fullEvents + 2)) };
        const disarm = killAt(child, f.mem, how);
        const r: ProcessResult = await finished(child);
        disarm();
        if (r.signal === 'SIGKILL') kills++;
        else {
          seen.finishedFirst++;
          assert.equal(r.code, 0, r.err);
        }

        // The checkpoint: the old bytes, or the complete new version.
        const nowFile = read(file)!;
        const fileIsNew = nowFile !== oldFile;
        if (fileIsNew) assertComplete(nowFile, tag);
        else assertComplete(nowFile, tagOf(oldFile)!);
        seen[fileIsNew ? 'fileNew' : 'fileOld']++;
        // MEMORY.md: the old bytes, or the old ones with the new bullet (only once the new file is in place).
        const nowIndex = read(index)!;
        if (nowIndex !== oldIndex) {
          assert.ok(fileIsNew, 'the index changes only after the file');
          assert.equal(nowIndex, upsertIndex(oldIndex, NAME, formatBullet(parseCheckpoint(nowFile, NAME))).text);
          seen.indexNew++;
        } else seen.indexOld++;
        assert.equal(removeFromIndex(nowIndex, 'all'), f.userDoc, "the user's content is intact");
        if (!r.signal && (fileIsNew === false || nowIndex === oldIndex)) assert.fail('a save that finished wrote both files');

        // What a kill leaves: a lock (as old as the stale period, as if its 10 s had passed) and temp files, which
        // listing ignores. Every other time they are aged past the cleanup age, and the next save removes them.
        if (existsSync(lock)) {
          seen.staleLocks++;
          age(lock, 60);
        }
        const left = temps(f.mem);
        seen.tempFiles += left.length;
        const listed = await new CheckpointStore({ memoryDir: f.mem, cwd: f.repo }).list();
        assert.deepEqual(listed.map((c) => [c.name, c.unreadable]), [[NAME, undefined]], 'temp files are not listed');
        const cleanup = iter % 2 === 0;
        if (cleanup) for (const t of left) age(path.join(f.mem, t), 120);

        t0 = Date.now();
        const next = await finished(startSave(f, `r${iter}`));
        assert.equal(next.code, 0, `the next save succeeds: ${next.err}`);
        assertComplete(read(file)!, `r${iter}`);
        assert.equal(removeFromIndex(read(index)!, 'all'), f.userDoc);
        assert.equal(existsSync(lock), false, 'the lock is released');
        if (cleanup) {
          assert.deepEqual(temps(f.mem).filter((t) => left.includes(t)), [], 'stale temp files cleaned by the next save');
          seen.cleaned += left.length;
        }
      }
      assert.equal(kills, KILLS, `${KILLS} kills landed on a running save`);
      // Kills landed in every phase: before the file was replaced, between the file and the index, and after both.
      assert.ok(seen.fileOld > 0 && seen.fileNew > 0 && seen.indexOld > 0 && seen.indexNew > 0, JSON.stringify(seen));
      assert.ok(seen.staleLocks > 0 && seen.tempFiles > 0, `kills inside the lock and mid-write: ${JSON.stringify(seen)}`);
      t.diagnostic(`crash: ${JSON.stringify({ kills, fullEvents, ...seen })}`);
    } finally {
      f.done();
    }
  });

  test('a lock left by a killed save is taken over once stale, in real time (no clock tricks)', async () => {
    const f = fixture();
    const lock = path.join(f.mem, LOCK_NAME);
    try {
      // Kill a save while it writes its temp file, i.e. while it holds the lock.
      for (let attempt = 0; attempt < 10 && !existsSync(lock); attempt++) {
        const child = startSave(f, `k${attempt}`);
        const w = watch(f.mem, (_e, name) => {
          if (String(name).startsWith(TEMP_PREFIX)) child.kill('SIGKILL');
        });
        await finished(child);
        w.close();
      }
      assert.ok(existsSync(lock), 'a killed save left its lock');
      const r = await runCli(['save', 'after-crash', '--left-off', 'saved after the crash', '--dir', f.mem, '--cwd', f.repo], { env: f.env });
      assert.equal(r.code, 0, `waits for the stale lock, then takes it over: ${r.err}`);
      assert.equal(parseCheckpoint(read(path.join(f.mem, 'checkpoint-after-crash.md'))!, 'after-crash').description, 'saved after the crash');
      assert.equal(existsSync(lock), false);
    } finally {
      f.done();
    }
  });
});
