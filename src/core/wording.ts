// Words and sentences the CLI and the extension both show, and the small rules that choose them: written once here.
import { formatRelative } from './dates';
import type { ResolvedMemoryDir } from './memoryDir';
import { printable } from './names';
import { tildify } from './paths';

/** Said when a folder has no checkpoint to list, resume or delete. */
export const NO_CHECKPOINTS = 'No saved checkpoints found.';

/** Why branches are unknown in Restricted Mode. */
export const RESTRICTED_GIT = 'git does not run in Restricted Mode';

/**
 * Why a checkpoint file could not be read, short enough for a list row ("front matter is not valid YAML, line 4");
 * the full message belongs in a tooltip or `show`.
 */
export function unreadableReason(message: string): string {
  const first = (message.split('\n')[0] ?? '').trim().replace(/:$/, '');
  // The line where the YAML parser gave up (for an unclosed bracket, where the front matter ends).
  const yaml = /^invalid front matter: .* at line (\d+), column \d+$/.exec(first);
  if (yaml) return `front matter is not valid YAML, line ${yaml[1]}`;
  const field = /^invalid front matter: .*→ at ([\w.]+)/.exec(first);
  if (field) return `front matter: "${field[1]}" is not valid`;
  if (first.startsWith('no checkpoint front matter')) return 'no front matter and no "# Checkpoint:" heading';
  return printable(first, 60);
}

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

/** "step 3 of 7", or "all 7 steps done". */
export function formatStep(step: number, steps: number): string {
  return step > steps ? `all ${steps} steps done` : `step ${step} of ${steps}`;
}

/**
 * The one-time notice for a memory folder Claude Code will not load although it is Claude's (auto memory off);
 * undefined when there is nothing to tell.
 */
export function autoMemoryOffNotice(resolved: ResolvedMemoryDir, home?: string): string | undefined {
  const off = resolved.claude?.autoMemoryOff;
  if (!off || resolved.claude?.dir !== resolved.dir) return undefined;
  return `Claude Code's auto memory is off (${off}): checkpoints are saved in ${tildify(resolved.dir, home)}, but Claude Code will not load them.`;
}

/** What the product makes of an `autoMemoryDirectory` Claude Code ignores (see `ClaudeMemory.ignored`); undefined when none. */
export function ignoredAutoMemoryNotice(resolved: ResolvedMemoryDir, home?: string): string | undefined {
  const ignored = resolved.claude?.ignored;
  if (!ignored) return undefined;
  return (
    `autoMemoryDirectory ${JSON.stringify(ignored.value)} in ${tildify(ignored.settingsFile, home)} is ignored: Claude Code accepts only an absolute path or ~/…, ` +
    `and loads its default folder ${tildify(resolved.claude?.dir ?? '', home)} instead.`
  );
}

/** What list, show and the tree say of a checkpoint whose front matter was skipped (see Checkpoint.frontMatterSkipped). */
export function frontMatterNote(reason: string): string {
  return `front matter skipped (${reason}); read from its Markdown body`;
}
