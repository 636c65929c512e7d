// The CLI started in a folder that was deleted (a branch switch or a `git worktree remove` under an open terminal):
// a clear error, as JSON with --json, never a stack trace; --cwd with an absolute folder still works.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, finished, isolatedEnv, makeRepo, tempDirs, type ProcessResult } from '../support/fixtures';

const temp = tempDirs();

/** Runs the CLI from inside `gone`, which the shell deletes first (the process keeps it as its current folder). */
function runFromDeleted(gone: string, args: string[], env: NodeJS.ProcessEnv): Promise<ProcessResult> {
  mkdirSync(gone);
  const child = spawn('/bin/sh', ['-c', 'cd "$1" && rmdir "$1" && shift && exec "$@"', 'sh', gone, process.execPath, CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  return finished(child);
}

test('a command run from a deleted folder says so in one line, and --cwd elsewhere still works', { skip: process.platform === 'win32' }, async () => {
  const root = temp('checkpoint-gone-');
  const home = path.join(root, 'home');
  mkdirSync(home);
  const env = isolatedEnv(home);
  const mem = path.join(root, 'mem');

  const plain = await runFromDeleted(path.join(root, 'a'), ['list', '--dir', mem], env);
  assert.equal(plain.code, 1, plain.err);
  assert.match(plain.err, /current folder .*no longer exists/i);
  assert.doesNotMatch(plain.err, /\n\s+at |uv_cwd/, 'no stack trace');
  assert.equal(plain.err.trim().split('\n').length, 1, plain.err);

  const json = await runFromDeleted(path.join(root, 'b'), ['list', '--json', '--dir', mem], env);
  assert.equal(json.code, 1);
  assert.match((JSON.parse(json.out) as { error: { message: string } }).error.message, /no longer exists/);

  const repo = makeRepo({ dir: path.join(root, 'repo') });
  const saved = await runFromDeleted(path.join(root, 'c'), ['save', 'elsewhere', '--left-off', 'saved with --cwd', '--dir', mem, '--cwd', repo], env);
  assert.equal(saved.code, 0, saved.err);
});
