/**
 * Which of the SessionStart hooks installed side by side answers a session's start: the first to create a marker,
 * named by a hash of the start and its context, in a folder of this user under the temp folder.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lstatSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type { HookInput } from './hooks';

/** Within this time a session start already answered with the same context is not answered again. */
const ANSWERED_MS = 60_000;
const DAY_MS = 24 * 3600_000;

/**
 * A marker's name for `text`: 64 bits of two FNV-1a-style lanes, as 16 hex digits. Not a secret and not a
 * checksum of anything kept: only two starts of the same session must meet at one name. (node:crypto would cost
 * about 4 ms to load at every session start, for this one name.)
 */
export function markerName(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');
  return hex(a) + hex(b);
}

/**
 * Whether this SessionStart hook is the first to give `context` to this session's start. The plugin's hooks and
 * the ones Connect wrote into a settings file may both be installed: Claude Code runs them side by side, and the
 * session should read the pending checkpoint once. The first creates a marker (exclusive create) named by a hash
 * of the session id, the start's source, the memory folder and the context, in a folder of this user under the temp folder; the
 * others find it. A later start of the same session (a compaction a minute on) is answered again. When anything
 * goes wrong, or the input names no session, it answers: a checkpoint told twice beats one never told. Synchronous:
 * only the hook, a one-shot process, asks.
 */
export function firstToAnswer(input: HookInput, memoryDir: string, context: string, opts: { tempDir?: string; now?: number } = {}): boolean {
  if (!input.sessionId) return true;
  const now = opts.now ?? Date.now();
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  const dir = join(opts.tempDir ?? tmpdir(), `checkpoint-session-start-${uid}`);
  const marker = join(dir, markerName(`${input.sessionId}\0${input.source ?? ''}\0${memoryDir}\0${context}`));
  try {
    // The folder as this start finds it: whose it is, and whether a marker was made in it today already (its time
    // changes with every marker made or removed). A missing one is made.
    let st = lstatSync(dir, { throwIfNoEntry: false });
    if (!st) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      st = lstatSync(dir);
    }
    // A folder another user made (a shared temp folder) is not trusted to say anything.
    if (!st.isDirectory() || (typeof process.getuid === 'function' && st.uid !== uid)) return true;
    try {
      writeFileSync(marker, '', { flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true;
      const seen = lstatSync(marker);
      if (now - seen.mtimeMs < ANSWERED_MS) return false;
      utimesSync(marker, now / 1000, now / 1000);
    }
    // The first start of a day (the folder unchanged since an earlier day) removes the markers older than a day; the
    // others do not look at them (a day of session starts leaves many).
    if (Math.floor(st.mtimeMs / DAY_MS) < Math.floor(now / DAY_MS)) {
      for (const f of readdirSync(dir)) {
        // One entry that cannot be looked at or removed stops none of the others.
        try {
          if (now - lstatSync(join(dir, f)).mtimeMs > DAY_MS) rmSync(join(dir, f), { force: true });
        } catch {
          // left for another day
        }
      }
    }
    return true;
  } catch {
    return true;
  }
}
