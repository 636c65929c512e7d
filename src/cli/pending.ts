import { findPending } from '../core/pending';
import { defineCommand } from './command';
import { listJson, listLine } from './list';

export const pendingCommand = defineCommand({
  synopsis: 'pending',
  summary: 'the checkpoint a new session should offer to resume (saved since the last resume)',
  help: `Usage: checkpoint pending [options]

Prints the checkpoint a new session should offer to resume: the newest one saved since the last resume in this
memory directory, or nothing. Exit 0 either way; --json: the checkpoint (as in list, with "auto"), or null.`,
  options: {},
  positionals: 0,
  async run(ctx) {
    const store = await ctx.store();
    const pending = await findPending(store);
    if (pending?.problem) ctx.io.err(`Warning: ${pending.problem}; the last resume is not known.`);
    if (!pending) {
      ctx.print('No pending checkpoint.', null);
      return;
    }
    const c = pending.checkpoint;
    if (!ctx.json) {
      ctx.io.out(listLine(c));
      return;
    }
    const cp = await store.read(c.path).catch(() => undefined);
    ctx.io.out(JSON.stringify({ ...listJson(c), auto: cp?.auto === true }, null, 2));
  },
});
