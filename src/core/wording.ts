// Words and sentences the CLI and the extension both show: written once here.
import { formatRelative } from './dates';

/** Said when a folder has no checkpoint to list, resume or delete. */
export const NO_CHECKPOINTS = 'No saved checkpoints found.';

/** Why branches are unknown in Restricted Mode. */
export const RESTRICTED_GIT = 'git does not run in Restricted Mode';

/** A checkpoint's branch as shown ('no branch' outside a repository). */
export function branchOrNone(branch: string): string {
  return branch || 'no branch';
}

/** "feature/oauth · 2 h ago": where and when a checkpoint was saved, in lists. */
export function branchAndTime(c: { branch: string; saved: string }, now?: Date): string {
  return `${branchOrNone(c.branch)} · ${formatRelative(c.saved, now)}`;
}

/**
 * The sentence about the branch a checkpoint was saved on, against the current one (`code` formats a branch name,
 * e.g. as inline code). Restricted Mode: the current branch is unknown.
 */
export function branchSentence(saved: string, ctx: { currentBranch: string | undefined; restricted: boolean }, code: (s: string) => string): string {
  if (!saved) return ctx.restricted ? `Branch unknown: ${RESTRICTED_GIT}.` : 'Saved without a branch (outside a git repository, or in Restricted Mode).';
  if (ctx.restricted) return `Saved on ${code(saved)}; the current branch is unknown: ${RESTRICTED_GIT}.`;
  if (ctx.currentBranch && ctx.currentBranch !== saved) return `Saved on ${code(saved)}; you are on ${code(ctx.currentBranch)}.`;
  return `Saved on ${code(saved)}.`;
}
