/**
 * The automatic checkpoints the hooks save: before a compaction, at a session's end with files changed, and again
 * with the compaction's summary after it; one a session, the older ones to the trash.
 */
import { basename } from 'node:path';
import type { Checkpoint } from './checkpoint';
import { formatLocalDate } from './dates';
import { errorMessage } from './errors';
import { agentLine } from './escaping';
import { readGitState } from './git';
import type { HookInput } from './hooks';
import { nameFromFileName } from './names';
import { AUTO_PREFIX } from './pending';
import { resolveActivePlanFile } from './stateIndex';
import { CheckpointExistsError, LIST_READ_BYTES, SaveSkippedError, type CheckpointStore } from './store';
import { lastUserIntent } from './transcript';

/** One automatic checkpoint per session per this long (PreCompact may fire several times). */
export const AUTO_DEBOUNCE_MS = 2 * 60 * 1000;
/** How many names an automatic save tries when other sessions took the previous ones meanwhile. */
const AUTO_NAME_ATTEMPTS = 20;

const pad = (n: number): string => String(n).padStart(2, '0');

/** `auto-YYYY-MM-DD-HHMM` in local time. */
export function autoName(d: Date): string {
  return `${AUTO_PREFIX}${formatLocalDate(d)}-${pad(d.getHours())}${pad(d.getMinutes())}`;
}

export interface AutoSaveResult {
  /** The name saved, or undefined when nothing was saved. */
  saved?: string;
  /** Why nothing was saved. */
  skipped?: string;
  /** Older automatic checkpoints of the session, moved to the trash. */
  replaced: string[];
  warnings: string[];
}

/** The automatic checkpoints in the memory directory that belong to `session`, newest first. */
async function autoCheckpointsOf(store: CheckpointStore, session: string): Promise<Checkpoint[]> {
  const files = (await store.files()).filter((f) => nameFromFileName(basename(f))?.startsWith(AUTO_PREFIX));
  const found: Checkpoint[] = [];
  for (const f of files) {
    const cp = await store.read(f, LIST_READ_BYTES).catch(() => undefined);
    if (cp?.auto && cp.session === session) found.push(cp);
  }
  return found.sort((a, b) => Date.parse(b.saved) - Date.parse(a.saved));
}

const activePlan = (store: CheckpointStore, env: NodeJS.ProcessEnv | undefined): Promise<string | undefined> =>
  resolveActivePlanFile(store.cwd, { env }).catch(() => undefined);

/**
 * Saves `auto-<YYYY-MM-DD-HHMM>` for a hook: branch and modified files from git, Left Off the last thing the user
 * asked (from the transcript), the active plan of `.claude/state-index.json`. At most one per session per
 * {@link AUTO_DEBOUNCE_MS}; the session's older automatic checkpoints then go to the trash (never deleted).
 * `onlyWhenChanged`: save only when git reports modified files (SessionEnd).
 */
export async function autoSave(
  store: CheckpointStore,
  input: HookInput,
  opts: { now?: Date; env?: NodeJS.ProcessEnv; onlyWhenChanged?: boolean; reason?: string; /** Instead of the transcript's last request. */ leftOff?: string } = {},
): Promise<AutoSaveResult> {
  const now = opts.now ?? new Date();
  const session = agentLine(input.sessionId ?? '', 200) || 'unknown-session';
  const result: AutoSaveResult = { replaced: [], warnings: [] };
  /** Why this session saves nothing now: one of its automatic checkpoints is less than the debounce old. */
  const debounced = (previous: Checkpoint[], at = now.getTime()): string | undefined => {
    const last = previous[0];
    if (last && at - Date.parse(last.saved) < AUTO_DEBOUNCE_MS && at >= Date.parse(last.saved)) {
      return `"${last.name}" was saved for this session less than 2 minutes ago`;
    }
    return undefined;
  };
  let previous = await autoCheckpointsOf(store, session);
  result.skipped = debounced(previous);
  if (result.skipped) return result;
  const [git, intent, plan] = await Promise.all([
    readGitState(store.cwd),
    !opts.leftOff && input.transcriptPath ? lastUserIntent(input.transcriptPath) : Promise.resolve(undefined),
    activePlan(store, opts.env),
  ]);
  if (opts.onlyWhenChanged && git.modifiedFiles.length === 0) {
    result.skipped = 'no files were changed';
    return result;
  }
  const reason = opts.reason ?? 'before the context was compacted';
  const leftOff = opts.leftOff ?? intent ?? `Saved automatically ${reason}; no user message was found in the transcript.`;
  const base = autoName(now);
  const taken = new Set((await store.files()).map((f) => nameFromFileName(basename(f))));
  let n = 1;
  const next = (): string => {
    for (n++; taken.has(`${base}-${n}`); n++);
    return `${base}-${n}`;
  };
  let name = taken.has(base) ? next() : base;
  let saved;
  // Several sessions may compact at once and pick the same name: the one that comes second takes the next free one
  // (never overwriting another session's checkpoint, never losing its own).
  for (let attempt = 0; ; attempt++) {
    try {
      // Decided again under the lock: two hooks of one compaction (the plugin's and Connect's) both passed the check
      // above; the one that writes second finds the first's checkpoint and saves nothing.
      // (Now is later than when this hook started: the other may have saved after that.)
      const unless = async (): Promise<string | undefined> => debounced((previous = await autoCheckpointsOf(store, session)), Math.max(now.getTime(), Date.now()));
      saved = await store.save({ name, leftOff, plan, git: { branch: git.branch, modifiedFiles: git.modifiedFiles }, auto: { session }, unless });
      break;
    } catch (err) {
      if (err instanceof SaveSkippedError) {
        result.skipped = err.reason;
        return result;
      }
      if (!(err instanceof CheckpointExistsError) || attempt >= AUTO_NAME_ATTEMPTS) throw err;
      taken.add(name);
      name = next();
    }
  }
  result.saved = saved.checkpoint.name;
  result.warnings.push(...saved.warnings);
  for (const old of previous) {
    try {
      await store.delete(old.name);
      result.replaced.push(old.name);
    } catch (err) {
      result.warnings.push(`The older automatic checkpoint "${old.name}" was kept: ${errorMessage(err)}`);
    }
  }
  return result;
}

