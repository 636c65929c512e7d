import { promises as fs, type Stats } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { nameFromFileName } from './names';
import { PromiseCache } from './promiseCache';
import { newestFirst } from './order';
import type { CheckpointStore, CheckpointSummary } from './store';

/**
 * Counters of the files an index read (for tests and the performance budget "one file re-read per file changed";
 * shown nowhere). Plain increments, no I/O.
 */
export interface IndexReadStats {
  /**
   * Checkpoint files read: one per entry a scan returns (Markdown and JSON checkpoints, unreadable ones included)
   * plus one per file {@link CheckpointIndex.refreshFile} reads. A file that vanished before it was read is not counted.
   */
  filesRead: number;
  /** Scans of a memory directory (each reads every checkpoint file of it). */
  scans: number;
}

/** What the index holds of one memory directory: one summary per file, keyed by path. */
interface Listing {
  dir: string;
  files: Map<string, CheckpointSummary>;
  /** Read-only JSON checkpoints (outside the memory directory; re-read on reload only). */
  json: CheckpointSummary[];
  /** What each file was when {@link CheckpointIndex.refreshFile} last read it (see {@link fileStamp}). */
  stamps: Map<string, string>;
}

/**
 * Identifies a version of a file without reading it: inode, size, modification and change times. Every write
 * changes the change time (an atomic write also the inode), so an unchanged stamp means the file was already read
 * as it is: a watcher reports one write as several events (create and change; the product's own write, then the
 * watcher's event) and only the first is read. Undefined (always read) on a file system with whole-second times,
 * where two writes in the same second would share a stamp.
 */
function fileStamp(st: Stats): string | undefined {
  if (st.mtimeMs % 1000 === 0 || st.ctimeMs % 1000 === 0) return undefined;
  return `${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
}

/**
 * The listing of one memory directory, read once and then kept up to date file by file (from watcher events and
 * the product's own writes). The one listing cache: views, the active-checkpoint rule and pick lists read it.
 */
export class CheckpointIndex {
  private readonly listing = new PromiseCache<Listing>();
  /** File updates run one after the other, in event order. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Files with an update queued that has not started yet: another event for them adds nothing. */
  private readonly pending = new Set<string>();

  /**
   * @param store the store over the memory directory (asked on each scan: the directory may have changed)
   * @param stats read counters, shared by the indexes of a workspace
   * @param onChange called after a file update changed the listing (not after a scan or reload)
   */
  constructor(
    private readonly store: () => Promise<CheckpointStore>,
    private readonly stats: IndexReadStats,
    private readonly onChange: () => void,
  ) {}

  /** Every checkpoint (unreadable ones included), newest first. Scans the directory once. */
  async list(): Promise<CheckpointSummary[]> {
    const listing = await this.load();
    const all = [...listing.files.values(), ...listing.json];
    return all.sort(newestFirst(all));
  }

  /**
   * The Markdown checkpoint files as last read (unreadable included; no JSON checkpoints), without any I/O;
   * undefined until the directory is scanned ({@link list} scans it).
   */
  cachedFiles(): Iterable<CheckpointSummary> | undefined {
    return this.listing.value?.files.values();
  }

  /** How many checkpoints were listed (JSON ones included); undefined until scanned. */
  cachedCount(): number | undefined {
    const l = this.listing.value;
    return l ? l.files.size + l.json.length : undefined;
  }

  /** Forgets the listing; the next look scans again. */
  reload(): void {
    this.listing.clear();
  }

  /**
   * Re-reads one checkpoint file (after the product wrote, moved or deleted it, or a watcher event): its entry is
   * replaced, added or removed, nothing else is read. A JSON checkpoint reloads the listing. Reads nothing when the
   * file is as it was last read (duplicate events) or when an update of it is already queued; never reads a file a
   * scan would not list (the temp file of an atomic write, MEMORY.md). Resolves to true when the listing changed.
   */
  refreshFile(file: string): Promise<boolean> {
    // The queued update stats and reads the file when it starts, so it sees this change too.
    if (this.pending.has(file)) return this.queue.then(() => false);
    this.pending.add(file);
    const run = async (): Promise<boolean> => {
      this.pending.delete(file);
      if (!this.listing.started) return false; // not scanned yet: the scan will read it
      const listing = await this.listing.get(() => this.scan()).catch(() => undefined);
      if (!listing) return false;
      if (resolve(dirname(file)) !== resolve(listing.dir)) {
        if (!listing.json.some((j) => j.path === file)) return false;
        this.reload();
        return true;
      }
      if (nameFromFileName(basename(file)) === undefined) return false;
      const stat = await fs.stat(file).catch(() => undefined);
      let summary: CheckpointSummary | undefined;
      let stamp: string | undefined;
      if (stat?.isFile()) {
        stamp = fileStamp(stat);
        if (stamp !== undefined && listing.stamps.get(file) === stamp && listing.files.has(file)) return false; // read as it is
        const store = await this.store();
        this.stats.filesRead++;
        summary = await store.summarize(file);
      }
      if (this.listing.value !== listing) return false; // reloaded meanwhile
      if (stamp !== undefined) listing.stamps.set(file, stamp);
      else listing.stamps.delete(file);
      if (summary) listing.files.set(file, summary);
      else if (!listing.files.delete(file)) return false;
      this.onChange();
      return true;
    };
    const done = this.queue.then(run);
    this.queue = done.catch(() => undefined);
    return done;
  }

  private load(): Promise<Listing> {
    return this.listing.get(() => this.scan());
  }

  private async scan(): Promise<Listing> {
    const store = await this.store();
    const all = await store.list();
    this.stats.scans++;
    this.stats.filesRead += all.length;
    return {
      dir: store.memoryDir,
      files: new Map(all.filter((s) => s.source === 'markdown').map((s) => [s.path, s])),
      json: all.filter((s) => s.source === 'json'),
      stamps: new Map(),
    };
  }
}
