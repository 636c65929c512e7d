// Index repair: MEMORY.md and the checkpoint files kept in step at every index write. A checkpoint file without a
// bullet (a save killed between its two writes, or one an agent wrote) gets one; the line of a checkpoint gone to the
// trash is dropped. A person's own lines are never touched.
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
 * unreadable one gets no bullet) and the lines of checkpoints that are gone to the trash removed. `known`: the names
 * of the live checkpoints and of those in the trash, with which `bullets` (when given) were read. A line that names
 * neither is a person's and stays, whatever its shape.
 */
export async function healIndex(text: string, live: Set<string>, known: Set<string>, summarize: (name: string) => Promise<CheckpointSummary>, bullets?: IndexBullets): Promise<string> {
  bullets ??= indexBullets(text, known);
  const { missing } = indexMismatch(text, live, bullets);
  const gone = bullets.names.filter((n) => !live.has(n));
  let out = gone.length ? removeFromIndex(text, gone, known) : text;
  for (const name of missing.slice(0, HEAL_LIMIT)) {
    const entry = await summarize(name).catch(() => undefined);
    if (!entry || entry.unreadable !== undefined) continue;
    out = upsertIndex(out, name, formatBullet(entry), known).text;
  }
  return out;
}
