import { promises as fs } from 'node:fs';
import path = require('node:path');
import { CheckpointError, errorMessage } from './errors';
import { isInside, readSmallFile, writeFileAtomic } from './files';
import { duplicateKey, editJson, hasComments, parseJsonObject, type JsonPath } from './jsonEdit';
import { claudeConfigDir, homeFrom } from './paths';
import { SKILL_TEXT } from './skill';

/**
 * Connect Claude Code: merges the product's hooks into a Claude Code settings file (the workspace's
 * `.claude/settings.json` or the user's), and installs the product's skill. Other hooks and settings, comments and
 * formatting are kept; connecting twice changes nothing; Disconnect removes exactly the entries it recognizes as
 * the product's (`<checkpoint launcher> hook <event>`).
 */

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

export type ConnectScope = 'workspace' | 'user';

/** The product's command by name, as the hooks in a workspace's settings run it (from PATH). */
export const PATH_PROGRAM = 'checkpoint';

/**
 * The program Connect writes into the hooks of `scope`'s settings file. A workspace's `.claude/settings.json` is
 * often committed and shared: it gets `checkpoint` by name, which works on every machine where the command is on
 * PATH (VS Code's integrated terminals have it; Install Command Line… puts it on other terminals' PATH), and names
 * no path of this one. The user's settings file belongs to this machine: it gets `launcher` (the full path of the
 * launcher, as a shell word), so Claude Code finds it wherever it is started.
 */
export function hookProgram(scope: ConnectScope, launcher: string): string {
  return scope === 'workspace' ? PATH_PROGRAM : launcher;
}

export interface ClaudeTargets {
  settingsFile: string;
  skillFile: string;
  /** The workspace folder both files must stay inside (workspace scope): a `.claude` symlink out of it is refused. */
  root?: string;
}

/** Where Connect writes: the folder's `.claude/` (workspace) or Claude Code's configuration folder (user). */
export function claudeTargets(scope: ConnectScope, folder: string, env: NodeJS.ProcessEnv = process.env): ClaudeTargets {
  const base = scope === 'workspace' ? path.join(folder, '.claude') : claudeConfigDir(env, homeFrom(env));
  const targets: ClaudeTargets = { settingsFile: path.join(base, 'settings.json'), skillFile: path.join(base, 'skills', 'checkpoint', 'SKILL.md') };
  if (scope === 'workspace') targets.root = folder;
  return targets;
}

/**
 * Refuses targets that lead out of the workspace folder: the nearest existing folder of each file, symbolic links
 * resolved, must be inside the folder (a `.claude` or `skills` link elsewhere would make Connect write there).
 */
async function assertInsideRoot(targets: ClaudeTargets): Promise<void> {
  if (!targets.root) return;
  const root = await fs.realpath(targets.root);
  for (const file of [targets.settingsFile, targets.skillFile]) {
    let dir = path.dirname(file);
    for (;;) {
      const real = await fs.realpath(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' && path.dirname(dir) !== dir) return undefined;
        throw err;
      });
      if (real === undefined) {
        dir = path.dirname(dir);
        continue;
      }
      if (!isInside(root, real)) {
        throw new CheckpointError(
          `${dir} leads outside the workspace folder (to ${real}, through a symbolic link); nothing was written. Connect writes only inside the workspace's own .claude folder.`,
        );
      }
      break;
    }
  }
}

/** Claude Code's settings files are small; a larger one is left alone. */
const SETTINGS_MAX_BYTES = 4 * 1024 * 1024;

async function readIfExists(file: string): Promise<string | undefined> {
  const st = await fs.lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!st) return undefined;
  if (!st.isFile()) throw new CheckpointError(`${file} is not a regular file; it was left as it is.`);
  if (st.size > SETTINGS_MAX_BYTES) throw new CheckpointError(`${file} is too large to be a settings file; it was left as it is.`);
  return readSmallFile(file, SETTINGS_MAX_BYTES).catch((err: unknown) => {
    throw new CheckpointError(`${file} cannot be read (${errorMessage(err)}); it was left as it is.`);
  });
}

export interface ConnectPlan extends ClaudeTargets {
  hooks: PlannedHook[];
  /** What will change, one line each, for the confirmation. */
  summary: string[];
}

