import { resumeSummary } from '../core/resumeText';
import { defineCommand, type CommandContext } from './command';
import { manualRecovery, UnreadableCheckpointError } from '../core/store';
import { oneLine, terminalText } from '../core/escaping';
import { frontMatterNote } from '../core/wording';

export const showCommand = defineCommand({
  synopsis: 'show <name>',
  summary: 'print one checkpoint',
  help: `Usage: checkpoint show <name> [options]

Prints one checkpoint (with --json: every field and section).`,
  options: {},
  positionals: 'name',
  async run(ctx) {
    let shown;
    try {
      shown = await (await ctx.store()).show(ctx.name);
    } catch (err) {
      return showUnreadable(err, ctx);
    }
    const { text, ...cp } = shown;
    if (cp.frontMatterSkipped) ctx.io.err(`Note: ${oneLine(frontMatterNote(cp.frontMatterSkipped))}.`);
    if (ctx.json) ctx.io.out(JSON.stringify({ ...cp, failedApproaches: cp.failed }, null, 2));
    // The text that was read and parsed, whole (a file over the read limit is refused, never shown in part).
    else ctx.io.out(text !== undefined ? text.trimEnd() : resumeSummary(cp, { currentBranch: '' }));
  },
});

/**
 * A checkpoint whose front matter and body can neither be read: prints what can be read of it and how to recover it
 * (seed 000) and returns exit code 1; any other error (and any with --json) is thrown on.
 */
export function showUnreadable(err: unknown, ctx: Pick<CommandContext, 'io' | 'json'>): number {
  if (!(err instanceof UnreadableCheckpointError) || ctx.json) throw err;
  ctx.io.out(terminalText(err.raw).trimEnd());
  ctx.io.err(`${oneLine(err.message)}\n${manualRecovery(err.file)}`);
  return 1;
}
