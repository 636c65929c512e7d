import { defineCommand } from './command';
import { autoMemoryOffNotice, ignoredAutoMemoryNotice } from '../core/wording';

export const dirCommand = defineCommand({
  synopsis: 'dir',
  summary: 'print the memory directory',
  help: `Usage: checkpoint dir [options]

Prints the resolved memory directory. With --json: { dir, source (setting, env, claude or workspace),
claudeLoads (whether Claude Code loads checkpoints from there), claude (Claude Code's own memory folder for this
folder: dir, settingsFile of autoMemoryDirectory, projectRoot its name comes from, autoMemoryOff,
ignoredAutoMemoryDirectory: { value, settingsFile } of a relative autoMemoryDirectory that Claude Code ignores),
warnings }.`,
  example: 'checkpoint dir --json',
  options: {},
  positionals: 0,
  async run(ctx) {
    const resolved = await ctx.memoryDir();
    const notice = autoMemoryOffNotice(resolved);
    for (const n of [notice, ignoredAutoMemoryNotice(resolved)]) if (n) ctx.note(n);
    const claude = resolved.claude;
    ctx.print(resolved.dir, {
      dir: resolved.dir,
      source: resolved.source,
      claudeLoads: resolved.claudeLoads,
      claude: claude
        ? { dir: claude.dir, settingsFile: claude.settingsFile ?? null, projectRoot: claude.projectRoot ?? null, autoMemoryOff: claude.autoMemoryOff ?? null, ignoredAutoMemoryDirectory: claude.ignored ?? null }
        : null,
    });
  },
});
