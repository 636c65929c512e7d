// How large a checkpoint may grow: Modified Files capped, and a warning that says what made a file large.
import type { Checkpoint } from './checkpoint';

/** Modified Files lists at most this many paths (paths, not contents: the list is where the agent looks, not the diff). */
export const MAX_MODIFIED_FILES = 25;
/** A checkpoint file larger than this is still written, with a warning (a checkpoint is a short note the agent reads at every start). */
export const CHECKPOINT_SIZE_BUDGET = 4 * 1024;

/** The first {@link MAX_MODIFIED_FILES} paths, then `… and N more`. */
export function capModifiedFiles(files: string[]): string[] {
  if (files.length <= MAX_MODIFIED_FILES) return files;
  return [...files.slice(0, MAX_MODIFIED_FILES), `… and ${files.length - MAX_MODIFIED_FILES} more`];
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/**
 * When the rendered checkpoint is over {@link CHECKPOINT_SIZE_BUDGET}: a warning that names the sections that made
 * it large (largest first, those over a fifth of the file), so the user knows what to trim.
 */
export function sizeWarning(cp: Checkpoint, content: string, modifiedCount: number): string | undefined {
  const total = Buffer.byteLength(content, 'utf8');
  if (total <= CHECKPOINT_SIZE_BUDGET) return undefined;
  const bytes = (items: string[]): number => items.reduce((n, i) => n + Buffer.byteLength(i, 'utf8') + 3, 0);
  const parts: [string, number, string][] = [
    ['Left Off', Buffer.byteLength(cp.leftOff, 'utf8'), plural(cp.leftOff.split(/\r?\n/).length, 'line')],
    ['Done This Session', bytes(cp.done), plural(cp.done.length, 'item')],
    ['Failed Approaches', bytes(cp.failed), plural(cp.failed.length, 'item')],
    ['Decisions', bytes(cp.decisions), plural(cp.decisions.length, 'item')],
    ['Open Questions', bytes(cp.questions), plural(cp.questions.length, 'item')],
    ['Modified Files', bytes(cp.modifiedFiles), plural(modifiedCount, 'path')],
  ];
  const big = parts.filter(([, n]) => n > total / 5).sort((a, b) => b[1] - a[1]);
  const what = (big.length ? big : [parts.sort((a, b) => b[1] - a[1])[0]]).map(([label, n, detail]) => `${label} ${kb(n)} (${detail})`).join(', ');
  return (
    `Checkpoint "${cp.name}" is ${kb(total)}, over the ${CHECKPOINT_SIZE_BUDGET / 1024} KB a checkpoint should stay within; ` +
    `it was saved anyway. Largest: ${what}. Keep checkpoints to a few lines and paths, not contents.`
  );
}

