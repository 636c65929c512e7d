// The order of every listing (the store's, the editor's index and what is shown from them): newest first.
import type { CheckpointSummary } from './storeTypes';

const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Newest first, then by name. When every `saved` is a canonical ISO timestamp (as they all are unless a date lies
 * outside the years 0-9999), comparing them by code unit orders them exactly as localeCompare does: the strings
 * differ first at a digit. That is much cheaper than the collator over thousands of entries.
 */
export function newestFirst(items: CheckpointSummary[]): (a: CheckpointSummary, b: CheckpointSummary) => number {
  // Files that could not be read come after the readable ones (they are listed so that they can be fixed).
  const unreadableLast = (a: CheckpointSummary, b: CheckpointSummary): number => (a.unreadable ? 1 : 0) - (b.unreadable ? 1 : 0);
  if (!items.every((i) => CANONICAL_ISO.test(i.saved))) {
    return (a, b) => unreadableLast(a, b) || b.saved.localeCompare(a.saved) || a.name.localeCompare(b.name);
  }
  return (a, b) => unreadableLast(a, b) || (b.saved < a.saved ? -1 : b.saved > a.saved ? 1 : 0) || a.name.localeCompare(b.name);
}
