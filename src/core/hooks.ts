/** The Claude Code hook events `checkpoint hook` handles, their limits, and the input Claude Code sends them on stdin. */
import { isAbsolute, resolve } from 'node:path';
import { errorMessage } from './errors';
import { isFolder } from './files';
import type { Reads } from './reads';

/** The Claude Code hook events `checkpoint hook <event>` handles, and the event names Claude Code uses. */
export const HOOK_EVENTS = { 'session-start': 'SessionStart', 'pre-compact': 'PreCompact', 'post-compact': 'PostCompact', 'session-end': 'SessionEnd' } as const;
export type HookEvent = keyof typeof HOOK_EVENTS;

export const isHookEvent = (s: string): s is HookEvent => Object.prototype.hasOwnProperty.call(HOOK_EVENTS, s);

/** A hook gives up (and exits 0) after this long: it must never hold the agent up. */
export const HOOK_TIMEOUT_MS = 5000;
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
  if (given) return resolve(given);
  if (input.cwd && isAbsolute(input.cwd) && (await isFolder(input.cwd, reads))) return resolve(input.cwd);
  return resolve(fallback);
}
