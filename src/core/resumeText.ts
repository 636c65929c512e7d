import type { Checkpoint } from './checkpoint';
import { formatLocalDateTime } from './dates';
import { branchDiffers } from './git';
import { formatStep } from './plans';

/** The branch warning of the resume procedure. */
export function branchWarning(saved: string, current: string): string | undefined {
  if (!branchDiffers(saved, current)) return undefined;
  const detached = /^HEAD \(detached at ([0-9a-f]+)\)$/.exec(saved);
  const target = detached ? detached[1] : saved;
  return `Warning: You're on \`${current}\` but checkpoint was saved on \`${saved}\`. Switch with: git checkout ${target}`;
}

/** "Previously failed: …" lines. */
export function failedWarnings(cp: Checkpoint): string[] {
  return cp.failed.map((f) => `⚠ Previously failed: ${f}`);
}

function planLine(cp: Checkpoint): string | undefined {
  if (!cp.plan) return undefined;
  const step = cp.planStep !== undefined && cp.planSteps !== undefined ? ` (${formatStep(cp.planStep, cp.planSteps)})` : '';
  return `Plan: ${cp.plan}${step}`;
}

/** The summary printed (CLI) or shown (editor) when resuming. */
export function resumeSummary(cp: Checkpoint, ctx: { currentBranch: string }): string {
  const lines = [`Checkpoint "${cp.name}" — saved ${formatLocalDateTime(new Date(cp.saved))} on ${cp.branch || 'no branch'}`];
  const warn = branchWarning(cp.branch, ctx.currentBranch);
  if (warn) lines.push(warn);
  const plan = planLine(cp);
  if (plan) lines.push(plan);
  lines.push('', 'Left off:', cp.leftOff || 'None');
  if (cp.done.length) lines.push('', 'Done:', ...cp.done.map((d) => `- ${d}`));
  if (cp.failed.length) lines.push('', ...failedWarnings(cp));
  if (cp.decisions.length) lines.push('', 'Decisions:', ...cp.decisions.map((d) => `- ${d}`));
  if (cp.questions.length) lines.push('', 'Open questions:', ...cp.questions.map((d) => `- ${d}`));
  if (cp.modifiedFiles.length) lines.push('', `Modified files (${cp.modifiedFiles.length}):`, ...cp.modifiedFiles.slice(0, 20).map((f) => `- ${f}`));
  if (cp.modifiedFiles.length > 20) lines.push(`- … and ${cp.modifiedFiles.length - 20} more`);
  return lines.join('\n');
}

/** A short text to paste into an agent so it picks up where the checkpoint left off. */
export function resumePrompt(cp: Checkpoint, ctx: { currentBranch: string; path?: string }): string {
  const parts = [`Resume the work saved in checkpoint "${cp.name}"${ctx.path ? ` (${ctx.path})` : ''}.`];
  const plan = planLine(cp);
  if (plan) parts.push(`${plan}. Read the plan before continuing.`);
  parts.push(`Left off: ${cp.leftOff || 'None'}`);
  if (cp.done.length) parts.push(`Done so far: ${cp.done.join('; ')}`);
  if (cp.failed.length) parts.push(`Do not retry these failed approaches: ${cp.failed.join('; ')}`);
  if (cp.questions.length) parts.push(`Open questions: ${cp.questions.join('; ')}`);
  if (cp.modifiedFiles.length) parts.push(`Files touched: ${cp.modifiedFiles.slice(0, 30).join(', ')}`);
  const warn = branchWarning(cp.branch, ctx.currentBranch);
  if (warn) parts.push(warn);
  parts.push('Summarize where we are, then wait for my direction.');
  return parts.join('\n');
}
