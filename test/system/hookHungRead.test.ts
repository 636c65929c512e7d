import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, finished, isolatedEnv, tempDirs } from '../support/fixtures';

// A Claude Code hook keeps its own time limit while a read of the file system never returns (a hung network or FUSE
// mount): the built CLI, its stat of the session's folder made to wait on a FIFO opened the way the product never
// opens one (a read that does not come back, in the thread pool), ends at its limit.

const temp = tempDirs();

test('a hook whose read never returns ends at its own time limit', { skip: process.platform === 'win32' && 'no FIFOs', timeout: 60_000 }, async () => {
  const home = temp('checkpoint-home-');
  const cwd = temp('checkpoint-cwd-');
  const fifo = path.join(home, 'hung');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const preload = path.join(home, 'hang.cjs');
  writeFileSync(
    preload,
    `const fs = require('node:fs');\nconst stat = fs.promises.stat;\n` +
      `fs.promises.stat = (p, ...rest) => (p === ${JSON.stringify(cwd)} ? fs.promises.open(${JSON.stringify(fifo)}, 'r').then(() => new Promise(() => {})) : stat(p, ...rest));\n`,
  );
  const child = spawn(process.execPath, ['--require', preload, CLI, 'hook', 'session-start'], {
    cwd: home,
    env: isolatedEnv(home, { CHECKPOINT_HOOK_TIMEOUT_MS: '500' }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(JSON.stringify({ session_id: 's1', hook_event_name: 'SessionStart', source: 'startup', cwd }));
  try {
    const r = await finished(child);
    assert.equal(r.out, '');
    assert.match(r.err, /^checkpoint hook session-start: gave up after 0\.5 s\.\n$/);
    // Node's exit would wait for the thread still in the read: the process ends by a signal instead.
    assert.equal(r.signal, 'SIGKILL');
  } finally {
    // A writer lets the waiting open through, had the process been left waiting on it.
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader left: the process is gone
    }
  }
});