/**
 * SHA-256 of the SKILL.md texts earlier releases installed (0.1.0 and 0.2.0 wrote the same one): Connect replaces
 * such a file as its own after an update, and Disconnect removes it, instead of keeping it as a person's. Add the
 * hash of the current text here when a release changes it.
 */
const EARLIER_SKILL_SHA256 = new Set(['a2025aed8a340dcff74fdcfedc5bfd63954e51dadcf3c025314262363f13381f']);

/** Whether a SKILL.md's text is one the product wrote: this release's, or an earlier release's. */
export function isProductSkill(text: string | undefined): boolean {
  if (text === undefined) return false;
  if (text === SKILL_TEXT) return true;
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  return EARLIER_SKILL_SHA256.has(createHash('sha256').update(text).digest('hex'));
}

/** Where Connect keeps a skill of the same name that it did not write; Disconnect puts it back. */
const SKILL_BACKUP_SUFFIX = '.before-checkpoint';

const pathExists = (file: string): Promise<boolean> => fs.lstat(file).then(() => true, () => false);

/** A free backup name for a SKILL.md that Connect replaces: `SKILL.md.before-checkpoint`, else `…-2`, `…-3`, … */
async function freeBackupPath(skillFile: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = `${skillFile}${SKILL_BACKUP_SUFFIX}${n === 1 ? '' : `-${n}`}`;
    if (!(await pathExists(candidate))) return candidate;
  }
}

/** What Connect would do, without writing (throws when the settings file cannot be merged). */
export async function planConnect(
  targets: ClaudeTargets,
  program: string,
  opts: { sessionEnd?: boolean } = {},
): Promise<ConnectPlan & { change: SettingsChange; settingsText?: string; skillCurrent: boolean; skillBackup?: string }> {
  await assertInsideRoot(targets);
  const hooks = plannedHooks(program, opts);
  const text = await readIfExists(targets.settingsFile);
  const change = connectSettingsText(text, hooks, targets.settingsFile);
  const skill = await readIfExists(targets.skillFile).catch(() => undefined);
  const skillCurrent = skill === SKILL_TEXT;
  // A SKILL.md of the same name that the product did not write (a team's own procedure, a changed copy) is kept; an
  // earlier release's own is replaced.
  const skillBackup =
    !skillCurrent && !isProductSkill(skill) && (skill !== undefined || (await pathExists(targets.skillFile))) ? await freeBackupPath(targets.skillFile) : undefined;
  const summary = change.added.map((h) => `${h.event}${h.matcher ? ` (${h.matcher})` : ''}: ${h.command}`);
  if (!skillCurrent) summary.push(`Skill: ${targets.skillFile}${skillBackup ? ` (the SKILL.md there now is kept as ${path.basename(skillBackup)}; Disconnect puts it back)` : ''}`);
  return { ...targets, hooks, summary, change, settingsText: text, skillCurrent, skillBackup };
}

export interface ConnectResult {
  settingsChanged: boolean;
  skillWritten: boolean;
  added: PlannedHook[];
}

/**
 * Replaces a settings file with `next` only while it still holds `read` (undefined: no file), what the change was
 * made from; false when another writer changed it meanwhile (nothing is written: the change is made again from its
 * text). The check is right before the atomic write.
 */
export async function replaceSettingsIf(file: string, read: string | undefined, next: string): Promise<boolean> {
  const now = await readIfExists(file);
  if (now !== read) return false;
  await writeFileAtomic(file, next);
  return true;
}

/** Tries before Connect or Disconnect gives up on a settings file that another writer keeps changing. */
const SETTINGS_TRIES = 5;

