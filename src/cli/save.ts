import { CheckpointError, UsageError } from '../core/errors';
import { autoMemoryOffNotice } from '../core/memoryDir';
import { resolveActivePlanFile } from '../core/stateIndex';
import { CheckpointExistsError } from '../core/store';
import { defineCommand } from './command';

export const saveCommand = defineCommand({
  synopsis: 'save <name>',
  summary: 'save where work stopped (branch and modified files come from git)',
  help: `Usage: checkpoint save <name> [options]

Saves <memory dir>/checkpoint-<name>.md and its line in MEMORY.md.
  --left-off TEXT   where work stopped (1-3 lines; its first line is the summary)
  --done TEXT       something done this session (repeatable)
  --failed TEXT     an approach that failed, and why (repeatable)
  --decision TEXT   a decision and its reason (repeatable)
  --question TEXT   an open question (repeatable)
  --plan PATH       the plan file; step N of M is read from its checklist
  --force           overwrite an existing checkpoint of that name`,
  options: {
    'left-off': { type: 'string' },
    done: { type: 'string', multiple: true },
    failed: { type: 'string', multiple: true },
    decision: { type: 'string', multiple: true },
    question: { type: 'string', multiple: true },
    plan: { type: 'string' },
    force: { type: 'boolean' },
  },
  positionals: 1,
  async run(ctx) {
    const [name] = ctx.positionals;
    if (name === undefined) throw new UsageError('save needs a name: checkpoint save <name>');
    const { values } = ctx;
    const store = await ctx.store();
    let r;
    try {
      r = await store.save({
        name,
        leftOff: values['left-off'],
        done: values.done,
        failed: values.failed,
        decisions: values.decision,
        questions: values.question,
        // No plan given: the active plan of .claude/state-index.json, when it names a plan file that exists.
        plan: values.plan ?? (await resolveActivePlanFile(ctx.cwd, { env: ctx.env })),
        force: values.force === true,
      });
    } catch (err) {
      if (err instanceof CheckpointExistsError) throw new CheckpointError(`${err.message} Use --force to overwrite it.`);
      throw err;
    }
    for (const w of r.warnings) ctx.io.err(`Warning: ${w}`);
    const notice = autoMemoryOffNotice(await ctx.memoryDir());
    if (notice) ctx.io.err(`Note: ${notice}`);
    const cp = r.checkpoint;
    ctx.print(`Checkpoint "${cp.name}" saved. Resume anytime: \`continue ${cp.name}\`\n${r.path}`, {
      name: cp.name,
      path: r.path,
      branch: cp.branch,
      saved: cp.saved,
      modifiedFiles: cp.modifiedFiles,
    });
  },
});
