import os = require('node:os');
import path = require('node:path');
import { lstatSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import type { Checkpoint } from './checkpoint';
import { formatLocalDate, formatLocalDateTime, formatRelative } from './dates';
import { errorMessage } from './errors';
import { agentLine, shellQuote, splitAnyLines } from './escaping';
import { readJsonCheckpoints } from './jsonCheckpoints';
import { isFolder } from './files';
import type { Reads } from './reads';
import { readHeadBranch } from './gitDir';
import { readGitState } from './git';
import { nameFromFileName } from './names';
import { AUTO_PREFIX, findPending, trustedTime } from './pending';
import { branchPlaceText, orderByBranch, sinceSaved, type BranchPlace } from './since';
import { resolveActivePlanFile } from './stateIndex';
import { CheckpointExistsError, LIST_READ_BYTES, SaveSkippedError, type CheckpointStore } from './store';
import { lastUserIntent } from './transcript';
import { branchDiffers } from './git';
import { formatStep } from './wording';

/** The Claude Code hook events `checkpoint hook <event>` handles, and the event names Claude Code uses. */
export const HOOK_EVENTS = { 'session-start': 'SessionStart', 'pre-compact': 'PreCompact', 'post-compact': 'PostCompact', 'session-end': 'SessionEnd' } as const;
export type HookEvent = keyof typeof HOOK_EVENTS;

export const isHookEvent = (s: string): s is HookEvent => Object.prototype.hasOwnProperty.call(HOOK_EVENTS, s);

/** A hook gives up (and exits 0) after this long: it must never hold the agent up. */
export const HOOK_TIMEOUT_MS = 5000;
/** SessionStart's additionalContext stays under this many bytes. */
export const CONTEXT_MAX_BYTES = 2048;
/** One automatic checkpoint per session per this long (PreCompact may fire several times). */
export const AUTO_DEBOUNCE_MS = 2 * 60 * 1000;
/** How many names an automatic save tries when other sessions took the previous ones meanwhile. */
const AUTO_NAME_ATTEMPTS = 20;
/** Hook input larger than this is not JSON from Claude Code: it is not parsed. */
export const HOOK_INPUT_MAX_BYTES = 1024 * 1024;

/** What the hook reads from the JSON Claude Code sends on stdin (other fields are ignored). */
export interface HookInput {
  sessionId?: string;
  cwd?: string;
  transcriptPath?: string;
  hookEventName?: string;
  /** SessionStart: startup, resume, clear, compact, fork. */
  source?: string;
  /** PreCompact: manual, auto. */
  trigger?: string;
  /** SessionEnd: clear, logout, prompt_input_exit, other. */
  reason?: string;
  /** PostCompact: the compaction's summary, the model's own account of the work (as long as the input allows). */
  compactSummary?: string;
}

const str = (v: unknown, max = 4096): string | undefined => (typeof v === 'string' && v.length <= max && !v.includes('\u0000') ? v : undefined);

/** Parses the hook's stdin. Anything that is not a JSON object gives an empty input and the reason. */
export function parseHookInput(text: string): { input: HookInput; problem?: string } {
  if (text.trim() === '') return { input: {}, problem: 'no hook input on stdin' };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { input: {}, problem: `the hook input on stdin is not JSON (${errorMessage(err)})` };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return { input: {}, problem: 'the hook input on stdin is not a JSON object' };
  const d = data as Record<string, unknown>;
  // Claude Code sends snake_case; VS Code's agent hooks, which run the same hooks, send camelCase: both are read.
  const input: HookInput = {
    sessionId: str(d.session_id, 200) ?? str(d.sessionId, 200),
    cwd: str(d.cwd),
    transcriptPath: str(d.transcript_path) ?? str(d.transcriptPath),
    hookEventName: str(d.hook_event_name, 100) ?? str(d.hookEventName, 100),
    source: str(d.source, 100),
    trigger: str(d.trigger, 100),
    reason: str(d.reason, 100),
    compactSummary: str(d.compact_summary, HOOK_INPUT_MAX_BYTES) ?? str(d.compactSummary, HOOK_INPUT_MAX_BYTES),
  };
  for (const k of Object.keys(input) as (keyof HookInput)[]) if (input[k] === undefined) delete input[k];
  return { input };
}

/** The folder a hook works in: `--cwd`, else the session's `cwd` when it is a folder, else the process's. */
export async function hookFolder(input: HookInput, given: string | undefined, fallback: string, reads: Reads): Promise<string> {
  if (given) return path.resolve(given);
  if (input.cwd && path.isAbsolute(input.cwd) && (await isFolder(input.cwd, reads))) return path.resolve(input.cwd);
  return path.resolve(fallback);
}

/** Cuts a line to at most `maxBytes` of UTF-8 (whole characters, "…" when cut). */
function fitBytes(line: string, maxBytes: number): string {
  if (Buffer.byteLength(line) <= maxBytes) return line;
  let out = '';
  let bytes = 3; // the "…"
  for (const ch of line) {
    const b = Buffer.byteLength(ch);
    if (bytes + b > maxBytes) break;
    out += ch;
    bytes += b;
  }
  return `${out.trimEnd()}…`;
}

/** When a saved date is shown: local time and how long ago; a date past now is another machine's clock, said so. */
function savedWhen(saved: string, now: Date): string {
  const d = new Date(saved);
  if (Number.isNaN(d.getTime())) return 'at an unknown time';
  if (trustedTime(saved, now) === undefined) return `with a date in the future (${formatLocalDateTime(d)}), so its time is unknown`;
  return `${formatLocalDateTime(d)} (${formatRelative(saved, now)})`;
}

/**
 * The SessionStart context for the pending checkpoints: the first one in full, up to {@link MORE_PENDING} more by
 * name. Stated as facts (an agent's prompt-injection defences may show imperative text to the user instead of using
 * it); every value one escaped line; the whole under {@link CONTEXT_MAX_BYTES}, far below the 10,000 characters past
 * which Claude Code shows only a preview. `resumeCommand` is the command line that resumes the first one.
 */
export function sessionStartText(
  cp: Checkpoint,
  ctx: {
    currentBranch: string;
    resumeCommand: string;
    now?: Date;
    others?: { name: string; saved: string; branch?: string; place?: BranchPlace }[];
    /** Where its branch stands against the current one (see orderByBranch). */
    place?: BranchPlace;
    /** What changed in the repository since it was saved (see since.ts). */
    since?: { line: string };
  },
): string {
  const now = ctx.now ?? new Date();
  const branchLine = (b: string): string => agentLine(b, 120);
  const place = ctx.place ?? (branchDiffers(cp.branch, ctx.currentBranch) ? 'other' : 'current');
  // Another branch's is said on the line after: its branch, and whether its work is merged into the current one.
  const branch = cp.branch ? ` on branch ${branchLine(cp.branch)}` : '';
  const lines: [string, number][] = [
    [`Pending checkpoint of earlier work in this project: "${agentLine(cp.name, 80)}", saved ${savedWhen(cp.saved, now)}${branch}${cp.auto ? ', automatically before the context was compacted' : ''}.`, 420],
  ];
  if (branchDiffers(cp.branch, ctx.currentBranch)) {
    const merged = place === 'merged' ? ' (its branch is merged into the current one)' : '';
    lines.push([`The current branch is ${branchLine(ctx.currentBranch)}, not ${branchLine(cp.branch)}${merged}; \`git switch ${shellQuote(branchLine(cp.branch))}\` would switch, which is the user's call.`, 380]);
  }
  if (ctx.since) lines.push([agentLine(ctx.since.line, 500), 500]);
  lines.push([`Left off: ${agentLine(cp.leftOff || cp.description || 'None', 600) || 'None'}`, 520]);
  if (cp.failed.length) lines.push([`Approaches that failed before: ${cp.failed.map((f) => agentLine(f, 200)).join(' | ')}`, 500]);
  if (cp.plan) {
    const step = cp.planStep !== undefined && cp.planSteps !== undefined ? ` (${formatStep(cp.planStep, cp.planSteps)})` : '';
    lines.push([`Plan: ${agentLine(cp.plan, 200)}${step}`, 240]);
  }
  // The command is never cut (a path cut in the middle resumes nothing): the lines before it give way instead.
  const command = `\`${ctx.resumeCommand}\` prints the whole checkpoint and moves it to the trash (\`checkpoint restore\` brings it back).`;
  const commandIndex = lines.push([command, Math.max(300, Buffer.byteLength(command))]) - 1;
  const others = (ctx.others ?? []).slice(0, MORE_PENDING);
  if (others.length) {
    const where = (o: (typeof others)[number]): string => (o.branch === undefined ? '' : `, ${branchPlaceText(o.branch, o.place ?? 'other', ctx.currentBranch, (b) => agentLine(b, 60))}`);
    lines.push([`Also pending: ${others.map((o) => `"${agentLine(o.name, 80)}" (saved ${savedWhen(o.saved, now)}${where(o)})`).join(', ')}; \`checkpoint pending\` lists them all.`, 700]);
  }
  const fitted = lines.map(([l, max]) => fitBytes(l, max));
  // Over the whole budget: the lines after the command go first, then those before it are shortened, last line first
  // (the first line, which names the checkpoint, last of all).
  let over = Buffer.byteLength(fitted.join('\n')) - CONTEXT_MAX_BYTES;
  if (over > 0) fitted.splice(commandIndex + 1);
  over = Buffer.byteLength(fitted.join('\n')) - CONTEXT_MAX_BYTES;
  for (let k = commandIndex - 1; k >= 0 && over > 0; k--) {
    const bytes = Buffer.byteLength(fitted[k]);
    const keep = Math.max(k === 0 ? 120 : 40, bytes - over);
    fitted[k] = fitBytes(fitted[k], keep);
    over -= bytes - Buffer.byteLength(fitted[k]);
  }
  return fitted.join('\n');
}

/** The session-start hook and the start-up offer name the first pending checkpoint and list up to this many more. */
export const MORE_PENDING = 2;

/** The exact stdout of a SessionStart hook that adds `context` (Claude Code's documented JSON output). */
export function sessionStartOutput(context: string): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } });
}

