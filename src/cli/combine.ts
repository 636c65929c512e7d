import { combine } from '../core/combine';
import { UsageError } from '../core/errors';
import { printable } from '../core/names';
import { basename } from 'node:path';
import { trashedCopy } from '../core/trash';
import { defineCommand } from './command';
import { checkpointJson, resumeHint } from './output';

export const combineCommand = defineCommand({
  synopsis: 'combine <new> <a> <b>…',
  summary: 'combine checkpoints into one hand-off (--trash-sources: then trash them)',
  help: `Usage: checkpoint combine <new-name> <a> <b> [<c>…] [--trash-sources] [options]

Combines saved checkpoints into one: Left Off lists where each source left off (newest first, each with its
name); branch and plan from the newest; Done This Session, Decisions, Open Questions and Modified Files merged
without duplicates (newest first); every source's Failed Approaches;
front matter "sources" and a "## Sources" table (name, saved, branch, plan step). The same sources give the same
file except its saved time. An existing <new-name> is moved to the trash first.
  --trash-sources   move the sources to <memory dir>/.trash/<date>/ once combined
With --json: the checkpoint (as show --json gives it), "trashPath" (where the previous <new-name> went, else
null), "trashedSources": [{ "name", "trashPath" }] and "warnings".`,
  example: 'checkpoint combine release-prep api-auth ui-login --trash-sources',
  options: { 'trash-sources': { type: 'boolean' } },
  positionals: Infinity,
  async run(ctx) {
    const [name, ...sources] = ctx.positionals;
    if (name === undefined) throw new UsageError('A new name and the checkpoints to combine are required: checkpoint combine <new-name> <a> <b>');
    const r = await combine(await ctx.store(), name, sources, { trashSources: ctx.values['trash-sources'] === true });
    for (const w of r.warnings) ctx.warn(w);
    const cp = r.checkpoint;
    const names = (cp.sources ?? []).map((s) => s.name);
    const lines = [`Checkpoint "${cp.name}" combined from ${names.map((n) => printable(n, 64)).join(', ')}. ${resumeHint(cp.name, ctx.values.dir)}`, r.path];
    if (r.replaced) lines.push(`The previous "${cp.name}" was moved to ${r.replaced}`);
    if (r.trashedSources.length) lines.push(`Sources moved to the trash: ${r.trashedSources.join(', ')}`);
    ctx.print(lines.join('\n'), {
      ...checkpointJson(cp, r.path),
      trashPath: r.replaced ?? null,
      trashedSources: r.trashedSources.map((p) => ({ name: trashedCopy(basename(p))?.name ?? basename(p), trashPath: p })),
    });
  },
});