/** At most this many characters of a compaction's summary go into the automatic checkpoint. */
const COMPACT_SUMMARY_MAX = 2000;
/** The first line of Left Off is the checkpoint's description in lists and MEMORY.md: kept about this short. */
const LIST_LINE_MAX = 200;

/**
 * One escaped line as Left Off's two: up to {@link LIST_LINE_MAX} characters, cut at a space, for the description
 * that lists and MEMORY.md show, then the rest. A line without a space there stays whole.
 */
function listLineFirst(line: string): string {
  if (line.length <= LIST_LINE_MAX) return line;
  const cut = line.lastIndexOf(' ', LIST_LINE_MAX);
  return cut > 0 ? `${line.slice(0, cut)}\n${line.slice(cut + 1)}` : line;
}

/**
 * PostCompact: the compaction's summary (`compact_summary`) becomes the Left Off of the session's automatic
 * checkpoint — "The compaction's summary: …", escaped into one line of at most {@link COMPACT_SUMMARY_MAX}
 * characters, its first {@link LIST_LINE_MAX} or so on a line of their own (the description MEMORY.md shows) — saved
 * again with the active plan (its step) and the modified files; the version it replaces goes to the trash. With no
 * automatic checkpoint of the session (PreCompact did not run or failed) one is saved as PreCompact would. With no
 * summary (an older client, a failed compaction) nothing changes: the checkpoint keeps what PreCompact gave it (the
 * transcript's last request). The transcript stays the fallback: its format is the client's own and may lag.
 */
export async function saveCompactSummary(store: CheckpointStore, input: HookInput, opts: { now?: Date; env?: NodeJS.ProcessEnv } = {}): Promise<AutoSaveResult> {
  const text = agentLine(input.compactSummary ?? '');
  // Said as what it is; and a summary that starts with a Markdown heading does not start the line.
  const summary = text && listLineFirst(agentLine(`The compaction's summary: ${text}`, COMPACT_SUMMARY_MAX));
  if (!summary) return { skipped: 'the hook input has no compact_summary; the automatic checkpoint keeps what it has', replaced: [], warnings: [] };
  const session = agentLine(input.sessionId ?? '', 200) || 'unknown-session';
  const newest = (await autoCheckpointsOf(store, session))[0];
  if (!newest) return autoSave(store, input, { ...opts, leftOff: summary, reason: 'after the context was compacted' });
  const [git, plan, cp] = await Promise.all([readGitState(store.cwd), activePlan(store, opts.env), store.read(store.pathFor(newest.name))]);
  const already = `"${cp.name}" holds this compaction's summary already`;
  if (cp.leftOff === summary) return { skipped: already, replaced: [], warnings: [] };
  // Decided again under the lock: two hooks of one compaction (the plugin's and Connect's) write it once.
  const unless = async (): Promise<string | undefined> => ((await store.read(store.pathFor(newest.name)).catch(() => undefined))?.leftOff === summary ? already : undefined);
  let saved;
  try {
    saved = await store.save({
    name: cp.name,
    leftOff: summary,
    done: cp.done,
    failed: cp.failed,
    decisions: cp.decisions,
    questions: cp.questions,
    plan: plan ?? cp.plan,
    git: { branch: git.branch, modifiedFiles: git.modifiedFiles },
    auto: { session },
    force: true,
    unless,
  });
  } catch (err) {
    if (err instanceof SaveSkippedError) return { skipped: err.reason, replaced: [], warnings: [] };
    throw err;
  }
  return { saved: saved.checkpoint.name, replaced: [], warnings: saved.warnings };
}
