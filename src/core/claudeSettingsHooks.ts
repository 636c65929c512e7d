/**
 * The product's hooks in a Claude Code settings text: the entries Connect writes, which entries are the product's,
 * and merging them in or taking them out with every other setting, comment and formatting kept.
 */
import { CheckpointError } from './errors';
import { duplicateKey, editJson, hasComments, parseJsonObject, type JsonPath } from './jsonEdit';

export type ClaudeHookEvent = 'SessionStart' | 'PreCompact' | 'PostCompact' | 'SessionEnd';

export interface PlannedHook {
  event: ClaudeHookEvent;
  /** Claude Code's matcher for the event (SessionStart: its sources); none matches every case. */
  matcher?: string;
  command: string;
  /** Seconds (Claude Code's unit); the command gives up by itself well before. */
  timeout: number;
}

const EVENT_ARGS: Record<ClaudeHookEvent, string> = { SessionStart: 'session-start', PreCompact: 'pre-compact', PostCompact: 'post-compact', SessionEnd: 'session-end' };
const HOOK_TIMEOUT_S = 10;

/**
 * The matcher SessionStart had before `fork` (Claude Code 2.1.214): a group of the product's with it is brought to
 * match every source when Connect runs again.
 */
const OLD_SESSION_START_MATCHER = 'startup|resume|clear|compact';

/**
 * The hooks Connect adds. `program`: the command that runs the CLI, as a shell word (e.g. `checkpoint`). SessionStart
 * has no matcher: every source (startup, resume, clear, compact, fork, and any later one) is told.
 */
export function plannedHooks(program: string, opts: { sessionEnd?: boolean } = {}): PlannedHook[] {
  const hooks: PlannedHook[] = [
    { event: 'SessionStart', command: `${program} hook session-start`, timeout: HOOK_TIMEOUT_S },
    { event: 'PreCompact', command: `${program} hook pre-compact`, timeout: HOOK_TIMEOUT_S },
    { event: 'PostCompact', command: `${program} hook post-compact`, timeout: HOOK_TIMEOUT_S },
  ];
  if (opts.sessionEnd) hooks.push({ event: 'SessionEnd', command: `${program} hook session-end`, timeout: HOOK_TIMEOUT_S });
  return hooks;
}

/**
 * True for a hook command exactly as Connect writes it: `<program> hook <event>`, where the program is one shell word
 * (`checkpoint`, or a launcher's path, possibly quoted) named `checkpoint`. A command with anything more — an
 * environment assignment, `env`, a wrapper, another option — is a person's own hook, never touched.
 */
export function isProductCommand(command: unknown, event?: ClaudeHookEvent): boolean {
  if (typeof command !== 'string') return false;
  const c = command.trim();
  const events = event ? [EVENT_ARGS[event]] : Object.values(EVENT_ARGS);
  const arg = events.find((e) => c.endsWith(` hook ${e}`));
  if (!arg) return false;
  const program = oneShellWord(c.slice(0, c.length - ` hook ${arg}`.length).trim());
  if (program === undefined) return false;
  const base = program.slice(Math.max(program.lastIndexOf('/'), program.lastIndexOf('\\')) + 1).toLowerCase();
  return base === 'checkpoint' || base === 'checkpoint.cmd';
}

/** POSIX single-quoted pieces and `\'`, as shellQuote writes a word with a `'` in it (each piece starts differently). */
const SINGLE_QUOTED = /^(?:'[^']*'|\\')+$/;

/**
 * The word a shell reads from `text` when it is exactly one word as Connect writes one — plain (no white space or
 * quote), single-quoted by shellQuote, or double-quoted (a Windows path) — else undefined.
 */
function oneShellWord(text: string): string | undefined {
  if (SINGLE_QUOTED.test(text)) {
    let word = '';
    for (const m of text.matchAll(/'([^']*)'|\\'/g)) word += m[1] ?? "'";
    return word;
  }
  if (/^"[^"]+"$/.test(text)) return text.slice(1, -1);
  return /^[^\s'"]+$/.test(text) ? text : undefined;
}

interface Found {
  /** Path of the hook entry: ['hooks', event, groupIndex, 'hooks', hookIndex]. */
  at: JsonPath;
  command: string;
  /** Whether every hook of its group is the product's (the group is then removed whole). */
  groupIsOurs: boolean;
  groupLength: number;
}

