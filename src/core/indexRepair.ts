// Index repair: MEMORY.md and the checkpoint files kept in step at every index write. A checkpoint file without a
// bullet (a save killed between its two writes, or one an agent wrote) gets one; a bullet the product wrote whose file
// is gone is dropped. A person's own bullets are never touched.
import { formatBullet, indexBullets, removeFromIndex, upsertIndex, type IndexBullets } from './memoryIndex';
import type { CheckpointSummary } from './storeTypes';

/** At most this many missing bullets are added back per index write (the critical section stays bounded). */
const HEAL_LIMIT = 50;

/**
 * Files without a bullet (by name) and product bullets without a file, for a MEMORY.md text (`bullets`: its bullets
 * when they were read already, with the same `known`).
 */
export function indexMismatch(text: string | undefined, known: Set<string>, bullets?: IndexBullets): { missing: string[]; orphans: string[] } {
  if (text === undefined) return { missing: [...known].sort(), orphans: [] };
  bullets ??= indexBullets(text, known);
  const indexed = new Set(bullets.names);
  const missing = [...known].filter((n) => !indexed.has(n)).sort();
  const orphans = bullets.product.filter((n) => !known.has(n));
  return { missing, orphans };
}


/**
 * `text` with bullets added for checkpoint files that lack one (`summarize`: the listing entry of a name; an
 * unreadable one gets no bullet) and product bullets without a file removed (`bullets`: as {@link indexMismatch}).
 */
export async function healIndex(text: string, known: Set<string>, summarize: (name: string) => Promise<CheckpointSummary>, bullets?: IndexBullets): Promise<string> {
  const { missing, orphans } = indexMismatch(text, known, bullets);
  let out = orphans.length ? removeFromIndex(text, orphans) : text;
  for (const name of missing.slice(0, HEAL_LIMIT)) {
    const entry = await summarize(name).catch(() => undefined);
    if (!entry || entry.unreadable !== undefined) continue;
    out = upsertIndex(out, name, formatBullet(entry), known).text;
  }
  return out;
}
