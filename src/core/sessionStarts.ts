import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { TEMP_PREFIX } from './files';
import { threadPoolReads, type Reads } from './reads';

/**
 * The last session start the SessionStart hook answered for a memory folder: when, for which source (startup, resume,
 * clear, compact, fork, …) and whether it told the session about a checkpoint. Kept in a small file of the product's
 * own in the memory folder, so that `checkpoint doctor` can say whether the hooks run at all.
 */
export const SESSION_START_FILE = '.checkpoint-session-start.json';
const MAX_BYTES = 4096;

export interface SessionStartRecord {
  /** ISO 8601 UTC. */
  at: string;
  /** The source Claude Code sent, or `unknown`. */
  source: string;
  /** Whether the hook told the session about a checkpoint. */
  told: boolean;
}

/** A source as Claude Code names one (a short lowercase word), else `unknown`. */
const sourceWord = (source: string | undefined): string => (source && source.length <= 32 && /^[a-z][a-z_-]*$/.test(source) ? source : 'unknown');

/**
 * Records a session start in an existing memory folder (one that does not exist yet is not made for it): a new temp
 * file renamed over the record. Never throws: a hook goes on without the record.
 */
export async function recordSessionStart(memoryDir: string, start: { source?: string; told: boolean; at?: Date }): Promise<void> {
  const record: SessionStartRecord = { at: (start.at ?? new Date()).toISOString(), source: sourceWord(start.source), told: start.told };
  const tmp = join(memoryDir, `${TEMP_PREFIX}${process.pid}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`);
  try {
    await fs.writeFile(tmp, `${JSON.stringify(record)}\n`, { flag: 'wx', mode: 0o600 });
    await fs.rename(tmp, join(memoryDir, SESSION_START_FILE));
  } catch {
    // No folder to record in, or the record could not be written: a session start is answered all the same (a temp
    // file left behind is cleaned up with the others).
    await fs.unlink(tmp).catch(() => undefined);
  }
}

/** The last recorded session start, or undefined when none was recorded (or the record cannot be read). */
export async function lastSessionStart(memoryDir: string, reads: Reads = threadPoolReads): Promise<SessionStartRecord | undefined> {
  try {
    const data = JSON.parse(await reads.readSmallFile(join(memoryDir, SESSION_START_FILE), MAX_BYTES)) as Partial<SessionStartRecord> | null;
    if (!data || typeof data.at !== 'string' || Number.isNaN(Date.parse(data.at))) return undefined;
    return { at: new Date(data.at).toISOString(), source: sourceWord(data.source), told: data.told === true };
  } catch {
    return undefined;
  }
}
