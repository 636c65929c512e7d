import { errorMessage } from '../errors';
import { oneLine } from '../escaping';
import type { GitState } from '../git';
import { GIT_TIMEOUT_MS, GitTimeoutError } from '../gitProcess';
import { mb, type Candidates } from './candidates';
import { threadPoolReads, type Reads } from '../reads';
import { commitTree, keepSnapshot, snapshotRef } from './refs';
import { DEFAULT_FILE_LIMIT_BYTES, DEFAULT_SNAPSHOT_LIMIT_BYTES, readGround, writeWorkTree, type TreeOptions } from './workTree';

// A save's code snapshot: the work tree (tracked changes and untracked files that are not ignored) as a commit object
// on HEAD, written with git's own plumbing through an index of the product's own, so the user's index, work tree,
// stash list and HEAD are never touched. Blobs are shared with the repository: a snapshot costs the changed files.
// A save begins one beside its status scan, waits for its commit, writes the checkpoint that names it, and only then
// keeps it under a ref; whatever happens, it ends it in one `finally`.

export interface SnapshotOptions {
  /** Off: no snapshot. Default on. */
  enabled?: boolean;
  /** Bytes of new content (changed and untracked files) above which the snapshot is skipped. */
  limitBytes?: number;
  /** A changed or untracked file above this many bytes is left out (listed in `skipped`). */
  fileLimitBytes?: number;
  /** Total time for the snapshot's git calls: a snapshot that would take longer is skipped. */
  timeLimitMs?: number;
  /** The memory folder: nothing in it enters a snapshot. */
  memoryDir?: string;
  /** How the snapshot reads files (the store's; default through the thread pool). */
  reads?: Reads;
}

export interface SnapshotOutcome {
  /** The snapshot commit and the HEAD it was taken on ('' before the first commit). */
  snapshot?: { head: string; commit: string };
  /** Why no snapshot was taken, or what it left out: shown to the user. */
  warnings: string[];
  /** Informational (submodules recorded at their commit, files left out). */
  notes: string[];
  /** Files left out of the snapshot as larger than the per-file cap. */
  skipped: string[];
  /** Why no snapshot was taken, when one was due. */
  reason?: string;
}

/** The code snapshot of one save: {@link CodeSnapshot.begin}, {@link tree}, {@link keep}, and {@link end} in a `finally`. */
export class CodeSnapshot {
  private readonly stop = new AbortController();
  private readonly taking: Promise<SnapshotOutcome>;
  private readonly timeLimitMs: number;
  /** Settles once the snapshot index's note is written (never rejects). */
  private noted?: Promise<void>;

  private constructor(
    private readonly cwd: string,
    private readonly name: string,
    scan: Promise<GitState>,
    opts: SnapshotOptions,
  ) {
    this.timeLimitMs = opts.timeLimitMs ?? GIT_TIMEOUT_MS;
    this.taking = this.take(scan, {
      limitBytes: opts.limitBytes ?? DEFAULT_SNAPSHOT_LIMIT_BYTES,
      fileLimitBytes: opts.fileLimitBytes ?? DEFAULT_FILE_LIMIT_BYTES,
      timeLimitMs: this.timeLimitMs,
      memoryDir: opts.memoryDir,
      reads: opts.reads ?? threadPoolReads,
      signal: this.stop.signal,
    });
  }

  /**
   * Starts the snapshot of the work tree at `cwd` for checkpoint `name`, on `scan` (the save's status scan, which
   * serves its Modified Files too): what it reads beside the scan is read now.
   */
  static begin(cwd: string, name: string, scan: Promise<GitState>, opts: SnapshotOptions = {}): CodeSnapshot {
    return new CodeSnapshot(cwd, name, scan, opts);
  }

  /**
   * The snapshot commit (HEAD its parent; none before the first commit), with no ref yet. Never throws: outside a git
   * work tree there is none and nothing is said; when it cannot be taken (too large, git failed or ran too long), the
   * outcome says why.
   */
  tree(): Promise<SnapshotOutcome> {
    return this.taking;
  }