/** Connects: merges the hooks (file untouched when it is not valid JSON) and installs the skill. */
export async function connectClaude(targets: ClaudeTargets, program: string, opts: { sessionEnd?: boolean } = {}): Promise<ConnectResult> {
  let plan = await planConnect(targets, program, opts);
  for (let attempt = 1; plan.change.changed; attempt++) {
    await fs.mkdir(path.dirname(targets.settingsFile), { recursive: true });
    // Another writer's edit made since the plan read the file is merged, never lost: the plan is made again.
    if (await replaceSettingsIf(targets.settingsFile, plan.settingsText, plan.change.text)) break;
    if (attempt >= SETTINGS_TRIES) throw new CheckpointError(`${targets.settingsFile} kept changing while Connect merged its hooks; nothing was written. Try again.`);
    plan = await planConnect(targets, program, opts);
  }
  if (!plan.skillCurrent) {
    await fs.mkdir(path.dirname(targets.skillFile), { recursive: true });
    if (plan.skillBackup) await fs.rename(targets.skillFile, plan.skillBackup);
    try {
      await writeFileAtomic(targets.skillFile, SKILL_TEXT);
    } catch (err) {
      if (plan.skillBackup) await fs.rename(plan.skillBackup, targets.skillFile).catch(() => undefined);
      throw err;
    }
  }
  return { settingsChanged: plan.change.changed, skillWritten: !plan.skillCurrent, added: plan.change.added };
}

export interface DisconnectResult {
  removedHooks: number;
  skillRemoved: boolean;
  /** Why the skill was kept (it was changed after it was installed). */
  skillKept?: string;
}

/** Disconnects: removes the product's hooks, and the skill when it is still the product's own text. */
export async function disconnectClaude(targets: ClaudeTargets): Promise<DisconnectResult> {
  await assertInsideRoot(targets);
  const result: DisconnectResult = { removedHooks: 0, skillRemoved: false };
  for (let attempt = 1; ; attempt++) {
    const text = await readIfExists(targets.settingsFile);
    if (text === undefined) break;
    const change = disconnectSettingsText(text, targets.settingsFile);
    if (!change.removed) break;
    if (await replaceSettingsIf(targets.settingsFile, text, change.text)) {
      result.removedHooks = change.removed;
      break;
    }
    if (attempt >= SETTINGS_TRIES) throw new CheckpointError(`${targets.settingsFile} kept changing while Disconnect removed its hooks; nothing was written. Try again.`);
  }
  const skill = await readIfExists(targets.skillFile).catch(() => undefined);
  if (isProductSkill(skill)) {
    // The skill Connect wrote, unchanged: removed, and the one it replaced (if any) put back.
    const backup = `${targets.skillFile}${SKILL_BACKUP_SUFFIX}`;
    if (await pathExists(backup)) await fs.rename(backup, targets.skillFile);
    else {
      await fs.rm(targets.skillFile);
      await fs.rmdir(path.dirname(targets.skillFile)).catch(() => undefined);
    }
    result.skillRemoved = true;
  } else if (skill !== undefined) {
    result.skillKept = `${targets.skillFile} was changed after it was installed; it was left as it is.`;
  }
  return result;
}

/**
 * This plugin as `enabledPlugins` names it: `<plugin>@<marketplace>`, both as `.claude-plugin/marketplace.json` names
 * them (a test keeps them in step). A plugin of the same name from another marketplace is another plugin.
 */
export const PLUGIN_ID = 'checkpoint@checkpoint';

/**
 * The settings file that enables the Checkpoint plugin for `folder` (`enabledPlugins` with
 * `"checkpoint@<marketplace>": true`), or undefined. Claude Code reads the user's settings, then the project's
 * `.claude/settings.json`, then `.claude/settings.local.json`; a later file's value wins. A file that cannot be read
 * or parsed says nothing.
 */
export async function pluginEnabledIn(folder: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const files = [path.join(claudeConfigDir(env, homeFrom(env)), 'settings.json')];
  if (folder) files.push(path.join(folder, '.claude', 'settings.json'), path.join(folder, '.claude', 'settings.local.json'));
  let enabledBy: string | undefined;
  for (const file of files) {
    const text = await readIfExists(file).catch(() => undefined);
    const parsed = text === undefined ? undefined : parseJsonObject(text, { emptyIsObject: true });
    const plugins = parsed?.ok ? parsed.value.enabledPlugins : undefined;
    if (!plugins || typeof plugins !== 'object' || Array.isArray(plugins)) continue;
    for (const [id, on] of Object.entries(plugins as Record<string, unknown>)) {
      if (id !== PLUGIN_ID || typeof on !== 'boolean') continue;
      enabledBy = on ? file : undefined;
    }
  }
  return enabledBy;
}
