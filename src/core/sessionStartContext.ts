/**
 * What the SessionStart hook tells a new session: its pending checkpoints, else the newest recent plan checkpoint, as
 * facts in at most {@link CONTEXT_MAX_BYTES}.
 */
import { relative } from 'node:path';
import type { Checkpoint } from './checkpoint';
import { formatLocalDateTime, formatRelative } from './dates';
import { agentLine, shellQuote, splitAnyLines } from './escaping';
import { readJsonCheckpoints } from './jsonCheckpoints';
import { readHeadBranch } from './gitDir';
import { branchDiffers } from './git';
import { findPending, trustedTime } from './pending';
import { branchPlaceText, orderByBranch, type BranchPlace } from './branchOrder';
import { sinceSaved } from './since';
import type { CheckpointStore } from './store';
import { formatStep } from './wording';

/** SessionStart's additionalContext stays under this many bytes. */
export const CONTEXT_MAX_BYTES = 2048;

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
    fitBytes(`No checkpoint is pending. The newest plan checkpoint of the last ${JSON_HISTORY_DAYS} days is ${agentLine(relative(store.cwd, recent.j.path), 200)}, saved ${savedWhen(cp.saved, now)}${plan}: ${agentLine(cp.description, 300)}.`, 700),
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
