// What changed in the repository since a checkpoint was saved: the commits on its branch since its HEAD, whether
// that branch was merged into the current one or deleted, and the files changed since its code snapshot. Every
// surface that resumes or shows a checkpoint states it in one line ({@link sinceLine}); `--json` carries the object.
import { isObjectId, type Checkpoint } from './checkpoint';
import { errorMessage } from './errors';
import { oneLine } from './escaping';
import { git as gitCall, splitZ } from './git';
import { GitTimeoutError } from './gitProcess';
import { memoryTest } from './snapshot/candidates';

/** The whole comparison gives up after this long and says "not checked": a resume never waits on a slow repository. */
const SINCE_TIME_LIMIT_MS = 2000;

/**
 * What the comparison reads of the work tree: the index against the work tree (each file stat'ed against the index's
 * record of it, none read: a file whose stat changed shows with id 0, to be hashed) and the untracked files not
 * ignored, of the whole repository (`:/`) wherever in it the comparison runs.
 */
const WORK_TREE_ARGS = {
  changed: ['diff-files', '--raw', '-z', '--ignore-submodules=none'],
  untracked: ['ls-files', '--others', '--exclude-standard', '--full-name', '-z', '--', ':/'],
};

/** How many commit subjects and changed paths the line and the JSON name. */
const SUBJECTS = 3;
const PATHS = 5;

/** Where the checkpoint's branch stands now. */
export type SinceBranchState = 'current' | 'present' | 'deleted' | 'detached' | 'none';

export interface Since {
  /** `fresh`: nothing moved; `moved`: something did; `unknown`: nothing could be told; `not-checked`: too slow. */
  state: 'fresh' | 'moved' | 'unknown' | 'not-checked';
  /** The one line every surface shows. */
  line: string;
  /** The checkpoint's branch, as saved ('' none). */
  branch: string;
  /** `current`: it is the current branch; `present`: another that exists; `deleted`: no such branch any more. */
  branchState?: SinceBranchState;
  /**
   * Its work is in the current branch: its tip is an ancestor of HEAD (not HEAD's commit itself), or for a deleted
   * branch the checkpoint's HEAD is in the current branch.
   */
  merged?: boolean;
  /** Commits on the branch (on HEAD for a detached checkpoint) since the checkpoint's HEAD; absent when unknown. */
  commits?: { count: number; subjects: string[]; rewritten: boolean };
  /** Files that differ between the snapshot and the work tree now; absent when unknown. */
  files?: { count: number; paths: string[]; modifiedAgain: string[] };
  /** What could not be told, and why. */
  unknown: string[];
}

/** What the comparison needs of a store. */
export interface SinceSource {
  readonly cwd: string;
  readonly memoryDir: string;
  /** False in Restricted Mode: git does not run. */
  readonly allowGit: boolean;
}

/** A branch name as git would take it after `refs/heads/`: nothing a revision expression or a pattern reads. */
export function plainBranch(name: string): boolean {
  // One pass, linear: the characters and sequences check-ref-format refuses, and those a revision expression reads.
  return (
    name !== '' &&
    !name.startsWith('-') &&
    !name.startsWith('/') &&
    !name.endsWith('/') &&
    !name.endsWith('.lock') &&
    !name.includes('..') &&
    !name.includes('@{') &&
    !name.includes('//') &&
    !/[\0-\x20\x7f~^:?*[\\]/.test(name)
  );
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * Compares a checkpoint with the repository now. Never throws: what cannot be told is said in `unknown`, and a
 * comparison that would take longer than `timeLimitMs` is "not checked".
 */
export async function sinceSaved(
  source: SinceSource,
  cp: Checkpoint,
  opts: { currentBranch?: string | Promise<string>; timeLimitMs?: number; files?: boolean } = {},
): Promise<Since> {
  const since: Since = { state: 'unknown', line: '', branch: cp.branch, unknown: [] };
  if (!source.allowGit) return finish(since, 'git does not run in Restricted Mode');
  const limit = opts.timeLimitMs ?? SINCE_TIME_LIMIT_MS;
  const deadline = Date.now() + limit;
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), limit);
  timer.unref();
  const gitAt =
    (cwd: string): Git =>
    (args, failOnExitCode = false, input = undefined) =>
      gitCall(cwd, args, { timeoutMs: Math.max(50, deadline - Date.now()), signal: stop.signal, failOnExitCode, input });
  try {
    await compare(since, cp, gitAt, source, { currentBranch: opts.currentBranch, files: opts.files ?? true });
  } catch (err) {
    if (err instanceof GitTimeoutError || stop.signal.aborted) {
      since.state = 'not-checked';
      since.commits = undefined;
      since.files = undefined;
      since.unknown = [`not checked: the repository did not answer within ${(limit / 1000).toFixed(1)} s`];
      since.line = `Since saved: not checked (the repository did not answer within ${(limit / 1000).toFixed(1)} s).`;
      return since;
    }
    return finish(since, oneLine(errorMessage(err)).slice(0, 200));
  } finally {
    clearTimeout(timer);
  }
  return finish(since);
}

