import { findPending } from '../core/pending';
import { orderByBranch } from '../core/branchOrder';
import { defineCommand } from './command';
import { listLines } from './list';
import { summaryJson } from './output';

export const pendingCommand = defineCommand({
  synopsis: 'pending',
  summary: 'the checkpoints a new session should offer to resume (not resumed since they were saved)',
  help: `Usage: checkpoint pending [options]

Prints the checkpoints a new session should offer to resume: every live checkpoint not resumed since it was last
saved, the one to offer first at the top, marked "*": those of the current branch, then those of a branch merged
into it, then the rest; within each, the newest day first (within a day, those saved on purpose before the automatic
auto-… ones; then newest first). Exit 0 either way.
With --json: [as in list, with "auto"] (an array, [] when none; warnings go to stderr); the first is the one to offer.`,
  example: 'checkpoint pending --json',
  options: {},
  positionals: 0,
  async run(ctx) {
    const store = await ctx.store();
    const found = await findPending(store);
    // The order a new session offers them in (the session-start hook's).
    const pending = { ...found, checkpoints: (await orderByBranch(store, found.checkpoints, await store.currentBranch())).map((p) => p.item) };
    if (pending.problem) ctx.warn(`${pending.problem}; which checkpoints were resumed is not known.`);
    if (!ctx.json) {
      ctx.io.out(pending.checkpoints.length ? listLines(pending.checkpoints, { marked: true }).join('\n') : 'No pending checkpoint.');
      return;
    }
    ctx.printList('', pending.checkpoints.map((c) => ({ ...summaryJson(c), auto: c.auto === true })));
  },
});
