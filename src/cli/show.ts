import { UsageError } from '../core/errors';
import { resumeSummary } from '../core/resumeText';
import { defineCommand } from './command';

export const showCommand = defineCommand({
  synopsis: 'show <name>',
  summary: 'print one checkpoint',
  help: `Usage: checkpoint show <name> [options]

Prints one checkpoint (with --json: every field and section).`,
  options: {},
  positionals: 1,
  async run(ctx) {
    const [name] = ctx.positionals;
    if (name === undefined) throw new UsageError('show needs a name: checkpoint show <name>');
    const { text, ...cp } = await (await ctx.store()).show(name);
    if (ctx.json) ctx.io.out(JSON.stringify({ ...cp, failedApproaches: cp.failed }, null, 2));
    // The text that was read and parsed, whole (a file over the read limit is refused, never shown in part).
    else ctx.io.out(text !== undefined ? text.trimEnd() : resumeSummary(cp, { currentBranch: '' }));
  },
});
