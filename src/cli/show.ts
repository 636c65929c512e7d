import { resumeSummary } from '../core/resumeText';
import { defineCommand, type CommandContext } from './command';
import { checkpointJson } from './output';
import { manualRecovery, UnreadableCheckpointError } from '../core/store';
import { oneLine, terminalText } from '../core/escaping';
import { frontMatterNote } from '../core/wording';
import { sinceSaved } from '../core/since';

export const showCommand = defineCommand({
  synopsis: 'show <name>',
  summary: 'print one checkpoint, as resume does, without consuming it (--raw: the file)',
  help: `Usage: checkpoint show <name> [--raw] [options]

Prints one checkpoint as resume prints it (Left Off, Done, failed approaches, decisions, open questions, modified
files, the plan step, what changed in the repository since it was saved), without consuming it.
  --raw   the checkpoint's file as it is
With --json: the checkpoint: { "name", "path", "branch", "saved", "description", "plan", "planStep", "planSteps",
"leftOff", "done", "failedApproaches", "decisions", "questions", "blockers", "modifiedFiles", "sources", "auto",
"session", "head", "snapshot", "snapshotSkipped", "snapshotLeftOut", "frontMatterSkipped", "since", "warnings" }.`,
  example: 'checkpoint show oauth --raw',
  options: { raw: { type: 'boolean' } },
  positionals: 'name',
  async run(ctx) {
    const store = await ctx.store();
    let shown;
    try {
      shown = await store.show(ctx.name);
    } catch (err) {
      return showUnreadable(err, ctx);
    }
    const { text, path, ...cp } = shown;
    if (cp.frontMatterSkipped) ctx.note(`${frontMatterNote(cp.frontMatterSkipped)}.`);
    // --raw: the text that was read and parsed, whole (a file over the read limit is refused, never shown in part).
    if (ctx.values.raw && !ctx.json && text !== undefined) {
      ctx.io.out(text.trimEnd());
      return;
    }
    const currentBranch = await store.currentBranch();
    const since = await sinceSaved(store, cp, { currentBranch });
    ctx.print(ctx.json ? '' : resumeSummary(cp, { currentBranch, since }), { ...checkpointJson(cp, path), since });
  },
});

/**
 * A checkpoint whose front matter and body can neither be read: prints what can be read of it and how to recover it
 * and returns exit code 1; any other error (and any with --json) is thrown on.
 */
export function showUnreadable(err: unknown, ctx: Pick<CommandContext, 'io' | 'json'>): number {
  if (!(err instanceof UnreadableCheckpointError) || ctx.json) throw err;
  ctx.io.out(terminalText(err.raw).trimEnd());
  ctx.io.err(`${oneLine(err.message)}\n${manualRecovery(err.file)}`);
  return 1;
}
