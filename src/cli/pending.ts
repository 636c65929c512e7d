import { findPending } from '../core/pending';
import { defineCommand } from './command';
import { listJson, listLine } from './list';

export const pendingCommand = defineCommand({
  synopsis: 'pending',
  summary: 'the checkpoints a new session should offer to resume (not resumed since they were saved)',
  help: `Usage: checkpoint pending [options]

Prints the checkpoints a new session should offer to resume: every live checkpoint not resumed since it was last
saved, the one to offer first at the top (the newest day first; within a day, those saved on purpose before the
automatic auto-… ones; then newest first). Exit 0 either way; --json: a list (as in list, with "auto"), [] when none.`,
  options: {},
  positionals: 0,
  async run(ctx) {
    const store = await ctx.store();
    const pending = await findPending(store);
    if (pending.problem) ctx.io.err(`Warning: ${pending.problem}; which checkpoints were resumed is not known.`);
    if (!ctx.json) {
      ctx.io.out(pending.checkpoints.length ? pending.checkpoints.map(listLine).join('\n') : 'No pending checkpoint.');
      return;
    }
    const items = await Promise.all(
      pending.checkpoints.map(async (c) => ({ ...listJson(c), auto: (await store.read(c.path).catch(() => undefined))?.auto === true })),
    );
    ctx.io.out(JSON.stringify(items, null, 2));
  },
});
