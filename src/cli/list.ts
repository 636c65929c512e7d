import { formatStep, frontMatterNote, NO_CHECKPOINTS } from '../core/wording';
import { formatRelative } from '../core/dates';
import { oneLine } from '../core/escaping';
import type { CheckpointSummary } from '../core/store';
import { defineCommand } from './command';
import { summaryJson } from './output';

/** The widest a name or branch column grows; longer ones are cut with "…". */
const COLUMN_MAX = 32;

const cut = (s: string): string => (s.length > COLUMN_MAX ? `${s.slice(0, COLUMN_MAX - 1)}…` : s);

/**
 * One line per checkpoint, in aligned columns: name, branch, when, plan step, and the summary (or why the file is
 * unreadable). `marked`: a first column that marks the first row with `*` (pending: the one offered first).
 */
export function listLines(items: CheckpointSummary[], opts: { marked?: boolean; now?: Date } = {}): string[] {
  const rows = items.map((c) => [
    cut(oneLine(c.name)),
    c.unreadable ? '' : cut(oneLine(c.branch) || 'no branch'),
    c.unreadable ? '' : formatRelative(c.saved, opts.now),
    c.plan && c.planStep !== undefined && c.planSteps !== undefined ? formatStep(c.planStep, c.planSteps) : '',
    c.unreadable
      ? `(unreadable: ${oneLine(c.unreadable)})  ${oneLine(c.path)}`
      : `${oneLine(c.description)}${c.frontMatterSkipped ? `  (${oneLine(frontMatterNote(c.frontMatterSkipped))})` : ''}`,
  ]);
  const widths = [0, 1, 2, 3].map((i) => Math.max(0, ...rows.map((r) => r[i].length)));
  return rows.map((r, at) => {
    const cells = r.slice(0, 4).flatMap((cell, i) => (widths[i] ? [cell.padEnd(widths[i])] : []));
    const line = [...cells, r[4]].join('  ').trimEnd();
    return opts.marked ? `${at === 0 ? '*' : ' '} ${line}` : line;
  });
}

export const listCommand = defineCommand({
  synopsis: 'list',
  summary: 'list checkpoints, newest first',
  help: `Usage: checkpoint list [--names] [options]

Lists checkpoints, newest first, one a line: name, branch, when saved, plan step, and where work stopped. Files
that cannot be parsed are listed as unreadable, with the reason.
  --names   the names only, one a line (for scripts and shell completion)
With --json: [{ "name", "path", "branch", "saved", "description", "plan", "planStep", "planSteps", "unreadable" }]
(an array; notes go to stderr).`,
  example: 'checkpoint list --json',
  options: { names: { type: 'boolean' } },
  positionals: 0,
  async run(ctx) {
    const store = await ctx.store();
    const items = await store.list({ details: false });
    // MEMORY.md is what the agent reads: say where it disagrees with the files (the next write heals it).
    const mismatch = ctx.values.names ? undefined : await store.indexMismatch(items);
    if (mismatch?.missing.length) ctx.note(`MEMORY.md has no line for ${mismatch.missing.join(', ')}; the next save or delete adds it.`);
    if (mismatch?.orphans.length) ctx.note(`MEMORY.md lists ${mismatch.orphans.join(', ')} without a checkpoint file; \`checkpoint delete <name>\` removes such a line.`);
    if (ctx.values.names && !ctx.json) {
      if (items.length) ctx.io.out(items.map((c) => oneLine(c.name)).join('\n'));
      return;
    }
    // The aligned lines are for a person: --json prints the items alone (2,000 lines cost ~10 ms to lay out).
    if (ctx.json) ctx.printList('', items.map(summaryJson));
    else ctx.printList(items.length ? listLines(items).join('\n') : NO_CHECKPOINTS, []);
  },
});
