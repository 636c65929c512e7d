/**
 * The Claude Code skill, the one text of it: Connect installs it (`.claude/skills/checkpoint/SKILL.md`) and the plugin
 * carries it (`skills/checkpoint/SKILL.md`). Short. A test runs every command it names against the CLI and checks
 * each output it describes (test/unit/skill.test.ts).
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
- If the name is taken the command exits 1 and says so: ask the user before adding \`--force\` (the old one goes to the trash).

## Resume: "continue [name]"

1. No name given: \`${program} pending --json\` prints a JSON list of the checkpoints waiting to be resumed, the one to offer first on top (\`[]\` when none); each has \`name\`, \`branch\`, \`saved\` and \`description\`. One: resume it. Several: show them (name, branch, date, description) and ask the user which. None: \`${program} list\` prints every saved checkpoint, one per line, name first ("No saved checkpoints found." when none): ask which, or say so.
2. \`${program} show <name>\` prints it: read Left Off, Done, Failed Approaches, Decisions, Open Questions and the plan.
3. \`${program} resume <name> --json\` marks it resumed (moved to the trash; \`${program} restore <name>\` undoes it) and prints the whole checkpoint as a JSON object. If \`branchMismatch\` is true, tell the user (\`branch\` against \`currentBranch\`) and ask before switching branch.
4. Never retry anything in \`failedApproaches\`. Summarize where the work stands, then continue from Left Off or wait for the user.
`;
}

/** The skill Connect installs: it runs `checkpoint` from PATH. */
export const SKILL_TEXT = skillText('checkpoint');