type Git = (args: string[], failOnExitCode?: boolean, input?: string) => Promise<string>;

/** Whether a comparison made from `a` holds for `b`: the fields it reads are the same. */
export function sameSince(a: Checkpoint, b: Checkpoint): boolean {
  const key = (c: Checkpoint): string => JSON.stringify([c.branch, c.head, c.snapshot, c.snapshotSkipped, c.snapshotLeftOut, c.modifiedFiles]);
  return key(a) === key(b);
}

/** A git call that answers yes (exit 0) or no (exit 1); a time limit still throws. */
async function yes(git: Git, args: string[]): Promise<boolean> {
  try {
    await git(args, true);
    return true;
  } catch (err) {
    if (err instanceof GitTimeoutError) throw err;
    return false;
  }
}

async function compare(
  since: Since,
  cp: Checkpoint,
  gitAt: (cwd: string) => Git,
  source: SinceSource,
  opts: { currentBranch?: string | Promise<string>; files: boolean },
): Promise<void> {
  const git = gitAt(source.cwd);
  const detached = /^HEAD \(detached at [0-9a-f]+\)$/.test(cp.branch);
  const named = !detached && plainBranch(cp.branch);
  const ref = `refs/heads/${cp.branch}`;
  // One round of two processes: the top folder (outside a repository: none), and every object the comparison starts
  // from, looked up on stdin (HEAD, the checkpoint's HEAD and snapshot, its branch's tip; a missing one is "missing").
  const names = ['HEAD', isObjectId(cp.head) ? `${cp.head}^{commit}` : '', opts.files && isObjectId(cp.snapshot) ? `${cp.snapshot}^{commit}` : '', named ? ref : ''];
  const asked = names.filter((n) => n !== '');
  // The comparisons themselves start now too, on what they would be given (a missing object makes one fail, and
  // what it said is then not used): one round of processes, not two.
  const tipRev = detached ? 'HEAD' : named ? ref : '';
  const ahead = isObjectId(cp.head) && tipRev ? cp.head : '';
  const snap = opts.files && isObjectId(cp.snapshot) ? cp.snapshot : '';
  const started: Started = {
    // `<head>...<tip>`, each commit marked with its side: `<` only the checkpoint's HEAD has it (the branch was
    // rewritten), `>` only the tip (a new one), newest first.
    commits: ahead ? settled(git(['log', '--no-color', '--left-right', '--format=%m%s', '--end-of-options', `${ahead}...${tipRev}`])) : undefined,
    // The snapshot's tree against the index: no file is stat'ed.
    staged: snap ? settled(git(['diff-index', '--cached', '--raw', '-z', '--no-renames', '--ignore-submodules=none', snap, '--'])) : undefined,
    ...(snap ? workTreeNow(git) : {}),
  };
  // Without the files, the top folder is not needed: cat-file failing says "not a repository" as well.
  const [topFound, found] = await Promise.all([
    opts.files
      ? git(['rev-parse', '--show-toplevel']).then((s) => s.trim(), (err: unknown) => {
          if (err instanceof GitTimeoutError) throw err;
          return '';
        })
      : Promise.resolve(undefined),
    git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], false, asked.map((n) => `${n}\n`).join('')).then(
      (out) => {
        const lines = out.split('\n');
        const commitOf = (line = ''): string => {
          const [id, type] = line.split(' ');
          return type === 'commit' && isObjectId(id) ? id : '';
        };
        return new Map(asked.map((n, i) => [n, commitOf(lines[i])]));
      },
      (err: unknown) => {
        if (err instanceof GitTimeoutError) throw err;
        return undefined;
      },
    ),
  ]);
  const top = topFound ?? (found ? source.cwd : '');
  if (!top || !found) {
    await Promise.all(Object.values(started));
    since.unknown.push('not a git repository');
    return;
  }
  const head = found.get('HEAD') ?? '';
  const tip = named ? (found.get(ref) ?? '') : '';
  const headKnown = names[1] !== '' && (found.get(names[1]) ?? '') !== '';
  const snapshotKnown = names[2] !== '' && (found.get(names[2]) ?? '') !== '';
  const current = (await opts.currentBranch) ?? '';
  if (!cp.branch) since.branchState = 'none';
  else if (detached) since.branchState = 'detached';
  else if (!tip) since.branchState = 'deleted';
  else since.branchState = cp.branch === current ? 'current' : 'present';
  const merged = async (): Promise<void> => {
    // A branch at HEAD's very commit holds no work of its own to have merged (a branch just created, say).
    if (since.branchState === 'present' && head) since.merged = tip !== head && (await isAncestor(git, tip, head));
    if (since.branchState === 'deleted' && headKnown && head) since.merged = await isAncestor(git, cp.head!, head);
  };
  // What each part cannot tell, said in a fixed order (commits, then files) whichever answers first.
  const noCommits: string[] = [];
  const noFiles: string[] = [];
  const files = opts.files
    ? filesSince(since, cp, source, gitAt(top), top, snapshotKnown, noFiles, started)
    : Promise.resolve(noFiles.push('which files changed since its snapshot (not compared at a session start; checkpoint show compares them)'));
  await Promise.all([merged(), commitsSince(since, cp, { tip: detached ? head : tip, headKnown }, noCommits, started), files]);
  since.unknown.push(...noCommits, ...noFiles);
}

