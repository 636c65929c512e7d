import { realpathSync, type Stats } from 'node:fs';
import { resolve, sep } from 'node:path';
import { insideAny } from '../files';
import type { GitOptions, GitState } from '../git';
import { isLikelySecret } from '../secrets';
import { splitZ } from '../git';
import { type Reads } from '../reads';

// What a snapshot takes from the work tree: the status scan's paths (untracked folders expanded to their files),
// less the memory folder, likely secrets and files over the per-file cap, with the size of each.

/**
 * A test for paths relative to the repository's top `top`: true inside the memory folder (compared by real path too:
 * the top is a real path).
 */
export function memoryTest(top: string, memoryDir: string | undefined): (p: string) => boolean {
  if (!memoryDir) return () => false;
  const dirs = [resolve(memoryDir)];
  try {
    dirs.push(realpathSync(memoryDir));
  } catch {
    // not there yet: nothing of it can be in the work tree either, but its lexical path is still compared
  }
  return insideAny(top, dirs);
}

/** What the work tree holds beyond the index, as the snapshot takes it. */
export interface Candidates {
  /** Paths taken from the work tree (changed, deleted, untracked), relative to the top. */
  take: string[];
  /** Left out: larger than the per-file cap. */
  tooLarge: { path: string; size: number }[];
  /** Left out: likely secrets (the rule save-and-commit applies). */
  secrets: string[];
  /** Bytes of new content in `take`. */
  total: number;
  /** The size of each file in `take` (not of what is gone, links or gitlinks). */
  sizes: Map<string, number>;
}

/** Files stat'ed at once. */
const STAT_CHUNK = 64;

/** lstat of each path under `top` (undefined: not there, or not readable). */
export async function statPaths(top: string, paths: readonly string[], reads: Reads): Promise<(Stats | undefined)[]> {
  // git's paths are already normal (relative, `/`-separated, no `.` or `..`): joined as strings, not by path.join,
  // whose normalizing of each one costs more than its lstat.
  const base = top.endsWith('/') || top.endsWith(sep) ? top : `${top}/`;
  const out: (Stats | undefined)[] = [];
  for (let i = 0; i < paths.length; i += STAT_CHUNK) {
    out.push(...(await Promise.all(paths.slice(i, i + STAT_CHUNK).map((p) => reads.lstat(base + p).catch(() => undefined)))));
  }
  return out;
}

/**
 * Sorts the scanned paths into what the snapshot takes and what it leaves out, with their sizes. `seen`: paths
 * already looked at (while git scanned): not likely secrets, and stat'ed.
 */
export async function sortCandidates(
  top: string,
  paths: string[],
  opts: { fileLimitBytes: number; memoryDir?: string; reads: Reads },
  seen: ReadonlyMap<string, Stats | undefined>,
): Promise<Candidates> {
  const inMemory = memoryTest(top, opts.memoryDir);
  const out: Candidates = { take: [], tooLarge: [], secrets: [], total: 0, sizes: new Map() };
  const kept = paths.filter((p) => {
    if (inMemory(p)) return false;
    if (!seen.has(p) && isLikelySecret(p)) {
      out.secrets.push(p);
      return false;
    }
    return true;
  });
  const unseen = kept.filter((p) => !seen.has(p));
  const stats = await statPaths(top, unseen, opts.reads);
  const fresh = new Map(unseen.map((p, k) => [p, stats[k]]));
  for (const p of kept) {
    const st = seen.has(p) ? seen.get(p) : fresh.get(p);
    if (st?.isFile() && st.size > opts.fileLimitBytes) out.tooLarge.push({ path: p, size: st.size });
    else {
      if (st?.isFile()) {
        out.total += st.size;
        out.sizes.set(p, st.size);
      }
      out.take.push(p);
    }
  }
  return out;
}

/** The status scan's paths, untracked folders expanded to their files (what `git add -A` would add). */
export async function scannedPaths(top: string, scan: GitState, git: (cwd: string, args: string[], opts?: GitOptions) => Promise<string>): Promise<string[]> {
  const entries = scan.entries ?? [];
  const paths = entries.filter((e) => !(e.untracked && e.path.endsWith('/'))).map((e) => e.path);
  const folders = entries.filter((e) => e.untracked && e.path.endsWith('/')).map((e) => e.path);
  for (let i = 0; i < folders.length; i += 500) {
    const out = await git(top, ['ls-files', '-z', '--others', '--exclude-standard', '--', ...folders.slice(i, i + 500)], { env: { GIT_LITERAL_PATHSPECS: '1' } });
    // A nested repository is listed as `dir/`: it is recorded as a gitlink, as `git add -A` would.
    paths.push(...splitZ(out).map((p) => (p.endsWith('/') ? p.slice(0, -1) : p)));
  }
  return paths;
}

/**
 * Taken paths whose file is larger than `fileLimitBytes` in `tree`: only those whose size changed since their lstat
 * are looked at (one git process, and only when one changed).
 */
export async function grownPastCap(
  top: string,
  tree: string,
  c: Candidates,
  opts: { fileLimitBytes: number; reads: Reads },
  git: (cwd: string, args: string[], opts?: GitOptions) => Promise<string>,
): Promise<string[]> {
  const paths = [...c.sizes.keys()];
  const now = await statPaths(top, paths, opts.reads);
  const changed = paths.filter((p, k) => now[k] !== undefined && now[k]!.size !== c.sizes.get(p));
  if (changed.length === 0) return [];
  // A path with a line break cannot be asked about on cat-file's line input: it is taken as grown.
  const asked = changed.filter((p) => !p.includes('\n'));
  const out = asked.length ? await git(top, ['cat-file', '--batch-check=%(objectsize)'], { input: asked.map((p) => `${tree}:${p}\n`).join('') }) : '';
  const sizes = out.split('\n');
  return [...asked.filter((_, k) => Number(sizes[k]) > opts.fileLimitBytes), ...changed.filter((p) => p.includes('\n'))];
}

/** A size for the user: `1.5 MB`. */
export function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}
