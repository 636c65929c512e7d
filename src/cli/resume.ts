import { CheckpointError } from '../core/errors';
import { formatLocalDateTime } from '../core/dates';
import { resumeSummary } from '../core/resumeText';
import { sameSince, sinceSaved } from '../core/since';
import { branchOrNone } from '../core/wording';
import { AmbiguousCheckpointError, OrphanRemovedError } from '../core/store';
import { defineCommand } from './command';

export const resumeCommand = defineCommand({
  synopsis: 'resume [<name>]',
  summary: 'print a checkpoint to pick up from, then move it to trash (--keep to keep it)',
  help: `Usage: checkpoint resume [<name>] [--keep] [options]

Prints the checkpoint to pick up from, warns when you are on another branch than the one it was saved on,
lists approaches that failed before, and moves it to <memory dir>/.trash/<date>/ (consumed) unless --keep.
Without a name: the only checkpoint; with several, names them and exits 1.
  --keep   do not consume the checkpoint`,
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
        ctx.print(err.message, { name: err.checkpointName, orphanRemoved: true, consumed: false });
        return;
      }
      if (err instanceof AmbiguousCheckpointError && !ctx.json) {
        throw new CheckpointError(
          `No single checkpoint to resume; name one:\n${err.candidates.map((c) => `  ${c.name}  (${branchOrNone(c.branch)}, ${formatLocalDateTime(new Date(c.saved))})`).join('\n')}`,
        );
      }
      throw err;
    }
    for (const w of r.warnings ?? []) ctx.io.err(`Warning: ${w}`);
    const ready = await early;
    const since = await (ready && sameSince(ready.cp, r.checkpoint) ? ready.since : sinceSaved(store, r.checkpoint, { currentBranch: r.currentBranch }));
    ctx.print(resumeSummary(r.checkpoint, { ...r, since }), {
      name: r.checkpoint.name,
      branch: r.checkpoint.branch,
      currentBranch: r.currentBranch,
      branchMismatch: r.branchMismatch,
      failedApproaches: r.checkpoint.failed,
      consumed: r.consumed,
      since,
    });
  },
});
