// Where a pending checkpoint's branch stands against the current one, and the order a new session offers pending
// checkpoints in: the current branch's first, then those whose branch is merged into it, then the rest.
import { isObjectId, type Checkpoint } from './checkpoint';
import { oneLine } from './escaping';
import { git as gitCall } from './git';
import { isAncestor, plainBranch, type SinceSource } from './since';

/** Where a pending checkpoint's branch stands against the current one. */
export type BranchPlace = 'current' | 'merged' | 'other';

/** The branch ordering at a session start gives up after this long: the order found so far without git then stands. */
const BRANCH_ORDER_MS = 1000;

/** How many checkpoints of deleted branches are read for their HEAD (to tell whether their work was merged). */
const DELETED_READ = 5;

/**
 * Pending checkpoints in the order a new session offers them: those of the current branch first, then those whose
 * branch is merged into it (a deleted branch counts when the checkpoint's HEAD is in the current branch), then the
 * rest; within each, the order given. Each with its place. Without git, or when git is slow, every checkpoint of
 * another branch is `other` (never the current branch's work).
 */
export async function orderByBranch<T extends { branch: string; path: string }>(
  source: SinceSource & { read(file: string): Promise<Checkpoint> },
  items: readonly T[],
  currentBranch: string,
  timeLimitMs = BRANCH_ORDER_MS,
): Promise<{ item: T; place: BranchPlace }[]> {
  const places = new Map<string, BranchPlace>();
  const others = [...new Set(items.map((c) => c.branch))].filter((b) => b !== currentBranch && plainBranch(b));
  if (source.allowGit && currentBranch && others.length) {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), timeLimitMs);
    timer.unref();
    const git = (args: string[], failOnExitCode = false): Promise<string> =>
      gitCall(source.cwd, args, { timeoutMs: timeLimitMs, signal: stop.signal, failOnExitCode });
    try {
      const refs = (out: string): Set<string> => new Set(out.split('\n').filter((l) => l !== ''));
      const [all, merged] = await Promise.all([
        git(['for-each-ref', '--format=%(refname)', 'refs/heads/']).then(refs),
        // Not one at HEAD's very commit: a branch just created there holds no work of its own to have merged.
        git(['for-each-ref', '--format=%(refname)', '--merged=HEAD', '--no-contains=HEAD', 'refs/heads/']).then(refs),
      ]);
      for (const b of others) if (merged.has(`refs/heads/${b}`)) places.set(b, 'merged');
      const deleted = items.filter((c) => others.includes(c.branch) && !all.has(`refs/heads/${c.branch}`)).slice(0, DELETED_READ);
      await Promise.all(
        deleted.map(async (c) => {
          const head = (await source.read(c.path).catch(() => undefined))?.head;
          if (isObjectId(head) && (await isAncestor(git, head, 'HEAD'))) places.set(`${c.branch}\0${c.path}`, 'merged');
        }),
      );
    } catch {
      // Slow or failing git: what was found so far stands; the rest are another branch's.
    } finally {
      clearTimeout(timer);
    }
  }
  const placeOf = (c: T): BranchPlace =>
    c.branch !== '' && c.branch === currentBranch ? 'current' : (places.get(c.branch) ?? places.get(`${c.branch}\0${c.path}`) ?? 'other');
  const rank: Record<BranchPlace, number> = { current: 0, merged: 1, other: 2 };
  return items.map((item) => ({ item, place: placeOf(item) })).sort((a, b) => rank[a.place] - rank[b.place]);
}

/** "on feature/x", "on feature/x, merged into main", "on feature/x, not the current branch main": a pending one's branch. */
export function branchPlaceText(branch: string, place: BranchPlace, currentBranch: string, line: (s: string) => string = oneLine): string {
  if (!branch) return 'on no branch';
  if (place === 'current' || !currentBranch) return `on ${line(branch)}`;
  if (place === 'merged') return `on ${line(branch)}, merged into ${line(currentBranch)}`;
  return `on ${line(branch)}, another branch than ${line(currentBranch)}`;
}
