import { fileNameFor, sanitizeName } from './names';
import { planName } from './plans';

/**
 * Pure helpers behind the editor's "Save" form (no `vscode` import): list splitting, the suggested
 * name and the live file-name preview.
 */

/** The separator of list items typed on one line ("Done This Session", "Failed Approaches"). */
export const ITEM_SEPARATOR = ';';

/**
 * Splits one line of user text into list items at ";". A doubled ";;" stands for a literal ";".
 * Empty items are dropped, so "" (Enter on an empty box) is an empty list.
 */
export function splitItems(text: string): string[] {
  const placeholder = '\u0000';
  return text
    .replaceAll(';;', placeholder)
    .split(ITEM_SEPARATOR)
    .map((item) => item.replaceAll(placeholder, ';').trim())
    .filter((item) => item !== '');
}

/**
 * The name the Save form suggests: the plan's name when there is one, else the branch
 * (`feature/oauth` → `feature-oauth`; a detached HEAD suggests nothing), else `checkpoint`.
 */
export function suggestName(opts: { plan?: string; branch?: string }): string {
  const fromPlan = opts.plan ? sanitizeName(planName(opts.plan)) : '';
  if (fromPlan) return fromPlan;
  const branch = opts.branch ?? '';
  // Detached: `HEAD`, or `HEAD (detached at <sha>)` (a branch name has no spaces); `HEAD-x` is a branch.
  const detached = branch === 'HEAD' || branch.startsWith('HEAD (');
  const fromBranch = detached ? '' : sanitizeName(branch);
  return fromBranch || 'checkpoint';
}

export interface NamePreview {
  /** The sanitized name ('' when nothing usable is left). */
  name: string;
  /** `checkpoint-<name>.md`, when the name is usable. */
  fileName?: string;
  /** Why the name cannot be used. */
  error?: string;
}

/** What a typed name becomes on disk, or why it cannot be used (for live validation). */
export function previewName(raw: string): NamePreview {
  const name = sanitizeName(raw);
  if (!name) {
    return {
      name,
      error: raw.trim() === '' ? 'A name is required.' : 'Nothing usable is left: use letters, digits, ".", "_" or "-".',
    };
  }
  return { name, fileName: fileNameFor(name) };
}