function parseSettings(text: string, file: string): Record<string, unknown> {
  const parsed = parseJsonObject(text, { emptyIsObject: true });
  if (!parsed.ok) throw new CheckpointError(`${file} is not valid JSON (${parsed.error}); it was left as it is. Fix it, then try again.`);
  const hooks = parsed.value.hooks;
  if (hooks !== undefined && (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks))) {
    throw new CheckpointError(`${file}: "hooks" is not an object; the file was left as it is.`);
  }
  // A key written twice: Claude Code reads the last one, an edit would land in the first.
  for (const [at, where] of [[[], 'the file'], [['hooks'], '"hooks"']] as const) {
    const dup = duplicateKey(text, [...at]);
    if (dup !== undefined) {
      throw new CheckpointError(
        `${file} has ${JSON.stringify(dup)} twice in ${where}; Claude Code reads only the last one. Merge them into one, then try again; the file was left as it is.`,
      );
    }
  }
  return parsed.value;
}

const asArray = (v: unknown): unknown[] | undefined => (Array.isArray(v) ? v : undefined);

/** The product's hook entries of `event` (or of every event) in parsed settings. */
function findOurs(settings: Record<string, unknown>, event?: ClaudeHookEvent): Found[] {
  const hooks = (settings.hooks ?? {}) as Record<string, unknown>;
  const out: Found[] = [];
  for (const ev of event ? [event] : (Object.keys(EVENT_ARGS) as ClaudeHookEvent[])) {
    const groups = asArray(hooks[ev]) ?? [];
    groups.forEach((g, gi) => {
      const list = asArray((g as { hooks?: unknown } | null)?.hooks) ?? [];
      const ours = list.map((h) => (h as { type?: unknown } | null)?.type === 'command' && isProductCommand((h as { command?: unknown }).command, ev));
      ours.forEach((o, hi) => {
        if (o) out.push({ at: ['hooks', ev, gi, 'hooks', hi], command: (list[hi] as { command: string }).command, groupIsOurs: ours.every(Boolean), groupLength: list.length });
      });
    });
  }
  return out;
}

/** The matcher of the group holding a found hook. */
function matcherOf(settings: Record<string, unknown>, f: Found): unknown {
  const group = asArray((settings.hooks as Record<string, unknown>)[f.at[1] as string])?.[f.at[2] as number];
  return (group as { matcher?: unknown } | null)?.matcher;
}

export interface SettingsChange {
  text: string;
  /** Hooks added or whose command was updated. */
  added: PlannedHook[];
  changed: boolean;
}

/** Merges `planned` into a settings text (undefined: no file yet). Throws, changing nothing, when it is not valid JSON. */
export function connectSettingsText(text: string | undefined, planned: PlannedHook[], file = 'settings.json'): SettingsChange {
  let current = text ?? '';
  const added: PlannedHook[] = [];
  for (const hook of planned) {
    let settings = parseSettings(current, file);
    let ours = findOurs(settings, hook.event);
    // Connected before SessionStart matched every source: the old matcher goes.
    const outdated = ours.find((f) => f.groupIsOurs && hook.matcher === undefined && matcherOf(settings, f) === OLD_SESSION_START_MATCHER);
    if (outdated) {
      current = editJson(current, [...outdated.at.slice(0, 3), 'matcher'], undefined);
      added.push(hook);
      settings = parseSettings(current, file);
      ours = findOurs(settings, hook.event);
    }
    if (ours.some((f) => f.command === hook.command)) continue;
    if (ours.length) {
      // Connected before with another launcher path: point the entry at the current one.
      current = editJson(current, [...ours[0].at, 'command'], hook.command);
      if (!outdated) added.push(hook);
      continue;
    }
    const group: Record<string, unknown> = {};
    if (hook.matcher) group.matcher = hook.matcher;
    group.hooks = [{ type: 'command', command: hook.command, timeout: hook.timeout }];
    const hooks = settings.hooks as Record<string, unknown> | undefined;
    const existing = asArray(hooks?.[hook.event]);
    if (hooks && hook.event in hooks && !existing) {
      // null or an object: what the person wrote is not replaced.
      throw new CheckpointError(
        `${file}: "hooks"."${hook.event}" is not a list (it is ${JSON.stringify(hooks[hook.event])?.slice(0, 60)}); the file was left as it is. Make it a list, or remove it, then try again.`,
      );
    }
    if (!hooks) current = editJson(current, ['hooks'], { [hook.event]: [group] });
    else if (!existing) current = editJson(current, ['hooks', hook.event], [group]);
    else current = editJson(current, ['hooks', hook.event, existing.length], group);
    added.push(hook);
  }
  if (text === undefined && added.length === 0) return { text: '', added, changed: false };
  return { text: current, added, changed: current !== (text ?? '') };
}

