// The CLI's code cache (src/cli/codeCache.ts): the first successful run of a command leaves V8's compiled code beside the
// bundle, later runs start from it, and nothing about it can change what a command does. Run on a copy of the built
// bundles (`node scripts/build.mjs`), so each test owns its cache folder.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, finished, isolatedEnv, tempDirs } from '../support/fixtures';

const temp = tempDirs();
// On Windows the CLI keeps no code cache (a file's owner and mode cannot say who may have written it).
const skip = process.platform === 'win32' ? 'no code cache on Windows' : false;

/** A copy of dist/'s bundles and a memory folder with one checkpoint. */
function setup(): { cli: string; cache: string; mem: string; home: string } {
  const dist = temp();
  for (const f of readdirSync(path.dirname(CLI))) if (f.endsWith('.js')) copyFileSync(path.join(path.dirname(CLI), f), path.join(dist, f));
  const home = temp();
  const mem = path.join(home, 'memory');
  mkdirSync(mem);
  writeFileSync(
    path.join(mem, 'checkpoint-db-migration.md'),
    '---\nname: db-migration\ndescription: backfill written\ntype: checkpoint\nbranch: main\nsaved: 2026-01-02T03:04:05.000Z\n---\n# Checkpoint: db-migration\n## Left Off\nbackfill written\n',
  );
  return { cli: path.join(dist, 'cli.js'), cache: path.join(dist, '.v8-cache'), mem, home };
}