  /**
   * Points the checkpoint's snapshot ref at the snapshot, once the checkpoint that names it is written (a save that
   * writes nothing moves no ref). `previous`: where the ref points, as the checkpoint it replaces says ('' none; only
   * a guess, checked). Resolves with a warning when no ref could keep it.
   */
  async keep(previous?: string): Promise<string | undefined> {
    const commit = (await this.taking).snapshot?.commit;
    if (!commit) return undefined;
    return keepSnapshot(this.cwd, this.name, commit, this.timeLimitMs, previous).then(
      () => undefined,
      (err: unknown) => `The code snapshot ${commit.slice(0, 12)} is saved but no ref keeps it (${errorMessage(err).trim().split('\n')[0]}); git may prune it.`,
    );
  }

  /**
   * The save's `finally`: stops what git still runs for the snapshot and waits for the snapshot index's note. A
   * snapshot not kept by then is abandoned: no ref names it, and git prunes it.
   */
  async end(): Promise<void> {
    this.stop.abort();
    await this.taking;
    await this.noted;
  }

  private async take(scan: Promise<GitState>, opts: TreeOptions): Promise<SnapshotOutcome> {
    const outcome: SnapshotOutcome = { warnings: [], notes: [], skipped: [] };
    const skip = (reason: string): SnapshotOutcome => {
      outcome.reason = reason;
      outcome.warnings.push(`Code snapshot skipped: ${reason}`);
      return outcome;
    };
    // Read while git scans the work tree.
    const ground = readGround(this.cwd, opts).catch(() => undefined);
    try {
      // A name git would not take as a ref gets no snapshot (no ref could keep it).
      const refused = await snapshotRef(this.cwd, this.name, opts.timeLimitMs).then(() => undefined, (err: unknown) => err as Error);
      if (refused) {
        // Outside a work tree there is no snapshot to skip.
        if (!(await ground)) return outcome;
        return skip(errorMessage(refused));
      }
      const wt = await writeWorkTree(this.cwd, ground, scan, opts);
      this.noted = wt.noted;
      if (wt.tooLarge || !wt.tree) return skip(`${wt.tooLarge ?? 'no tree'}. Ignore such files in .gitignore, or raise the snapshot size limit.`);
      outcome.skipped = (wt.candidates?.tooLarge ?? []).map((f) => f.path);
      outcome.notes.push(...leftOutNotes(wt.candidates, opts.fileLimitBytes));
      for (const link of wt.gitlinks) outcome.notes.push(`Submodule ${oneLine(link)} is recorded at its commit; its own uncommitted changes are not in the snapshot.`);
      const commit = await commitTree(wt.top, wt.tree, wt.head, `checkpoint: ${this.name}`, opts.timeLimitMs);
      outcome.snapshot = { head: wt.head, commit };
    } catch (err) {
      const message = errorMessage(err);
      if (message === 'not a git work tree' || /not a git repository/.test(message)) return outcome;
      if (err instanceof GitTimeoutError) return skip(`${err.message}: it would take longer than its time limit, so the checkpoint is saved without it`);
      return skip(message.trim().split('\n')[0]);
    }
    return outcome;
  }
}

/** What a snapshot left out, for the user: secrets and files over the per-file cap. */
function leftOutNotes(c: Candidates | undefined, fileLimitBytes: number): string[] {
  if (!c) return [];
  const notes: string[] = [];
  if (c.secrets.length) notes.push(`Left out of the code snapshot as likely secrets: ${c.secrets.map(oneLine).join(', ')}.`);
  if (c.tooLarge.length) {
    notes.push(`Left out of the code snapshot as larger than ${mb(fileLimitBytes)}: ${c.tooLarge.map((f) => `${oneLine(f.path)} (${mb(f.size)})`).join(', ')}.`);
  }
  return notes;
}
