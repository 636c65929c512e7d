import { diagnose, doctorText } from '../core/doctor';
import { homeFrom } from '../core/paths';
import { defineCommand } from './command';

export const doctorCommand = defineCommand({
  synopsis: 'doctor',
  summary: 'will the next Claude Code session here get the checkpoint? (and if not, why)',
  help: `Usage: checkpoint doctor [options]

Checks what decides whether the next Claude Code session in this folder gets the checkpoint: Claude Code
(claude --version), which Checkpoint hooks run on which session sources (plugin, settings files), the folder
Claude Code loads and the folder checkpoints go to, auto memory, what Claude Code loads of MEMORY.md (200 lines /
25,000 characters) and the last session start the hook answered.
Exit 0 when all is well; 1 with the first problem and its fix. With --json: { ok, claudeCode, hooks, memory, index,
lastSessionStart, pending, problems: [{ id, message, fix }], notes, warnings }.`,
  example: 'checkpoint doctor --json',
  options: {},
  positionals: 0,
  async run(ctx) {
    const report = await diagnose({ cwd: ctx.cwd, env: ctx.env, configured: ctx.values.dir, reads: ctx.reads });
    ctx.print(doctorText(report, homeFrom(ctx.env)), report);
    return report.ok ? 0 : 1;
  },
});
