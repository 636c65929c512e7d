import { CheckpointError } from '../core/errors';
import { formatLocalDateTime } from '../core/dates';
import { resumeSummary } from '../core/resumeText';
import { sameSince, sinceSaved } from '../core/since';
import { branchOrNone } from '../core/wording';
import { AmbiguousCheckpointError, OrphanRemovedError } from '../core/store';
import { defineCommand } from './command';
import { checkpointJson, cliLine } from './output';
import { showUnreadable } from './show';

export const resumeCommand = defineCommand({
  synopsis: 'resume [<name>]',
  summary: 'print a checkpoint to pick up from, then move it to trash (--keep to keep it)',
  help: `Usage: checkpoint resume [<name>] [--keep] [options]

Prints the checkpoint to pick up from, warns when you are on another branch than the one it was saved on,
lists approaches that failed before, and moves it to <memory dir>/.trash/<date>/ (consumed) unless --keep;
checkpoint restore <name> brings it back.
Without a name: the only checkpoint; with several, names them and exits 1.
  --keep   do not consume the checkpoint
With --json: the checkpoint (as show --json gives it) and "currentBranch", "branchMismatch", "consumed",
"trashPath" (where it went, null with --keep) and "warnings".`,
  example: 'checkpoint resume oauth --keep',
  options: { keep: { type: 'boolean' } },
  positionals: 1,
  async run(ctx) {
    const store = await ctx.store();
    // A named checkpoint's comparison with the repository runs while it is resumed, from the file as it is now; it
    // is used when the checkpoint resumed is that same version (else it runs again).
    const asked = ctx.positionals[0];
    const early = asked
      ? store.show(asked).then(
          (cp) => ({ cp, since: sinceSaved(store, cp, { currentBranch: store.currentBranch() }) }),
          () => undefined,
        )
      : undefined;
    let r;
    try {
      r = await store.resume(ctx.positionals[0], { keep: ctx.values.keep === true });
    } catch (err) {
      if (err instanceof OrphanRemovedError) {
        ctx.warn(err.message);
        ctx.print(err.message, { name: err.checkpointName, orphanRemoved: true, consumed: false, trashPath: null });
        return;
      }
      if (err instanceof AmbiguousCheckpointError) {
        throw new CheckpointError(
          `No single checkpoint to resume; name one:\n${err.candidates.map((c) => `  ${c.name}  (${branchOrNone(c.branch)}, ${formatLocalDateTime(new Date(c.saved))})`).join('\n')}`,
        );
      }
      return showUnreadable(err, ctx);
    }
    for (const w of r.warnings ?? []) ctx.warn(w);
    const cp = r.checkpoint;
    const ready = await early;
    const since = await (ready && sameSince(ready.cp, cp) ? ready.since : sinceSaved(store, cp, { currentBranch: r.currentBranch }));
    const moved = r.consumed && r.trashPath ? `\n\nMoved to the trash: ${r.trashPath}\nTo undo: ${cliLine(['restore', cp.name], ctx.values.dir)}` : '';
    ctx.print(resumeSummary(cp, { ...r, since }) + moved, {
      ...checkpointJson(cp, r.path),
      currentBranch: r.currentBranch,
      branchMismatch: r.branchMismatch,
      consumed: r.consumed,
      trashPath: r.trashPath ?? null,
      since,
    });
  },
});
