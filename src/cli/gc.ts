import { UsageError } from '../core/errors';
import { collectGarbage, TRASH_PURGE_DAYS } from '../core/snapshotUse';
import { defineCommand } from './command';

export const gcCommand = defineCommand({
  synopsis: 'gc',
  summary: 'purge old trashed checkpoints and the code snapshots only they kept',
  help: `Usage: checkpoint gc [--older-than DAYS] [options]

Deletes trashed checkpoints (in <memory dir>/.trash/) dated DAYS days ago or earlier, and the refs of the code
snapshots that no live or trashed checkpoint names any more (git prunes the objects later). Saving does this
too, for trash older than ${TRASH_PURGE_DAYS} days.
  --older-than DAYS   default ${TRASH_PURGE_DAYS}; 0 empties the trash
With --json: { "purged": [paths], "refsRemoved": [refs] }.`,
  options: { 'older-than': { type: 'string' } },
  positionals: 0,
  async run(ctx) {
    const raw = ctx.values['older-than'];
    const days = raw === undefined ? TRASH_PURGE_DAYS : Number(raw);
    if (!/^\d{1,5}$/.test(raw ?? '0') || !Number.isSafeInteger(days)) throw new UsageError('--older-than takes a number of days (0 or more)');
    const r = await collectGarbage(await ctx.store(), days);
    for (const w of r.warnings) ctx.io.err(`Warning: ${w}`);
    ctx.print(`Purged ${r.purged.length} trashed checkpoint(s) from ${days === 0 ? 'the trash' : `${days} or more days ago`}; removed ${r.refsRemoved.length} snapshot ref(s).`, {
      purged: r.purged,
      refsRemoved: r.refsRemoved,
    });
  },
});