/** JSON checkpoint history (a plan's `checkpoints/*.json`) newer than this is mentioned at session start when no Markdown checkpoint is pending. */
const JSON_HISTORY_DAYS = 7;

/**
 * With no Markdown checkpoint pending: the newest JSON checkpoint saved in the last
 * {@link JSON_HISTORY_DAYS} days, with its next action, as facts. Undefined when there is none.
 */
async function jsonHistoryText(store: CheckpointStore, now: Date): Promise<string | undefined> {
  const since = now.getTime() - JSON_HISTORY_DAYS * 24 * 60 * 60 * 1000;
  const recent = (await readJsonCheckpoints(store.cwd, store.reads))
    .map((j) => ({ j, t: j.checkpoint ? trustedTime(j.checkpoint.saved, now) : undefined }))
    .filter((x): x is { j: typeof x.j & { checkpoint: Checkpoint }; t: number } => x.t !== undefined && x.t >= since)
    .sort((a, b) => b.t - a.t)[0];
  if (!recent) return undefined;
  const cp = recent.j.checkpoint;
  const plan = cp.plan ? `, plan ${agentLine(cp.plan, 120)}${cp.planStep !== undefined ? ` stage ${cp.planStep}` : ''}` : '';
  const next = agentLine(splitAnyLines(cp.leftOff)[0] ?? '', 400) || 'None';
  const lines = [
    fitBytes(`No checkpoint is pending. The newest plan checkpoint of the last ${JSON_HISTORY_DAYS} days is ${agentLine(path.relative(store.cwd, recent.j.path), 200)}, saved ${savedWhen(cp.saved, now)}${plan}: ${agentLine(cp.description, 300)}.`, 700),
    fitBytes(`Its next action: ${next}`, 500),
  ];
  if (cp.blockers?.length) lines.push(fitBytes(`Its blockers: ${cp.blockers.map((b) => agentLine(b, 200)).join(' | ')}`, 500));
  return fitBytes(lines.join('\n'), CONTEXT_MAX_BYTES);
}