function run(s: { cli: string; home: string }, args: string[], env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [s.cli, ...args], { cwd: s.home, env: { ...isolatedEnv(s.home), ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const cacheFiles = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).sort() : []);

test('the first run of a command writes its cache beside the bundle, the next runs read it and print the same', { skip }, () => {
  const s = setup();
  const first = run(s, ['list', '--json', '--dir', s.mem]);
  assert.equal(first.code, 0, first.err);
  assert.equal(JSON.parse(first.out)[0].name, 'db-migration');
  const files = cacheFiles(s.cache);
  assert.equal(files.length, 1, `one cache: ${files.join(', ')}`);
  assert.match(files[0], /^cli-main\.[\d-]+\.list\.v8-[\d.]+.*\.bin$/);
  const file = path.join(s.cache, files[0]);
  const before = statSync(file);
  assert.ok(before.size > 10_000, 'the cache holds compiled code');
  assert.equal(before.mode & 0o777, 0o600, 'the cache is the user’s alone');
  assert.equal(lstatSync(s.cache).mode & 0o777, 0o700);

  // Accepted: not written again (a cache V8 refuses is replaced, see below).
  for (let i = 0; i < 2; i++) assert.deepEqual(run(s, ['list', '--json', '--dir', s.mem]), first);
  const after = statSync(file);
  assert.equal(after.ino, before.ino);
  assert.equal(after.mtimeMs, before.mtimeMs);

  // Each command has a cache of its own; the hook one for its events.
  assert.equal(run(s, ['show', 'db-migration', '--dir', s.mem]).code, 0);
  const input = JSON.stringify({ session_id: 's1', cwd: s.home, hook_event_name: 'SessionStart', source: 'startup' });
  const hook = spawnSync(process.execPath, [s.cli, 'hook', 'session-start', '--dir', s.mem], { cwd: s.home, env: isolatedEnv(s.home), input, encoding: 'utf8' });
  assert.equal(hook.status, 0, hook.stderr);
  assert.match(JSON.parse(hook.stdout).hookSpecificOutput.additionalContext, /db-migration/);
  const names = cacheFiles(s.cache).map((f) => f.split('.').filter((_, i) => i === 0 || i === 2).join(' '));
  assert.deepEqual(names, ['cli-main hook', 'cli-main list', 'cli-main show']);
});

test('a damaged cache, or one that others may write, is never used: the command works and the cache is replaced', { skip }, () => {
  const s = setup();
  const good = run(s, ['list', '--json', '--dir', s.mem]);
  assert.equal(good.code, 0, good.err);
  const file = path.join(s.cache, cacheFiles(s.cache)[0]);

  writeFileSync(file, Buffer.alloc(50_000, 0x5a), { mode: 0o600 });
  assert.deepEqual(run(s, ['list', '--json', '--dir', s.mem]), good);
  assert.notEqual(readFileSync(file)[0], 0x5a, 'the damaged cache was replaced by a good one');

  chmodSync(file, 0o666);
  const ino = statSync(file).ino;
  assert.deepEqual(run(s, ['list', '--json', '--dir', s.mem]), good);
  assert.notEqual(statSync(file).ino, ino, 'a cache writable by others is replaced, not read');
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

test('a library built apart (the lock\'s, loaded by a save) has a cache of its own, read on the next save', { skip }, () => {
  const s = setup();
  const save = (left: string): { code: number | null; out: string; err: string } => run(s, ['save', 'db-migration', '--force', '--left-off', left, '--dir', s.mem]);
  const first = save('first');
  assert.equal(first.code, 0, first.err);
  const files = cacheFiles(s.cache);
  assert.deepEqual(files.map((f) => f.split('.').filter((_, i) => i === 0 || i === 2).join(' ')), ['cli-main save', 'proper-lockfile save']);
  const chunk = path.join(s.cache, files[1]);
  const before = statSync(chunk);
  const second = save('second');
  assert.equal(second.code, 0, second.err);
  assert.match(readFileSync(path.join(s.mem, 'checkpoint-db-migration.md'), 'utf8'), /## Left Off\nsecond\n/);
  const after = statSync(chunk);
  assert.equal(after.ino, before.ino, 'the cache was accepted, not written again');
  assert.equal(after.mtimeMs, before.mtimeMs);
});

test('a rebuilt bundle gets a new cache and the old one is removed', { skip }, () => {
  const s = setup();
  assert.equal(run(s, ['list', '--dir', s.mem]).code, 0);
  const [old] = cacheFiles(s.cache);
  const later = new Date(Date.now() + 60_000);
  utimesSync(path.join(path.dirname(s.cli), 'cli-main.js'), later, later);
  assert.equal(run(s, ['list', '--dir', s.mem]).code, 0);
  const now = cacheFiles(s.cache);
  assert.equal(now.length, 1);
  assert.notEqual(now[0], old);
});

test('no cache after a failed run, with CHECKPOINT_CODE_CACHE=0, or where the folder is not a folder of this user', { skip }, () => {
  const s = setup();
  assert.equal(run(s, ['list', '--no-such-option']).code, 2);
  assert.equal(run(s, ['show', 'no-such-checkpoint', '--dir', s.mem]).code, 1);
  assert.deepEqual(cacheFiles(s.cache), []);

  const off = run(s, ['list', '--dir', s.mem], { CHECKPOINT_CODE_CACHE: '0' });
  assert.equal(off.code, 0);
  assert.match(off.out, /db-migration/);
  assert.equal(existsSync(s.cache), false);

  // A link in the cache folder's place is not followed.
  const elsewhere = temp();
  symlinkSync(elsewhere, s.cache);
  const linked = run(s, ['list', '--dir', s.mem]);
  assert.deepEqual(linked, off);
  assert.deepEqual(readdirSync(elsewhere), []);
});

test('a hook that gives up at its time limit exits at once, without writing a cache', { skip, timeout: 60_000 }, async () => {
  const s = setup();
  const child = spawn(process.execPath, [s.cli, 'hook', 'pre-compact', '--dir', s.mem], { cwd: s.home, env: { ...isolatedEnv(s.home), CHECKPOINT_HOOK_TIMEOUT_MS: '300' }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.write('{"session_id": ');
  const r = await finished(child);
  child.stdin.destroy();
  assert.equal(r.code, 0);
  assert.match(r.err, /gave up after 0\.3 s/);
  assert.deepEqual(cacheFiles(s.cache), []);
});
