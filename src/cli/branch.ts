import { shellQuote } from '../core/escaping';
import { branchFromSnapshot, checkpointSnapshot } from '../core/snapshot/reading';
import { UsageError } from '../core/errors';
import { defineCommand } from './command';

export const branchCommand = defineCommand({
  synopsis: 'branch <name> [<branch>]',
  summary: "create a branch (default checkpoint/<name>) at a checkpoint's code snapshot",
  help: `Usage: checkpoint branch <name> [<branch>] [options]

Creates the branch <branch> (default: checkpoint/<name>) at the checkpoint's code snapshot (its parent is the
commit that was HEAD when it was saved). Your work tree, index and current branch are not touched; an existing
branch of that name is never moved (exit 1).
With --json: { "name", "branch", "snapshot", "warnings" }.`,
  example: 'checkpoint branch oauth oauth-wip',
  options: {},
  positionals: 2,
  async run(ctx) {
    const [name, branchName] = ctx.positionals;
    if (name === undefined) throw new UsageError('A checkpoint name is required: checkpoint branch <name> [<branch>]');
    const store = await ctx.store();
    const { checkpoint, commit } = await checkpointSnapshot(store, name);
    const branch = await branchFromSnapshot(store.cwd, checkpoint.name, commit, branchName);
    ctx.print(
      `Created branch ${branch} at ${commit.slice(0, 12)}, the code snapshot of "${checkpoint.name}". Your work tree is unchanged.\nTo work on it: git switch ${shellQuote(branch)}`,
      { name: checkpoint.name, branch, snapshot: commit },
    );
  },
});
