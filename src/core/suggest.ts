// "Did you mean": the names nearest a mistyped one, for checkpoint names, commands and options alike.

/** Levenshtein distance between `a` and `b`, giving up (returning `max + 1`) once it is past `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, row[j]);
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length];
}

/**
 * The candidates nearest `typed` (at most `limit`, nearest first, then alphabetical): within a third of the typed
 * length in edits (at least 1, at most 3), or starting with what was typed (`sav` → `save`). Case is ignored.
 */
export function nearest(typed: string, candidates: Iterable<string>, limit = 3): string[] {
  const t = typed.toLowerCase();
  if (t === '') return [];
  const max = Math.min(3, Math.max(1, Math.floor(t.length / 3)));
  const scored: { c: string; d: number }[] = [];
  for (const c of new Set(candidates)) {
    const lc = c.toLowerCase();
    if (lc === t) continue;
    const d = lc.startsWith(t) && t.length >= 2 ? 0.5 : editDistance(t, lc, max);
    if (d <= max) scored.push({ c, d });
  }
  return scored
    .sort((x, y) => x.d - y.d || (x.c < y.c ? -1 : 1))
    .slice(0, limit)
    .map((s) => s.c);
}

/** ` Did you mean "a" or "b"?` (with a leading space), or '' when nothing is near. `quote` formats each. */
export function didYouMean(typed: string, candidates: Iterable<string>, quote: (s: string) => string = (s) => `"${s}"`): string {
  const near = nearest(typed, candidates);
  if (near.length === 0) return '';
  const names = near.map(quote);
  return ` Did you mean ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`}?`;
}