/** A git call's output, or why it failed, as a value (so that a call started early never rejects unheard). */
type Settled = Promise<{ out: string } | { failed: unknown }>;
const settled = (p: Promise<string>): Settled => p.then((out) => ({ out }), (failed: unknown) => ({ failed }));

/** The calls {@link compare} starts with its first round. */
interface Started extends Partial<WorkTreeNow> {
  commits?: Settled;
  staged?: Settled;
}

/** What the comparison reads of the work tree (see WORK_TREE_ARGS). */
interface WorkTreeNow {
  changed: Settled;
  untracked: Settled;
}

/** The work tree's scan, both of its git calls started at once. */
function workTreeNow(git: Git): WorkTreeNow {
  return { changed: settled(git(WORK_TREE_ARGS.changed)), untracked: settled(git(WORK_TREE_ARGS.untracked)) };
}

/** One entry of `git diff-* --raw -z --no-renames`: modes and ids of both sides (zeros: none, or not hashed), status. */
interface RawEntry {
  mode1: string;
  mode2: string;
  id1: string;
  id2: string;
  status: string;
}

function parseRaw(out: string, skip: (p: string) => boolean): Map<string, RawEntry> {
  const entries = new Map<string, RawEntry>();
  const parts = splitZ(out);
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [mode1, mode2, id1, id2, status] = parts[i].slice(1).split(' ');
    if (!skip(parts[i + 1])) entries.set(parts[i + 1], { mode1, mode2, id1, id2, status });
  }
  return entries;
}

const regular = (mode: string): boolean => mode === '100644' || mode === '100755';

