import { combine } from '../core/combine';
import { UsageError } from '../core/errors';
import { printable } from '../core/names';
import { defineCommand } from './command';

export const combineCommand = defineCommand({
  synopsis: 'combine <new> <a> <b>…',
  summary: 'combine checkpoints into one hand-off (--trash-sources: then trash them)',
  help: `Usage: checkpoint combine <new-name> <a> <b> [<c>…] [--trash-sources] [options]

Combines saved checkpoints into one: Left Off lists where each source left off (newest first, each with its
name); branch and plan from the newest; Done This Session, Decisions, Open Questions and Modified Files merged
without duplicates (newest first); every source's Failed Approaches;
front matter "sources" and a "## Sources" table (name, saved, branch, plan step). The same sources give the same
file except its saved time. An existing <new-name> is moved to the trash first.
  --trash-sources   move the sources to <memory dir>/.trash/<date>/ once combined`,
  options: { 'trash-sources': { type: 'boolean' } },
  positionals: Infinity,
  async run(ctx) {
    const [name, ...sources] = ctx.positionals;
    if (name === undefined) throw new UsageError('combine needs a new name and the checkpoints to combine: checkpoint combine <new-name> <a> <b>');
    const r = await combine(await ctx.store(), name, sources, { trashSources: ctx.values['trash-sources'] === true });
    for (const w of r.warnings) ctx.io.err(`Warning: ${w}`);
    const cp = r.checkpoint;
    const names = (cp.sources ?? []).map((s) => s.name);
    const lines = [`Checkpoint "${cp.name}" combined from ${names.map((n) => printable(n, 64)).join(', ')}. Resume anytime: \`continue ${cp.name}\``, r.path];
    if (r.replaced) lines.push(`The previous "${cp.name}" was moved to ${r.replaced}`);
    if (r.trashedSources.length) lines.push(`Sources moved to the trash: ${r.trashedSources.join(', ')}`);
    ctx.print(lines.join('\n'), {
      name: cp.name,
      path: r.path,
      branch: cp.branch,
      saved: cp.saved,
      sources: names,
      replaced: r.replaced ?? null,
      trashedSources: r.trashedSources,
    });
  },
});
