import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { hookCommand } from '../../src/cli/hook';
import type { CommandContext } from '../../src/cli/command';
import { CheckpointStore } from '../../src/core/store';
import { makeRepo, tempDirs } from '../support/fixtures';

const temp = tempDirs();

test('the hook opens the session folder\'s checkpoints through its command context, as every command does', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  // A memory folder that nothing but the context names: the hook finds the checkpoint only through ctx.store().
  const store = new CheckpointStore({ memoryDir: path.join(temp('checkpoint-mem-'), 'memory'), cwd: repo });
  await store.save({ name: 'through-context', leftOff: 'where the session stopped' });
  const asked: (string | undefined)[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const ctx = {
    positionals: ['session-start'],
    values: {},
    cwd: temp('checkpoint-elsewhere-'),
    env: { PATH: process.env.PATH, HOME: temp('checkpoint-home-') },
    io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), stdin: () => Promise.resolve(JSON.stringify({ session_id: 's1', cwd: repo, hook_event_name: 'SessionStart', source: 'startup' })) },
    store: (folder?: string) => {
      asked.push(folder);
      return Promise.resolve(store);
    },
  } as unknown as CommandContext;
  await hookCommand.run(ctx);
  assert.deepEqual(err, []);
  assert.deepEqual(asked, [repo], 'the store of the folder the session runs in');
  const said = JSON.parse(out.join('')) as { hookSpecificOutput: { additionalContext: string } };
  assert.match(said.hookSpecificOutput.additionalContext, /"through-context", saved /);
});
