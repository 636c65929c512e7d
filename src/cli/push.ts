import { pushCheckpoints } from '../core/handoff';
import { printable } from '../core/names';
import { defineCommand } from './command';

export const pushCommand = defineCommand({
  synopsis: 'push [<name>…]',
  summary: 'push checkpoints and their code snapshots to a git remote',
  help: `Usage: checkpoint push [<name>…] [--remote R] [options]

Pushes checkpoints (all of them when none is named) to a git remote of the repository, with the same transport
and credentials as the code: each file as a commit on refs/checkpoints/files/<name>, its code snapshot on
refs/checkpoints/snapshots/<name>. A checkpoint of the same name on the remote is replaced.
  --remote R   a configured remote (default: origin, else the only remote)
With --json: { "remote", "pushed": [{ "name", "snapshot" }], "warnings" }.

Example:
  checkpoint push oauth --remote origin`,
  options: { remote: { type: 'string' } },
  positionals: Number.MAX_SAFE_INTEGER,
  async run(ctx) {
    const r = await pushCheckpoints(await ctx.store(), ctx.positionals, ctx.values.remote);
    for (const w of r.warnings) ctx.warn(w);
    const lines = r.pushed.map((p) => `  ${p.name}${p.snapshot ? ` (with its snapshot ${p.snapshot.slice(0, 12)})` : ''}`);
    ctx.print(`Pushed ${r.pushed.length} checkpoint(s) to ${printable(r.remote)}:\n${lines.join('\n')}\nOn another machine: checkpoint pull`, { remote: r.remote, pushed: r.pushed.map((p) => ({ name: p.name, snapshot: p.snapshot ?? null })) });
  },
});
