import { frontMatterNote, NO_CHECKPOINTS } from '../core/wording';
import { formatRelative } from '../core/dates';
import { oneLine } from '../core/escaping';
import type { CheckpointSummary } from '../core/store';
import { defineCommand } from './command';

export function listJson(c: CheckpointSummary): Record<string, unknown> {
  const o: Record<string, unknown> = {
    name: c.name,
    path: c.path,
    branch: c.branch,
    saved: c.saved,
    description: c.description,
    plan: c.plan ?? null,
    planStep: c.planStep ?? null,
    planSteps: c.planSteps ?? null,
  };
  if (c.unreadable !== undefined) o.unreadable = c.unreadable;
  if (c.frontMatterSkipped !== undefined) o.frontMatterSkipped = c.frontMatterSkipped;
  return o;
}

export function listLine(c: CheckpointSummary): string {
  // One line per checkpoint, whatever a file's fields hold.
  if (c.unreadable) return `${oneLine(c.name)}  (unreadable: ${oneLine(c.unreadable)})  ${oneLine(c.path)}`;
  const where = [oneLine(c.branch) || 'no branch', formatRelative(c.saved)].join(' · ');
  const skipped = c.frontMatterSkipped ? `  (${oneLine(frontMatterNote(c.frontMatterSkipped))})` : '';
  return `${oneLine(c.name)}  [${where}]  ${oneLine(c.description)}${skipped}`;
}

export const listCommand = defineCommand({
  synopsis: 'list',
  summary: 'list checkpoints, newest first',
  help: `Usage: checkpoint list [options]

Lists checkpoints, newest first. Files that cannot be parsed are listed as unreadable, with the reason.`,
  options: {},
  positionals: 0,
  async run(ctx) {
    const store = await ctx.store();
    const items = await store.list({ details: false });
    if (ctx.json) ctx.io.out(JSON.stringify(items.map(listJson), null, 2));
    else ctx.io.out(items.length ? items.map(listLine).join('\n') : NO_CHECKPOINTS);
    // MEMORY.md is what the agent reads: say where it disagrees with the files (the next write heals it).
    const mismatch = await store.indexMismatch(items);
    if (mismatch?.missing.length) ctx.io.err(`Note: MEMORY.md has no line for ${mismatch.missing.join(', ')}; the next save or delete adds it.`);
    if (mismatch?.orphans.length) ctx.io.err(`Note: MEMORY.md lists ${mismatch.orphans.join(', ')} without a checkpoint file; \`checkpoint delete <name>\` removes such a line.`);
  },
});
