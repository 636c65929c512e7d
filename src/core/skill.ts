/**
 * The Claude Code skill that Connect installs (`.claude/skills/checkpoint/SKILL.md`): the product's own text,
 * short. A unit test checks that every command and option it names exists in the CLI.
 */
export const SKILL_TEXT = `---
name: checkpoint
description: Save or resume a checkpoint of where work stopped (branch, plan step, what was done, what failed), shared with the user's editor. Use when the user says "save checkpoint", "checkpoint <name>", "save my place", "continue", "continue <name>" or "resume <name>".
---
# Checkpoint

A checkpoint is a short note of where work stopped. Use the \`checkpoint\` command; never write checkpoint files yourself.

## Save: "save checkpoint [name]"

Run this, with what you know from this session (what failed and why is your knowledge, not git's):

\`\`\`sh
checkpoint save <name> --left-off "<where work stopped and the next step>" --done "<something done>" --failed "<approach> — <why it failed>" --decision "<decision> — <why>" --question "<open question>"
\`\`\`

- Repeat \`--done\`, \`--failed\`, \`--decision\` and \`--question\` once per item; leave out those with nothing to say.
- No name given: choose a short one for the task (letters, digits, \`-\`). Branch, time and modified files are added by the command.
- Working from a plan file: add \`--plan <path>\`.
- If the name is taken, ask the user before adding \`--force\` (the old one goes to the trash).

## Resume: "continue [name]"

1. No name given: \`checkpoint pending --json\` names the one to resume; if it prints \`null\`, run \`checkpoint list\` and ask which.
2. \`checkpoint show <name>\` prints it: read Left Off, Done, Failed Approaches, Decisions, Open Questions and the plan.
3. \`checkpoint resume <name> --json\` marks it resumed. If \`branchMismatch\` is true, tell the user and ask before switching branch.
4. Never retry anything in \`failedApproaches\`. Summarize where the work stands, then continue from Left Off or wait for the user.
`;
