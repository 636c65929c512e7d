import { UsageError } from '../core/errors';
import { CheckpointExistsError, type RestoredCheckpoint } from '../core/store';
import { defineCommand } from './command';
import { checkpointJson } from './output';

const restoredJson = (r: RestoredCheckpoint): Record<string, unknown> => ({ ...checkpointJson(r.checkpoint, r.path), restoredFrom: r.restoredFrom, trashPath: r.replaced ?? null });

export const restoreCommand = defineCommand({
  synopsis: 'restore <name>',
  summary: 'put the newest trashed copy of a checkpoint back (--all: every one; --force: over a live one)',
  help: `Usage: checkpoint restore <name> | --all [--force] [--yes] [options]

Puts the newest copy of <name> in <memory dir>/.trash/ back, with its line in MEMORY.md. Refuses (exit 1) when
the trash has none, or when a checkpoint of that name exists, unless --force. checkpoint trash lists the trash.
  --all     the newest trashed copy of every checkpoint in the trash (those with a live checkpoint of their
            name are left alone, unless --force); on a terminal, names them and asks first
  --force   move the existing checkpoint of that name to the trash first
  --yes     do not ask
With --json: the checkpoint (as show --json gives it), "restoredFrom" (its path in the trash), "trashPath" (where
--force moved the live one, else null) and "warnings"; with --all: { "restored": [those], "kept": [{ "name",
"path" }], "warnings" }.`,
  example: 'checkpoint restore oauth',
  options: { all: { type: 'boolean' }, force: { type: 'boolean' }, yes: { type: 'boolean' } },
  positionals: 1,
  async run(ctx) {
    const store = await ctx.store();
    const force = ctx.values.force === true;
    const [name] = ctx.positionals;
    if (ctx.values.all) {
      if (name !== undefined) throw new UsageError('Restore takes a name or --all, not both.');
      const names = [...new Set((await store.trashContents()).map((c) => c.name))];
      if (names.length) await ctx.confirm(`Restore ${names.length} checkpoint(s) from the trash${force ? ' (over live ones of the same name)' : ''}: ${names.join(', ')}?`);
      const { restored, kept } = await store.restoreAll({ force });
      const lines = [`Restored ${restored.length} checkpoint(s) from the trash${restored.length ? `: ${restored.map((r) => r.checkpoint.name).join(', ')}` : ''}.`];
      if (kept.length) lines.push(`Left in the trash, as a live checkpoint has the name (--force to replace it): ${kept.map((k) => k.name).join(', ')}`);
      ctx.print(lines.join('\n'), { restored: restored.map(restoredJson), kept });
      return;
    }
    if (name === undefined) throw new UsageError('A checkpoint name, or --all, is required: checkpoint restore <name>');
    let r;
    try {
      r = await store.restoreNamed(name, { force });
    } catch (err) {
      if (err instanceof CheckpointExistsError) err.message += ' Use --force to move it to the trash and restore the trashed copy.';
      throw err;
    }
    const replaced = r.replaced ? ` (the existing one moved to ${r.replaced})` : '';
    ctx.print(`Restored checkpoint "${r.checkpoint.name}" from ${r.restoredFrom}${replaced}\n${r.path}`, restoredJson(r));
  },
});
