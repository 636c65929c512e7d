import { UsageError } from '../core/errors';
import { defineCommand } from './command';

export const deleteCommand = defineCommand({
  synopsis: 'delete <name>',
  summary: 'move a checkpoint to trash (--all: every checkpoint)',
  help: `Usage: checkpoint delete <name> | --all [options]

Moves a checkpoint (or, with --all, every checkpoint) to <memory dir>/.trash/<date>/ and updates MEMORY.md.
  --all    every checkpoint`,
  options: { all: { type: 'boolean' } },
  positionals: 1,
  async run(ctx) {
    const [name] = ctx.positionals;
    if (ctx.values.all) {
      if (name) throw new UsageError('delete takes a name or --all, not both');
      const n = await (await ctx.store()).deleteAll();
      ctx.print(`Cleared ${n} checkpoint(s)`, { deleted: n });
      return;
    }
    if (name === undefined) throw new UsageError('delete needs a name or --all: checkpoint delete <name>');
    const trash = await (await ctx.store()).delete(name);
    ctx.print(trash ? `Cleared checkpoint "${name}" (moved to ${trash})` : `Checkpoint file missing (cleaned up stale entry "${name}")`, {
      deleted: 1,
      trashPath: trash || null,
    });
  },
});
