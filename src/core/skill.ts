/**
 * The Claude Code skill that Connect installs (`.claude/skills/checkpoint/SKILL.md`): the product's own text,
 * short. A unit test checks that every command and option it names exists in the CLI.
 * `program`: the command as a shell word (the plugin's skill runs the CLI it carries).
 */
export function skillText(program: string): string {
  return `---
name: checkpoint
description: Save or resume a checkpoint of where work stopped (branch, plan step, what was done, what failed), shared with the user's editor. Use when the user says "save checkpoint", "checkpoint <name>", "save my place", "continue", "continue <name>" or "resume <name>".
---
# Checkpoint

A checkpoint is a short note of where work stopped. Use the \`${program}\` command; never write checkpoint files yourself.

## Save: "save checkpoint [name]"

Run this, with what you know from this session (what failed and why is your knowledge, not git's):

\`\`\`sh
${program} save <name> --left-off "<where work stopped and the next step>" --done "<something done>" --failed "<approach> — <why it failed>" --decision "<decision> — <why>" --question "<open question>"
\`\`\`

- Repeat \`--done\`, \`--failed\`, \`--decision\` and \`--question\` once per item; leave out those with nothing to say.
- No name given: choose a short one for the task (letters, digits, \`-\`). Branch, time and modified files are added by the command.
- Working from a plan file: add \`--plan <path>\`.
- If the name is taken, ask the user before adding \`--force\` (the old one goes to the trash).

## Resume: "continue [name]"

1. No name given: \`${program} pending --json\` lists the ones to resume in \`checkpoints\`, the first to offer first; if the list is empty, run \`${program} list\` and ask which.
2. \`${program} show <name>\` prints it: read Left Off, Done, Failed Approaches, Decisions, Open Questions and the plan.
3. \`${program} resume <name> --json\` marks it resumed (moved to the trash; \`${program} restore <name>\` undoes it) and returns the whole checkpoint. If \`branchMismatch\` is true, tell the user and ask before switching branch.
4. Never retry anything in \`failedApproaches\`. Summarize where the work stands, then continue from Left Off or wait for the user.
`;
}

/** The skill Connect installs: it runs `checkpoint` from PATH. */
export const SKILL_TEXT = skillText('checkpoint');
