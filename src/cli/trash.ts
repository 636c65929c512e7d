import { defineCommand } from './command';

export const trashCommand = defineCommand({
  synopsis: 'trash',
  summary: 'list the trashed checkpoints (restore brings one back, gc purges them)',
  help: `Usage: checkpoint trash [options]

Lists what is in <memory dir>/.trash/, newest first: each copy's checkpoint name, the day it was trashed, and its
path. checkpoint restore <name> puts the newest copy of a name back; checkpoint gc purges old ones.
With --json: { "trashed": [{ "name", "day", "path" }], "warnings" }.`,
  example: 'checkpoint trash --json',
  options: {},
  positionals: 0,
  async run(ctx) {
    const copies = await (await ctx.store()).trashContents();
    const width = Math.max(0, ...copies.map((c) => c.name.length));
    ctx.print(copies.length ? copies.map((c) => `${c.name.padEnd(width)}  ${c.day}  ${c.path}`).join('\n') : 'The trash is empty.', {
      trashed: copies.map((c) => ({ name: c.name, day: c.day, path: c.path })),
    });
  },
});
