// A hook's own time limit holds while a read of the file system never returns (a hung network or FUSE mount): the
// hook reads through the thread pool, so its timer fires, it says it gave up and the process is told to end.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { open } from 'node:fs/promises';
import * as path from 'node:path';
import { commandLine } from '../../src/cli/runner';
import { hookCommand } from '../../src/cli/hook';
import { inlineReads, threadPoolReads, type Reads } from '../../src/core/reads';
import type { Command } from '../../src/cli/command';
import { isolatedEnv, tempDirs } from '../support/fixtures';

const temp = tempDirs();

test('a hook gives up at its own time limit while a read never returns', { skip: process.platform === 'win32' && 'no FIFOs' }, async () => {
  const dir = temp();
  const fifo = path.join(dir, 'hung');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  // Every read waits in the thread pool on a FIFO opened the way the product never opens one (waiting for a writer):
  // a read that does not come back, as on a file system that hangs.
  const hang = async (): Promise<never> => {
    const handle = await open(fifo, 'r');
    await handle.close();
    return new Promise<never>(() => undefined);
  };
  const hung = Object.fromEntries(Object.keys(threadPoolReads).map((k) => [k, hang])) as unknown as Reads;
  const run = commandLine({ hook: { ...hookCommand, reads: hung } });
  const err: string[] = [];
  let out = '';
  let abandoned = false;
  const input = JSON.stringify({ session_id: 'hung', cwd: dir, hook_event_name: 'SessionStart', source: 'startup' });
  try {
    const code = await run(
      ['hook', 'session-start'],
      { out: (s) => (out += s), err: (s) => err.push(s), stdin: async () => input, abandon: () => (abandoned = true) },
      isolatedEnv(dir, { CHECKPOINT_HOOK_TIMEOUT_MS: '300' }),
      dir,
    );
    assert.equal(code, 0);
    assert.deepEqual(err, ['checkpoint hook session-start: gave up after 0.3 s.']);
    assert.equal(out, '');
    assert.ok(abandoned, 'the process is told to end without waiting for the read');
  } finally {
    // A writer lets the waiting open through, so that the thread pool is free again.
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  }
});

test('the hook reads through the thread pool; a command that says nothing reads inline', async () => {
  assert.equal(hookCommand.reads, threadPoolReads);
  let seen: Reads | undefined;
  const probe = { synopsis: 'probe', summary: 'probe', help: 'Usage: checkpoint probe', options: {}, positionals: 0, run: async (ctx: { reads: Reads }) => void (seen = ctx.reads) };
  assert.equal(await commandLine({ probe: probe as unknown as Command })(['probe'], { out: () => undefined, err: () => undefined }, {}, temp()), 0);
  assert.equal(seen, inlineReads);
});
