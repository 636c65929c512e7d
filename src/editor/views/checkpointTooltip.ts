import vscode = require('vscode');
import { formatLocalDateTime } from '../../core/dates';
import type { CheckpointSummary } from '../../core/store';
import { branchDiffers } from '../../core/git';
import { planName } from '../../core/plans';
import { branchSentence, formatStep, frontMatterNote } from '../../core/wording';
import { escapeMarkdown, inlineCode, tildify } from '../markdown';

/** How many failed approaches a tooltip lists before "… and N more". */
const MAX_FAILED = 5;

export interface TooltipContext {
  /** The folder's current branch ('' unknown, undefined not read yet). */
  currentBranch: string | undefined;
  /** Restricted Mode: git does not run. */
  restricted: boolean;
  /** A click resumes and consumes it (`checkpoint.afterResume` is not "keep"). */
  consumes?: boolean;
}

/** The branch line: where it was saved and whether that is where the user is now. */
function branchMarkdown(saved: string, ctx: TooltipContext): string {
  const warn = !ctx.restricted && branchDiffers(saved, ctx.currentBranch ?? '') ? '$(warning) ' : '';
  return `${warn}${branchSentence(saved, ctx, inlineCode)}`;
}

/** The hover of a checkpoint in the tree: left off, failed approaches, modified files count, plan, branch. */
export function checkpointTooltip(summary: CheckpointSummary, ctx: TooltipContext): vscode.MarkdownString {
  const md = new vscode.MarkdownString('', true);
  if (summary.unreadable) {
    md.appendMarkdown(`$(error) **${escapeMarkdown(summary.name)}** could not be read: `);
    md.appendText(summary.unreadable);
    md.appendMarkdown(`\n\n${inlineCode(tildify(summary.path))}\n\nOpen it to fix it; an unreadable file is never rewritten or deleted automatically.`);
    return md;
  }
  const cp = summary.checkpoint;
  md.appendMarkdown(`**${escapeMarkdown(summary.name)}** — saved ${escapeMarkdown(formatLocalDateTime(new Date(summary.saved)))}`);
  if (summary.source === 'json') md.appendMarkdown(' (JSON history checkpoint; resuming keeps it)');
  if (summary.frontMatterSkipped) {
    md.appendMarkdown('\n\n$(warning) ');
    md.appendText(`${frontMatterNote(summary.frontMatterSkipped)}. The file is never rewritten or deleted automatically.`);
  }
  md.appendMarkdown(`\n\n${branchMarkdown(summary.branch, ctx)}\n\n**Left off:** `);
  md.appendText(cp?.leftOff || summary.description || 'None');
  const failed = cp?.failed ?? [];
  if (failed.length) {
    md.appendMarkdown('\n\n**Failed approaches:**\n');
    for (const f of failed.slice(0, MAX_FAILED)) md.appendMarkdown(`\n- ${escapeMarkdown(f)}`);
    if (failed.length > MAX_FAILED) md.appendMarkdown(`\n- … and ${failed.length - MAX_FAILED} more`);
  }
  const modified = cp?.modifiedFiles.length ?? 0;
  md.appendMarkdown(`\n\n**Modified files:** ${modified}`);
  if (cp?.snapshotSkipped) {
    md.appendMarkdown('\n\n$(warning) **No code snapshot:** ');
    md.appendText(cp.snapshotSkipped);
  } else if (cp?.snapshotLeftOut?.length) {
    md.appendMarkdown(`\n\n**Left out of the code snapshot (too large):** ${cp.snapshotLeftOut.slice(0, MAX_FAILED).map((f) => inlineCode(f)).join(', ')}`);
    if (cp.snapshotLeftOut.length > MAX_FAILED) md.appendMarkdown(` and ${cp.snapshotLeftOut.length - MAX_FAILED} more`);
  }
  if (summary.plan) {
    const step = summary.planStep !== undefined && summary.planSteps !== undefined ? ` (${formatStep(summary.planStep, summary.planSteps)})` : '';
    md.appendMarkdown(`\n\n**Plan:** ${escapeMarkdown(planName(summary.plan))}${escapeMarkdown(step)}`);
  }
  // One click resumes: say what it does to the file.
  if (summary.source === 'json' || ctx.consumes === false) md.appendMarkdown('\n\n_Click to resume; the checkpoint stays._');
  else if (ctx.consumes) md.appendMarkdown('\n\n_Click to resume: the checkpoint moves to the trash (Undo puts it back)._');
  return md;
}
