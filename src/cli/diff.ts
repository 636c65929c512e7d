import { DEFAULT_FILE_LIMIT_BYTES } from '../core/snapshot/workTree';
import { changesSince, checkpointSnapshot, diffSince, leftOutAsLarge } from '../core/snapshot/reading';
import { defineCommand } from './command';

export const diffCommand = defineCommand({
  synopsis: 'diff <name>',
  summary: "what changed in the work tree since a checkpoint's code snapshot",
  help: `Usage: checkpoint diff <name> [--stat] [options]

Prints the changes from the checkpoint's code snapshot to the work tree now (tracked and untracked files that
git does not ignore), as a patch. Nothing is changed. Likely secrets, the memory folder and files over
${DEFAULT_FILE_LIMIT_BYTES / (1024 * 1024)} MB are left out, as a save leaves them out of its snapshot.
  --stat   a summary per file instead of the patch
With --json: { "name", "snapshot", "head", "changes": [{ "status": "A"|"M"|"D"|"T", "path" }], "warnings" }.`,
  example: 'checkpoint diff oauth --stat',
  options: { stat: { type: 'boolean' } },
  positionals: 'name',
  async run(ctx) {
    const store = await ctx.store();
    const { checkpoint, commit } = await checkpointSnapshot(store, ctx.name);
    const warnSkipped = (skipped: string[]): void => {
      const note = leftOutAsLarge(skipped);
      if (note) ctx.warn(note);
    };
    if (ctx.json) {
      const { changes, skipped } = await changesSince(store.cwd, commit, { memoryDir: store.memoryDir });
      warnSkipped(skipped);
      ctx.print('', { name: checkpoint.name, snapshot: commit, head: checkpoint.head ?? null, changes });
      return;
    }
    const { text, skipped } = await diffSince(store.cwd, commit, { stat: ctx.values.stat === true, memoryDir: store.memoryDir });
    warnSkipped(skipped);
    ctx.io.out(text.trimEnd() || `No changes since the snapshot of "${checkpoint.name}" (${commit.slice(0, 12)}).`);
  },
});
