import { resumeSummary } from '../core/resumeText';
import { defineCommand } from './command';

export const showCommand = defineCommand({
  synopsis: 'show <name>',
  summary: 'print one checkpoint',
  help: `Usage: checkpoint show <name> [options]

Prints one checkpoint (with --json: every field and section).`,
  options: {},
  positionals: 'name',
  async run(ctx) {
    const { text, ...cp } = await (await ctx.store()).show(ctx.name);
    if (ctx.json) ctx.io.out(JSON.stringify({ ...cp, failedApproaches: cp.failed }, null, 2));
    // The text that was read and parsed, whole (a file over the read limit is refused, never shown in part).
    else ctx.io.out(text !== undefined ? text.trimEnd() : resumeSummary(cp, { currentBranch: '' }));
  },
});
