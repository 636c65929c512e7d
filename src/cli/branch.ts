import { shellQuote } from '../core/escaping';
import { branchFromSnapshot, checkpointSnapshot } from '../core/snapshotUse';
import { defineCommand } from './command';

export const branchCommand = defineCommand({
  synopsis: 'branch <name>',
  summary: "create the branch checkpoint/<name> at a checkpoint's code snapshot",
  help: `Usage: checkpoint branch <name> [options]

Creates the branch checkpoint/<name> at the checkpoint's code snapshot (its parent is the commit that was HEAD
when it was saved). Your work tree, index and current branch are not touched; an existing branch of that name is
never moved (exit 1).
With --json: { "branch", "commit" }.`,
  options: {},
  positionals: 'name',
  async run(ctx) {
    const store = await ctx.store();
    const { checkpoint, commit } = await checkpointSnapshot(store, ctx.name);
    const branch = await branchFromSnapshot(store.cwd, checkpoint.name, commit);
    ctx.print(
      `Created branch ${branch} at ${commit.slice(0, 12)}, the code snapshot of "${checkpoint.name}". Your work tree is unchanged.\nTo work on it: git switch ${shellQuote(branch)}`,
      { branch, commit },
    );
  },
});
