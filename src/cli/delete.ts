import { UsageError } from '../core/errors';
import { defineCommand } from './command';
import { cliLine } from './output';

export const deleteCommand = defineCommand({
  synopsis: 'delete <name>',
  summary: 'move a checkpoint to trash (--all: every checkpoint, after asking)',
  help: `Usage: checkpoint delete <name> | --all [--yes] [options]

Moves a checkpoint (or, with --all, every checkpoint) to <memory dir>/.trash/<date>/ and updates MEMORY.md;
checkpoint restore <name> (or restore --all) brings them back.
  --all    every checkpoint: on a terminal, names them and asks first
  --yes    do not ask
With --json: { "deleted": [{ "name", "trashPath" }], "warnings" } (trashPath null for a MEMORY.md line whose file
was already gone).`,
  example: 'checkpoint delete --all --yes',
  options: { all: { type: 'boolean' }, yes: { type: 'boolean' } },
  positionals: 1,
  async run(ctx) {
    const [name] = ctx.positionals;
    const store = await ctx.store();
    if (ctx.values.all) {
      if (name) throw new UsageError('Delete takes a name or --all, not both.');
      const names = (await store.list({ includeJson: false, details: false })).map((c) => c.name);
      if (names.length) await ctx.confirm(`Move ${names.length} checkpoint(s) to the trash: ${names.join(', ')}?`);
      const trashed = await store.deleteAll();
      const deleted = trashed.map((t) => ({ name: t.name, trashPath: t.trashPath }));
      const undo = deleted.length ? `\nTo undo: ${cliLine(['restore', '--all'], ctx.values.dir)}` : '';
      ctx.print(`Moved ${deleted.length} checkpoint(s) to the trash${deleted.length ? `: ${deleted.map((d) => d.name).join(', ')}` : ''}.${undo}`, { deleted });
      return;
    }
    if (name === undefined) throw new UsageError('A checkpoint name, or --all, is required: checkpoint delete <name>');
    const found = await store.find(name);
    const trash = await store.delete(name);
    const shown = found?.name ?? name;
    ctx.print(
      trash
        ? `Moved checkpoint "${shown}" to the trash: ${trash}\nTo undo: ${cliLine(['restore', shown], ctx.values.dir)}`
        : `Checkpoint file missing (cleaned up stale entry "${name}").`,
      { deleted: [{ name: shown, trashPath: trash || null }] },
    );
  },
});