/**
 * The context SessionStart adds: the folder's pending checkpoints, else its newest recent JSON history; undefined
 * when there is nothing to say.
 */
export async function sessionStartContext(store: CheckpointStore, opts: { resumeArgs?: string[]; now?: Date } = {}): Promise<string | undefined> {
  const now = opts.now ?? store.now();
  const pending = await findPending(store, now);
  if (!pending.checkpoints.length) return jsonHistoryText(store, now);
  // The branch is read from HEAD without git (this runs at every agent start); git tells which branches are merged
  // into it only when a pending checkpoint is of another branch.
  const currentBranch = await readHeadBranch(store.cwd, store.reads);
  const [first, ...rest] = await orderByBranch(store, pending.checkpoints, currentBranch);
  const cp = await store.read(first.item.path);
  // The commits and the branch only: comparing the work tree with the snapshot scans the whole work tree, which an
  // agent's every start does not wait for (`checkpoint show` and the resume compare it).
  const since = await sinceSaved(store, cp, { currentBranch, timeLimitMs: SESSION_SINCE_MS, files: false });
  const command = ['checkpoint', 'resume', cp.name, ...(opts.resumeArgs ?? [])].map(shellQuote).join(' ');
  const others = rest.map(({ item, place }) => ({ name: item.name, saved: item.saved, branch: item.branch, place }));
  return sessionStartText(cp, { currentBranch, resumeCommand: command, now, others, place: first.place, since });
}

/** What changed since the first pending checkpoint was saved is "not checked" past this at a session start. */
const SESSION_SINCE_MS = 1000;

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
  const dir = path.join(opts.tempDir ?? os.tmpdir(), `checkpoint-session-start-${uid}`);
  const marker = path.join(dir, markerName(`${input.sessionId}\0${input.source ?? ''}\0${memoryDir}\0${context}`));
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
          if (now - lstatSync(path.join(dir, f)).mtimeMs > DAY_MS) rmSync(path.join(dir, f), { force: true });
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
  const files = (await store.files()).filter((f) => nameFromFileName(path.basename(f))?.startsWith(AUTO_PREFIX));
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
  const taken = new Set((await store.files()).map((f) => nameFromFileName(path.basename(f))));
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
