import { defineCommand } from './command';

export const dirCommand = defineCommand({
  synopsis: 'dir',
  summary: 'print the memory directory',
  help: `Usage: checkpoint dir [options]

Prints the resolved memory directory.`,
  options: {},
  positionals: 0,
  async run(ctx) {
    const resolved = await ctx.memoryDir();
    ctx.print(resolved.dir, { dir: resolved.dir, source: resolved.source });
  },
});
