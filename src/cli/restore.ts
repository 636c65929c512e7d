import { CheckpointError } from '../core/errors';
import { CheckpointExistsError } from '../core/store';
import { defineCommand } from './command';

export const restoreCommand = defineCommand({
  synopsis: 'restore <name>',
  summary: 'put the newest trashed copy of a checkpoint back (--force: over a live one)',
  help: `Usage: checkpoint restore <name> [--force] [options]

Puts the newest copy of <name> in <memory dir>/.trash/ back, with its line in MEMORY.md. Refuses (exit 1) when
the trash has none, or when a checkpoint of that name exists, unless --force.
  --force   move the existing checkpoint of that name to the trash first`,
  options: { force: { type: 'boolean' } },
  positionals: 'name',
  async run(ctx) {
    const store = await ctx.store();
    let r;
    try {
      r = await store.restoreNamed(ctx.name, { force: ctx.values.force === true });
    } catch (err) {
      if (err instanceof CheckpointExistsError) throw new CheckpointError(`${err.message} Use --force to move it to the trash and restore the trashed copy.`);
      throw err;
    }
    const replaced = r.replaced ? ` (the existing one moved to ${r.replaced})` : '';
    ctx.print(`Restored checkpoint "${r.checkpoint.name}" from ${r.restoredFrom}${replaced}\n${r.path}`, {
      name: r.checkpoint.name,
      path: r.path,
      restoredFrom: r.restoredFrom,
      replaced: r.replaced ?? null,
    });
  },
});
