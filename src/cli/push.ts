import { planPush, runPush, type PushPlan } from '../core/handoff';
import { printable } from '../core/names';
import { CheckpointError } from '../core/errors';
import { defineCommand } from './command';

export const pushCommand = defineCommand({
  synopsis: 'push [<name>…]',
  summary: 'push checkpoints and their code snapshots to a git remote',
  help: `Usage: checkpoint push [<name>…] [--remote R] [--dry-run] [--yes] [--with-history] [options]

Pushes checkpoints (all of them when none is named) to a git remote of the repository, with the same transport
and credentials as the code: each file as a commit on refs/checkpoints/files/<name>, its code snapshot on
refs/checkpoints/snapshots/<name>. A checkpoint of the same name on the remote is replaced. A name travels as the
product writes names (lowercase, spaces as "-"), so that a pull takes it.
First it lists what it will publish (on stderr): the checkpoints and, for each snapshot, the files it holds beyond
the commit it was taken on (untracked ones marked); on a terminal it then asks. A snapshot whose commit is not on
the remote yet (local commits nobody pushed) is held back, and said so: it would publish that history.
  --remote R       a configured remote (default: origin, else the only remote)
  --dry-run        list what would be published, push nothing
  --yes            do not ask
  --with-history   push snapshots taken on local commits too (those commits are published with them)
With --json (never asks): { "remote", "pushed": [{ "name", "snapshot"? }], "heldBack": [{ "name", "reason",
"snapshotOnly" }], "warnings" } (--dry-run: { "remote", "checkpoints": [{ "name", "snapshot"?, "files",
"commits" }], "heldBack", "warnings" }).`,
  example: 'checkpoint push oauth --remote origin --dry-run',
  options: { remote: { type: 'string' }, 'dry-run': { type: 'boolean' }, 'with-history': { type: 'boolean' } },
  positionals: Number.MAX_SAFE_INTEGER,
  async run(ctx) {
    const store = await ctx.store();
    const plan = await planPush(store, ctx.positionals, ctx.values.remote, { withHistory: ctx.values['with-history'] === true });
    for (const w of plan.warnings) ctx.warn(w);
    for (const h of plan.heldBack) ctx.io.err(`Held back: ${h.snapshotOnly ? `the snapshot of "${h.name}" (the checkpoint itself is pushed)` : `"${h.name}"`}: ${h.reason}.`);
    const { remote, checkpoints, heldBack } = plan;
    if (ctx.values['dry-run']) {
      ctx.print(`Would push to ${printable(remote)}:\n${describe(plan)}\n(dry run: nothing was pushed)`, { remote, checkpoints, heldBack });
      return;
    }
    if (checkpoints.length === 0) throw new CheckpointError('Nothing to push: every checkpoint was held back.');
    if (!ctx.json) ctx.io.err(`Will push to ${printable(remote)}:\n${describe(plan)}`);
    if (ctx.interactive && !ctx.json) {
      if (!/^\s*y(es)?\s*$/i.test((await ctx.ask('Push? [y/N] ')) ?? '')) {
        ctx.io.err('Nothing was pushed.');
        return 1;
      }
    }
    const r = await runPush(store, plan);
    const lines = r.pushed.map((p) => `  ${p.name}${p.snapshot ? ` (with its snapshot ${p.snapshot.slice(0, 12)})` : ''}`);
    ctx.print(`Pushed ${r.pushed.length} checkpoint(s) to ${printable(r.remote)}:\n${lines.join('\n')}\nOn another machine: checkpoint pull`, { remote: r.remote, pushed: r.pushed.map((p) => ({ name: p.name, snapshot: p.snapshot ?? null })), heldBack });
  },
});

/** The plan as lines: each checkpoint, and the files its snapshot publishes. */
function describe(plan: PushPlan): string {
  const lines: string[] = [];
  for (const c of plan.checkpoints) {
    if (!c.snapshot) {
      const held = plan.heldBack.some((h) => h.snapshotOnly && h.name === c.name);
      lines.push(`  ${c.name} (${held ? 'without its snapshot, held back' : 'no snapshot'})`);
      continue;
    }
    const history = c.commits ? `, and ${c.commits} local commit(s) it was taken on` : '';
    lines.push(`  ${c.name} with its snapshot ${c.snapshot.slice(0, 12)}: ${c.files.length} file(s) beyond the commit it was taken on${history}`);
    for (const f of c.files) lines.push(`    ${f.status} ${printable(f.path, 200)}${f.untracked ? ' (untracked)' : ''}`);
  }
  return lines.length ? lines.join('\n') : '  nothing';
}
