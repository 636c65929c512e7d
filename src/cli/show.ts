import { resumeSummary } from '../core/resumeText';
import { sinceSaved } from '../core/since';
import { defineCommand } from './command';

export const showCommand = defineCommand({
  synopsis: 'show <name>',
  summary: 'print one checkpoint',
  help: `Usage: checkpoint show <name> [options]

Prints one checkpoint (with --json: every field and section), and on stderr what changed in the repository since
it was saved (--json: "since").`,
  options: {},
  positionals: 'name',
  async run(ctx) {
    const store = await ctx.store();
    const { text, ...cp } = await store.show(ctx.name);
    const since = await sinceSaved(store, cp, { currentBranch: await store.currentBranch() });
    if (ctx.json) ctx.io.out(JSON.stringify({ ...cp, failedApproaches: cp.failed, since }, null, 2));
    else {
      // The text that was read and parsed, whole (a file over the read limit is refused, never shown in part); what
      // changed since goes to stderr, so that stdout stays the file.
      ctx.io.out(text !== undefined ? text.trimEnd() : resumeSummary(cp, { currentBranch: '' }));
      ctx.io.err(since.line);
    }
  },
});