/** The output of a call started early; a time limit throws, another failure is the reason given. */
async function outputOf(call: Settled | undefined, why: string): Promise<string> {
  const r = await call;
  if (r && 'out' in r) return r.out;
  if (r?.failed instanceof GitTimeoutError) throw r.failed;
  throw new Error(r ? errorMessage(r.failed).split('\n')[0] : why);
}

/** True when commit `a` is an ancestor of (or is) `b`; both are object ids. */
export const isAncestor = (git: Git, a: string, b: string): Promise<boolean> => yes(git, ['merge-base', '--is-ancestor', '--end-of-options', a, b]);

async function commitsSince(since: Since, cp: Checkpoint, { tip, headKnown }: { tip: string; headKnown: boolean }, unknown: string[], started: Started): Promise<void> {
  if (!isObjectId(cp.head)) {
    unknown.push('it was saved without a HEAD commit, so commits since cannot be told');
    return;
  }
  if (!headKnown) {
    unknown.push(`its HEAD commit ${cp.head.slice(0, 12)} is not in this repository`);
    return;
  }
  if (!tip) {
    if (since.branchState !== 'deleted') unknown.push('it names no branch, so commits since cannot be told');
    return;
  }
  const lines = (await outputOf(started.commits, 'not listed')).split('\n');
  const added = lines.filter((l) => l.startsWith('>'));
  since.commits = {
    count: added.length,
    subjects: added.slice(0, SUBJECTS).map((l) => oneLine(l.slice(1)).slice(0, 120)),
    rewritten: lines.some((l) => l.startsWith('<')),
  };
}

/**
 * The files that differ between the snapshot and the work tree now, as a snapshot of now would hold it (tracked
 * files, and untracked ones not ignored), without writing one. Three answers started in the first round make it: the
 * snapshot's tree against the index, the index against the work tree (by stat), and the untracked files; a file whose
 * stat changed, and one untracked then and now, is hashed and compared with the snapshot's blob.
 */
async function filesSince(since: Since, cp: Checkpoint, source: SinceSource, git: Git, top: string, known: boolean, unknown: string[], started: Started): Promise<void> {
  if (!isObjectId(cp.snapshot)) {
    unknown.push(cp.snapshotSkipped ? `it has no code snapshot (${oneLine(cp.snapshotSkipped).slice(0, 120)})` : 'it has no code snapshot, so files changed since cannot be told');
    return;
  }
  if (!known) {
    unknown.push(`its snapshot ${cp.snapshot.slice(0, 12)} is no longer in this repository (pruned, or saved in another clone)`);
    return;
  }
  // No diff program or filter of the repository's config runs; the index is not refreshed (nothing is written).
  const [stagedOut, changedOut, untrackedOut] = await Promise.all([
    outputOf(started.staged, 'not compared'),
    outputOf(started.changed, 'not compared'),
    outputOf(started.untracked, 'not listed'),
  ]);
  const inMemory = memoryTest(top, source.memoryDir);
  const leftOut = new Set(cp.snapshotLeftOut ?? []);
  // Snapshot → index, and index → work tree.
  const staged = parseRaw(stagedOut, inMemory);
  const dirty = parseRaw(changedOut, inMemory);
  const untracked = new Set(splitZ(untrackedOut).filter((p) => !inMemory(p) && !leftOut.has(p)));
  const changed = new Set<string>();
  // Files to hash, with the blob the snapshot holds for each.
  const check: { path: string; blob: string }[] = [];
  for (const [p, s] of staged) {
    if (s.status === 'D') {
      // In the snapshot, not in the index: untracked then (or removed from the index since). Compared by content
      // when it is an untracked file now; otherwise it is gone, or ignored now.
      if (untracked.has(p) && regular(s.mode1)) check.push({ path: p, blob: s.id1 });
      else changed.add(p);
    } else if (!dirty.has(p)) changed.add(p); // the work tree's file is the index's, which differs from the snapshot
  }
  for (const [p, d] of dirty) {
    const s = staged.get(p);
    // The snapshot's side: its own where it differs from the index (000000: not in it), else the index's (000000 for
    // an intent-to-add entry: not told, so such a file counts as changed).
    const snapMode = s ? s.mode1 : d.mode1;
    const gone = d.status === 'D';
    // A file not in the snapshot counts unless it is gone from the work tree too; one there (stat changed, or in the
    // index as intent-to-add) is hashed.
    if (snapMode === '000000') {
      if (!gone) changed.add(p);
    } else if ((d.status === 'M' || d.status === 'A') && snapMode === d.mode2 && regular(snapMode) && /^0+$/.test(d.id2)) check.push({ path: p, blob: s ? s.id1 : d.id1 });
    else changed.add(p);
  }
  for (const p of untracked) if (staged.get(p)?.status !== 'D') changed.add(p);
  const plain = check.filter((c) => !/[\n\r]/.test(c.path));
  for (const c of check) if (/[\n\r]/.test(c.path)) changed.add(c.path);
  if (plain.length) {
    // Each file hashed as `git add` would.
    const ids = (await git(['hash-object', '--stdin-paths'], false, plain.map((c) => `${c.path}\n`).join(''))).split('\n');
    plain.forEach((c, i) => {
      if (ids[i] !== c.blob) changed.add(c.path);
    });
  }
  const paths = [...changed].sort();
  since.files = { count: paths.length, paths: paths.slice(0, PATHS), modifiedAgain: cp.modifiedFiles.filter((f) => changed.has(f)) };
}