/** What Disconnect keeps when the product's entries were all an event list or `hooks` held. */
interface KeepEmpty {
  /** Event lists kept when left empty. */
  events: ReadonlySet<string>;
  hooks: boolean;
}

/**
 * Removes the product's hooks from a settings text: their entries, then the groups, event lists and `hooks` they
 * leave empty — unless those were there before Connect (see {@link disconnectSettingsText}) or hold a comment.
 */
function removeOurs(text: string, file: string, keep: KeepEmpty): { text: string; removed: number } {
  let current = text;
  let removed = 0;
  for (;;) {
    const ours = findOurs(parseSettings(current, file));
    if (!ours.length) break;
    const last = ours[ours.length - 1];
    const event = last.at[1] as string;
    if (last.groupIsOurs) {
      current = editJson(current, last.at.slice(0, 3), undefined);
      removed += last.groupLength;
    } else {
      current = editJson(current, last.at, undefined);
      removed++;
    }
    const after = parseSettings(current, file).hooks as Record<string, unknown>;
    if (!keep.events.has(event) && asArray(after[event])?.length === 0 && !hasComments(current, ['hooks', event])) current = editJson(current, ['hooks', event], undefined);
    const hooks = parseSettings(current, file).hooks as Record<string, unknown>;
    if (!keep.hooks && Object.keys(hooks).length === 0 && !hasComments(current, ['hooks'])) current = editJson(current, ['hooks'], undefined);
  }
  return { text: current, removed };
}

/**
 * Removes the product's hooks from a settings text. An empty event list or `hooks` object that was there before
 * Connect stays: of the possible texts before Connect (without them, with an empty `hooks`, with both), the first
 * that Connect turns into this very text is the one given back, so Connect then Disconnect is byte-identical.
 */
export function disconnectSettingsText(text: string, file = 'settings.json'): { text: string; removed: number } {
  const ours = findOurs(parseSettings(text, file));
  const dropped = removeOurs(text, file, { events: new Set(), hooks: false });
  if (!ours.length) return dropped;
  const hooks = parseSettings(text, file).hooks as Record<string, unknown>;
  // The hooks Connect would have added to give these entries, in its order.
  const replay: PlannedHook[] = (Object.keys(EVENT_ARGS) as ClaudeHookEvent[]).flatMap((event) =>
    ours
      .filter((f) => f.at[1] === event)
      .map((f) => {
        const group = (asArray(hooks[event]) ?? [])[f.at[2] as number] as { matcher?: unknown; hooks: { timeout?: unknown }[] };
        const timeout = group.hooks[f.at[4] as number]?.timeout;
        return { event, matcher: typeof group.matcher === 'string' ? group.matcher : undefined, command: f.command, timeout: typeof timeout === 'number' ? timeout : HOOK_TIMEOUT_S };
      }),
  );
  // Every choice of empty event lists and `hooks` kept, fewest first (at most 4 events: 32 choices).
  const events = [...new Set(replay.map((h) => h.event))];
  const choices: KeepEmpty[] = [];
  for (let mask = 0; mask < 1 << events.length; mask++) {
    const kept = new Set(events.filter((_, i) => mask & (1 << i)));
    choices.push({ events: kept, hooks: false }, { events: kept, hooks: true });
  }
  choices.sort((a, b) => a.events.size + Number(a.hooks) - (b.events.size + Number(b.hooks)));
  for (const keep of choices) {
    try {
      const candidate = removeOurs(text, file, keep);
      if (connectSettingsText(candidate.text, replay, file).text === text) return candidate;
    } catch {
      // Not a text Connect could have started from.
    }
  }
  return dropped;
}
