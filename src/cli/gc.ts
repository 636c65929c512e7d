import { UsageError } from '../core/errors';
import { collectGarbage, TRASH_PURGE_DAYS } from '../core/snapshot/garbage';
import { defineCommand } from './command';

export const gcCommand = defineCommand({
  synopsis: 'gc',
  summary: 'purge old trashed checkpoints and the code snapshots only they kept (--dry-run: only say which)',
  help: `Usage: checkpoint gc [--older-than DAYS] [--dry-run] [--yes] [options]

Deletes trashed checkpoints (in <memory dir>/.trash/) dated DAYS days ago or earlier, and the refs of the code
snapshots that no live or trashed checkpoint names any more (git prunes the objects later). This cannot be undone:
on a terminal it names them and asks first. Saving does this too, for trash older than ${TRASH_PURGE_DAYS} days.
  --older-than DAYS   default ${TRASH_PURGE_DAYS}; 0 empties the trash
  --dry-run           remove nothing; print what would go
  --yes               do not ask
With --json: { "purged": [paths], "refsRemoved": [refs], "dryRun", "warnings" } (with --dry-run, what would go).`,
  example: 'checkpoint gc --older-than 0 --dry-run',
  options: { 'older-than': { type: 'string' }, 'dry-run': { type: 'boolean' }, yes: { type: 'boolean' } },
  positionals: 0,
  async run(ctx) {
    const raw = ctx.values['older-than'];
    const days = raw === undefined ? TRASH_PURGE_DAYS : Number(raw);
    if (!/^\d{1,5}$/.test(raw ?? '0') || !Number.isSafeInteger(days)) throw new UsageError('--older-than takes a number of days (0 or more).');
    const store = await ctx.store();
    const dryRun = ctx.values['dry-run'] === true;
    const when = days === 0 ? 'the trash' : `${days} or more days ago`;
    // On a terminal: what would go first, then the question (a dry run is the same look, without the question).
    const preview = dryRun || !ctx.interactive ? undefined : await collectGarbage(store, days, { dryRun: true });
    if (preview?.purged.length) await ctx.confirm(`Delete ${preview.purged.length} trashed checkpoint(s) for good:\n  ${preview.purged.join('\n  ')}\n?`);
    const r = preview && preview.purged.length === 0 ? preview : await collectGarbage(store, days, { dryRun });
    for (const w of r.warnings) ctx.warn(w);
    const list = (items: string[]): string => (items.length ? `:\n  ${items.join('\n  ')}` : '.');
    ctx.print(
      dryRun
        ? `Would purge ${r.purged.length} trashed checkpoint(s) from ${when}${list(r.purged)}\nWould remove ${r.refsRemoved.length} snapshot ref(s)${list(r.refsRemoved)}`
        : `Purged ${r.purged.length} trashed checkpoint(s) from ${when}; removed ${r.refsRemoved.length} snapshot ref(s).`,
      { purged: r.purged, refsRemoved: r.refsRemoved, dryRun },
    );
  },
});