/** Fills in `state` and `line` from what was found. */
function finish(since: Since, problem?: string): Since {
  if (problem) since.unknown.push(problem);
  const facts: string[] = [];
  const b = oneLine(since.branch);
  const deleted = since.branchState === 'deleted';
  if (since.merged) facts.push(`${b} has been merged into the current branch${deleted ? ' and deleted' : ''}`);
  else if (deleted) facts.push(`${b} is no longer a branch here (deleted, or never in this clone)`);
  const c = since.commits;
  if (c?.rewritten) facts.push(`${b || 'HEAD'} was rewritten (rebased or force-pushed): it no longer holds the checkpoint's HEAD`);
  if (c?.count) facts.push(`${plural(c.count, 'new commit')} on ${since.branchState === 'detached' ? 'HEAD' : b} (${c.subjects.map((s) => `"${s}"`).join(', ')}${c.count > c.subjects.length ? ', …' : ''})`);
  const f = since.files;
  if (f?.count) {
    const more = f.count > f.paths.length ? ` and ${f.count - f.paths.length} more` : '';
    facts.push(`${plural(f.count, 'file')} changed since its snapshot (${f.paths.map(oneLine).join(', ')}${more})`);
    if (f.modifiedAgain.length) facts.push(`of its Modified Files, ${f.modifiedAgain.slice(0, PATHS).map(oneLine).join(', ')}${f.modifiedAgain.length > PATHS ? ` and ${f.modifiedAgain.length - PATHS} more` : ''} changed again`);
  }
  const told = c !== undefined || f !== undefined || since.merged === true || deleted;
  const cannot = since.unknown.length ? `; cannot tell: ${since.unknown.join('; ')}` : '';
  if (facts.length) {
    since.state = 'moved';
    const counts = [c ? plural(c.count, 'commit') : undefined, f ? plural(f.count, 'file') : undefined].filter((x) => x !== undefined);
    since.line = `Since saved: moved on${counts.length ? `: ${counts.join(', ')} since` : ''} — ${facts.join('; ')}${cannot}.`;
  } else if (told) {
    since.state = 'fresh';
    since.line = `Since saved: fresh — ${[c ? `no new commit on ${since.branchState === 'detached' ? 'HEAD' : b}` : undefined, f ? 'no file changed since its snapshot' : undefined].filter(Boolean).join(', ') || 'nothing moved'}${cannot}.`;
  } else {
    since.state = 'unknown';
    since.line = `Since saved: cannot tell what changed — ${since.unknown.join('; ') || 'nothing to compare'}.`;
  }
  return since;
}
