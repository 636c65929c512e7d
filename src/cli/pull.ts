import { pullCheckpoints } from '../core/handoff';
import { printable } from '../core/names';
import { defineCommand } from './command';

export const pullCommand = defineCommand({
  synopsis: 'pull',
  summary: 'write the checkpoints pushed to a git remote into this memory folder',
  help: `Usage: checkpoint pull [--remote R] [options]

Fetches the checkpoints pushed with "checkpoint push" (and their code snapshots) from a git remote and writes
them into this machine's memory folder, with their MEMORY.md lines. A local checkpoint of the same name that
differs is moved to the trash first (checkpoint restore brings it back); an identical one is left alone.
  --remote R   a configured remote (default: origin, else the only remote)
With --json: { "remote", "written": [{ "name", "path", "snapshot", "trashPath" }], "unchanged", "skipped", "warnings" }.`,
  example: 'checkpoint pull --remote origin',
  options: { remote: { type: 'string' } },
  positionals: 0,
  async run(ctx) {
    const r = await pullCheckpoints(await ctx.store(), ctx.values.remote);
    for (const w of r.warnings) ctx.warn(w);
    for (const s of r.skipped) ctx.warn(`Skipped "${s.name}": ${printable(s.reason, 200)}`);
    const lines = [
      ...r.written.map((w) => `  ${w.name}${w.trashPath ? ` (the local one moved to ${w.trashPath})` : ''}`),
      ...r.unchanged.map((n) => `  ${n} (already here, unchanged)`),
    ];
    const total = r.written.length + r.unchanged.length;
    ctx.print(total ? `Pulled ${r.written.length} checkpoint(s) from ${printable(r.remote)}:\n${lines.join('\n')}` : `No checkpoints on ${printable(r.remote)}.`, {
      remote: r.remote,
      written: r.written.map((w) => ({ name: w.name, path: w.path, snapshot: w.snapshot ?? null, trashPath: w.trashPath ?? null })),
      unchanged: r.unchanged,
      skipped: r.skipped,
    });
  },
});
