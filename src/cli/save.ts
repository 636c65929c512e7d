import { CheckpointError, UsageError } from '../core/errors';
import { suggestPlan } from '../core/stateIndex';
import { resolvePlansDir } from '../core/plans';
import { firstTimeTold } from '../core/memoryDir';
import { oneLine } from '../core/escaping';
import { homeFrom, tildify } from '../core/paths';
import { dirname } from 'node:path';
import { CheckpointExistsError } from '../core/store';
import { assertCommitType, saveAndCommit, type SaveAndCommitResult } from '../core/commit';
import { defineCommand } from './command';
import { autoMemoryOffNotice } from '../core/wording';
import { suggestName } from '../core/saveForm';
import type { ResolvedMemoryDir } from '../core/memoryDir';
import { checkpointJson, cliLine, resumeHint } from './output';

export const saveCommand = defineCommand({
  synopsis: 'save [<name>]',
  summary: 'save where work stopped (branch and modified files come from git)',
  help: `Usage: checkpoint save [<name>] [options]

Saves <memory dir>/checkpoint-<name>.md and its line in MEMORY.md. Without a name: the name the editor's Save form
suggests (the plan's, else the branch's), printed first.
  --left-off TEXT   where work stopped (1-3 lines; its first line is the summary)
  --done TEXT       something done this session (repeatable)
  --failed TEXT     an approach that failed, and why (repeatable)
  --decision TEXT   a decision and its reason (repeatable)
  --question TEXT   an open question (repeatable)
  --blocker TEXT    what blocks the work (repeatable; the Blockers section)
  --plan PATH       the plan file; step N of M is read from its checklist. Without it: the active plan of
                    .claude/state-index.json, else the plan changed most recently within the last day (said
                    on stderr), as the editor's Save form offers
  --no-plan         save without a plan
  --force           overwrite an existing checkpoint of that name (the previous version goes to the trash)
  --commit          then commit the work tree: chore(<name>): <left off>, Done as the body; likely secrets
                    (.env*, SSH keys, *.pem, *.key, *.p12, keystores, credential files such as .npmrc, .netrc,
                    .aws/credentials) and the memory folder are left out (and listed; a commit a pre-commit
                    hook filled with one is undone). When git refuses (nothing to commit, a failing or hanging
                    pre-commit hook, a detached HEAD, a merge or rebase in progress, no user.email), the
                    checkpoint stays saved and the git index is left as it was; the exit code is 0, since the
                    checkpoint was written (exit 1 means nothing written), and stderr (and --json's
                    commitError) says why nothing was committed; a commit-msg hook that refuses the message is
                    named, with its output. A commit made before a hook stopped (post-commit at the time limit)
                    is reported as made, with a warning.
  --type TYPE       with --commit: the Conventional Commits type of the subject (default chore; feat, fix, ...)
  --push            with --commit: then push (to the upstream, else origin, setting the upstream); a failed
                    push keeps the commit and is a warning on stderr (--json: commit.pushError)
  --no-snapshot     do not record a code snapshot (by default, in a git repository, the work tree's tracked
                    changes and untracked files are kept as a commit under refs/checkpoints/snapshots/<name>,
                    without touching the index, the work tree, the stash or HEAD)
Without --left-off, on a terminal it asks where work stopped (an empty answer saves nothing, as git commit does
without a message); elsewhere it saves with a warning.
With --json: the checkpoint (as show --json gives it), "trashPath" (where --force moved the previous version, else
null), "commit" (with --commit: { "hash", "branch", "subject", "files", "leftOut", "pushed", "pushError" }, else
null), "commitError" and "warnings".`,
  example: 'checkpoint save oauth --left-off "Callback wired; next: refresh tokens" --done "Login form" --failed "PKCE in the popup — blocked by the CSP"',
  options: {
    'left-off': { type: 'string' },
    done: { type: 'string', multiple: true },
    failed: { type: 'string', multiple: true },
    decision: { type: 'string', multiple: true },
    question: { type: 'string', multiple: true },
    plan: { type: 'string' },
    'no-plan': { type: 'boolean' },
    blocker: { type: 'string', multiple: true },
    force: { type: 'boolean' },
    commit: { type: 'boolean' },
    push: { type: 'boolean' },
    type: { type: 'string' },
    'no-snapshot': { type: 'boolean' },
  },
  positionals: 1,
  async run(ctx) {
    const { values } = ctx;
    if (values.plan !== undefined && values['no-plan']) throw new UsageError('--plan and --no-plan exclude each other.');
    if (values.push && !values.commit) throw new UsageError('--push goes with --commit: checkpoint save <name> --commit --push');
    if (values.type !== undefined && !values.commit) throw new UsageError('--type goes with --commit: checkpoint save <name> --commit --type feat');
    if (values.type !== undefined) assertCommitType(values.type);
    let leftOff = values['left-off'];
    if (leftOff === undefined || leftOff.trim() === '') {
      // As git commit without a message: asked for on a terminal, and nothing saved without it.
      const answer = await ctx.ask('Left off (where work stopped, and the next step): ');
      if (answer !== undefined) {
        if (answer.trim() === '') throw new CheckpointError('Nothing saved: a checkpoint says where work stopped. Give it with --left-off TEXT.');
        leftOff = answer;
      } else {
        ctx.warn('No --left-off: the checkpoint does not say where work stopped (its Left Off is "None"). Save it again with --force --left-off TEXT to say it.');
      }
    }
    let r;
    let committed: SaveAndCommitResult | undefined;
    let resolved: Promise<ResolvedMemoryDir | undefined>;
    try {
      const opening = ctx.store();
      // What Claude Code makes of the folder (the notice after the save) is read while the save runs; when it cannot
      // be read, there is no notice (the checkpoint is saved all the same).
      resolved = ctx.memoryDir().catch(() => undefined);
      const store = await opening;
      // No plan given: the one the editor's save form offers (a plan left out costs more than one included), said.
      let plan = values.plan;
      if (plan === undefined && values['no-plan'] !== true) {
        const suggested = await suggestPlan(ctx.cwd, await resolvePlansDir({ cwd: ctx.cwd, env: ctx.env }), { env: ctx.env }).catch(() => undefined);
        if (suggested) {
          plan = suggested.path;
          const why = suggested.why === 'active' ? 'the active plan of .claude/state-index.json' : 'the plan changed most recently, within the last day';
          ctx.io.err(`Plan: ${oneLine(tildify(plan, homeFrom(ctx.env)))} (${why}); --no-plan saves without one.`);
        }
      }
      let name = ctx.name;
      if (ctx.positionals.length === 0) {
        name = suggestName({ plan, branch: await store.currentBranch() });
        ctx.note(`No name given: saving as "${name}".`);
      }
      const input = {
        name,
        leftOff,
        done: values.done,
        failed: values.failed,
        decisions: values.decision,
        questions: values.question,
        blockers: values.blocker,
        plan,
        force: values.force === true,
        snapshot: { enabled: values['no-snapshot'] !== true },
      };
      if (values.commit) {
        committed = await saveAndCommit(store, input, { push: values.push === true, type: values.type });
        r = committed.save;
      } else {
        r = await store.save(input);
      }
    } catch (err) {
      if (err instanceof CheckpointExistsError) err.message += ' Use --force to overwrite it.';
      throw err;
    }
    for (const w of r.warnings) ctx.warn(w);
    const where = await resolved;
    const notice = where && autoMemoryOffNotice(where);
    // Told once per memory folder, not at every save.
    if (notice && (await firstTimeTold(dirname(r.path)))) ctx.note(notice);
    const cp = r.checkpoint;
    const lines = [`Checkpoint "${cp.name}" saved. ${resumeHint(cp.name, values.dir)}`, r.path];
    if (r.replaced) lines.push(`The previous version is in the trash: ${r.replaced} (${cliLine(['restore', cp.name, '--force'], values.dir)} brings it back)`);
    const c = committed?.commit;
    if (c) {
      lines.push(`Committed ${c.hash.slice(0, 7)} on ${c.branch}: ${c.subject}`);
      if (c.leftOut.length) lines.push(`Left out (likely secrets): ${c.leftOut.join(', ')}`);
      if (c.pushed) lines.push('Pushed.');
    }
    // Exit 0 either way: the checkpoint (and the commit) were written, and exit 1 always means nothing was written.
    if (committed?.commitError) ctx.warn(`Not committed; the checkpoint is saved. ${committed.commitError.message}`);
    for (const w of c?.warnings ?? []) ctx.warn(w);
    if (c?.pushError) ctx.warn(`Committed ${c.hash.slice(0, 7)}, but the push failed: ${c.pushError}`);
    ctx.print(lines.join('\n'), {
      ...checkpointJson(cp, r.path),
      trashPath: r.replaced ?? null,
      commit: c ? { hash: c.hash, branch: c.branch, subject: c.subject, files: c.committed, leftOut: c.leftOut, pushed: c.pushed, pushError: c.pushError ?? null, warnings: c.warnings } : null,
      commitError: committed?.commitError?.message ?? null,
    });
    return 0;
  },
});
