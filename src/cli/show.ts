import { resumeSummary } from '../core/resumeText';
import { defineCommand } from './command';
import { checkpointJson } from './output';

export const showCommand = defineCommand({
  synopsis: 'show <name>',
  summary: 'print one checkpoint, as resume does, without consuming it (--raw: the file)',
  help: `Usage: checkpoint show <name> [--raw] [options]

Prints one checkpoint as resume prints it (Left Off, Done, failed approaches, decisions, open questions, modified
files, the plan step), without consuming it.
  --raw   the checkpoint's file as it is
With --json: the checkpoint: { "name", "path", "branch", "saved", "description", "plan", "planStep", "planSteps",
"leftOff", "done", "failedApproaches", "decisions", "questions", "blockers", "modifiedFiles", "sources", "auto",
"session", "head", "snapshot", "snapshotSkipped", "snapshotLeftOut", "warnings" }.

Example:
  checkpoint show oauth --raw`,
  options: { raw: { type: 'boolean' } },
  positionals: 'name',
  async run(ctx) {
    const store = await ctx.store();
    const { text, path, ...cp } = await store.show(ctx.name);
    // --raw: the text that was read and parsed, whole (a file over the read limit is refused, never shown in part).
    if (ctx.values.raw && !ctx.json && text !== undefined) {
      ctx.io.out(text.trimEnd());
      return;
    }
    ctx.print(ctx.json ? '' : resumeSummary(cp, { currentBranch: await store.currentBranch() }), checkpointJson(cp, path));
  },
});
