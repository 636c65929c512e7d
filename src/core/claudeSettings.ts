import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CheckpointError } from './errors';
import { writeFileAtomic } from './files';
import { editJson, parseJsonObject, type JsonPath } from './jsonEdit';
import { claudeConfigDir, homeFrom } from './paths';
import { SKILL_TEXT } from './skill';

/**
 * Connect Claude Code: merges the product's hooks into a Claude Code settings file (the workspace's
 * `.claude/settings.json` or the user's), and installs the product's skill. Other hooks and settings, comments and
 * formatting are kept; connecting twice changes nothing; Disconnect removes exactly the entries it recognizes as
 * the product's (`<checkpoint launcher> hook <event>`).
 */

export type ClaudeHookEvent = 'SessionStart' | 'PreCompact' | 'SessionEnd';

export interface PlannedHook {
  event: ClaudeHookEvent;
  /** Claude Code's matcher for the event (SessionStart: its sources); none matches every case. */
  matcher?: string;
  command: string;
  /** Seconds (Claude Code's unit); the command gives up by itself well before. */
  timeout: number;
}

const EVENT_ARGS: Record<ClaudeHookEvent, string> = { SessionStart: 'session-start', PreCompact: 'pre-compact', SessionEnd: 'session-end' };
const HOOK_TIMEOUT_S = 10;

/** The hooks Connect adds. `program`: the command that runs the CLI, as a shell word (e.g. `checkpoint`). */
export function plannedHooks(program: string, opts: { sessionEnd?: boolean } = {}): PlannedHook[] {
  const hooks: PlannedHook[] = [
    { event: 'SessionStart', matcher: 'startup|resume|clear|compact', command: `${program} hook session-start`, timeout: HOOK_TIMEOUT_S },
    { event: 'PreCompact', command: `${program} hook pre-compact`, timeout: HOOK_TIMEOUT_S },
  ];
  if (opts.sessionEnd) hooks.push({ event: 'SessionEnd', command: `${program} hook session-end`, timeout: HOOK_TIMEOUT_S });
  return hooks;
}

/** True for a hook command of this product: `checkpoint hook <event>`, the program possibly a quoted path to a launcher. */
export function isProductCommand(command: unknown, event?: ClaudeHookEvent): boolean {
  if (typeof command !== 'string') return false;
  const c = command.trim();
  const events = event ? [EVENT_ARGS[event]] : Object.values(EVENT_ARGS);
  const arg = events.find((e) => c.endsWith(` hook ${e}`));
  if (!arg) return false;
  let program = c.slice(0, c.length - ` hook ${arg}`.length).trim();
  if (program.length >= 2 && (program[0] === "'" || program[0] === '"') && program[program.length - 1] === program[0]) program = program.slice(1, -1);
  const base = program.slice(Math.max(program.lastIndexOf('/'), program.lastIndexOf('\\')) + 1).toLowerCase();
  return base === 'checkpoint' || base === 'checkpoint.cmd';
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
    const settings = parseSettings(current, file);
    const ours = findOurs(settings, hook.event);
    if (ours.some((f) => f.command === hook.command)) continue;
    if (ours.length) {
      // Connected before with another launcher path: point the entry at the current one.
      current = editJson(current, [...ours[0].at, 'command'], hook.command);
      added.push(hook);
      continue;
    }
    const group: Record<string, unknown> = {};
    if (hook.matcher) group.matcher = hook.matcher;
    group.hooks = [{ type: 'command', command: hook.command, timeout: hook.timeout }];
    const hooks = settings.hooks as Record<string, unknown> | undefined;
    const existing = asArray(hooks?.[hook.event]);
    if (!hooks) current = editJson(current, ['hooks'], { [hook.event]: [group] });
    else if (!existing) current = editJson(current, ['hooks', hook.event], [group]);
    else current = editJson(current, ['hooks', hook.event, existing.length], group);
    added.push(hook);
  }
  if (text === undefined && added.length === 0) return { text: '', added, changed: false };
  return { text: current, added, changed: current !== (text ?? '') };
}

/** Removes the product's hooks from a settings text: their entries, then groups, event lists and `hooks` left empty. */
export function disconnectSettingsText(text: string, file = 'settings.json'): { text: string; removed: number } {
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
    if (asArray(after[event])?.length === 0) current = editJson(current, ['hooks', event], undefined);
    const hooks = parseSettings(current, file).hooks as Record<string, unknown>;
    if (Object.keys(hooks).length === 0) current = editJson(current, ['hooks'], undefined);
  }
  return { text: current, removed };
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
}

/** Where Connect writes: the folder's `.claude/` (workspace) or Claude Code's configuration folder (user). */
export function claudeTargets(scope: ConnectScope, folder: string, env: NodeJS.ProcessEnv = process.env): ClaudeTargets {
  const base = scope === 'workspace' ? path.join(folder, '.claude') : claudeConfigDir(env, homeFrom(env));
  return { settingsFile: path.join(base, 'settings.json'), skillFile: path.join(base, 'skills', 'checkpoint', 'SKILL.md') };
}

async function readIfExists(file: string): Promise<string | undefined> {
  const st = await fs.lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!st) return undefined;
  if (!st.isFile()) throw new CheckpointError(`${file} is not a regular file; it was left as it is.`);
  if (st.size > 4 * 1024 * 1024) throw new CheckpointError(`${file} is too large to be a settings file; it was left as it is.`);
  return fs.readFile(file, 'utf8');
}

export interface ConnectPlan extends ClaudeTargets {
  hooks: PlannedHook[];
  /** What will change, one line each, for the confirmation. */
  summary: string[];
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
): Promise<ConnectPlan & { change: SettingsChange; skillCurrent: boolean; skillBackup?: string }> {
  const hooks = plannedHooks(program, opts);
  const text = await readIfExists(targets.settingsFile);
  const change = connectSettingsText(text, hooks, targets.settingsFile);
  const skill = await readIfExists(targets.skillFile).catch(() => undefined);
  const skillCurrent = skill === SKILL_TEXT;
  // A SKILL.md of the same name that the product did not write (a team's own procedure, a changed copy) is kept.
  const skillBackup = !skillCurrent && (skill !== undefined || (await pathExists(targets.skillFile))) ? await freeBackupPath(targets.skillFile) : undefined;
  const summary = change.added.map((h) => `${h.event}${h.matcher ? ` (${h.matcher})` : ''}: ${h.command}`);
  if (!skillCurrent) summary.push(`Skill: ${targets.skillFile}${skillBackup ? ` (the SKILL.md there now is kept as ${path.basename(skillBackup)}; Disconnect puts it back)` : ''}`);
  return { ...targets, hooks, summary, change, skillCurrent, skillBackup };
}

export interface ConnectResult {
  settingsChanged: boolean;
  skillWritten: boolean;
  added: PlannedHook[];
}

/** Connects: merges the hooks (file untouched when it is not valid JSON) and installs the skill. */
export async function connectClaude(targets: ClaudeTargets, program: string, opts: { sessionEnd?: boolean } = {}): Promise<ConnectResult> {
  const plan = await planConnect(targets, program, opts);
  if (plan.change.changed) {
    await fs.mkdir(path.dirname(targets.settingsFile), { recursive: true });
    await writeFileAtomic(targets.settingsFile, plan.change.text);
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
  const result: DisconnectResult = { removedHooks: 0, skillRemoved: false };
  const text = await readIfExists(targets.settingsFile);
  if (text !== undefined) {
    const change = disconnectSettingsText(text, targets.settingsFile);
    if (change.removed) {
      await writeFileAtomic(targets.settingsFile, change.text);
      result.removedHooks = change.removed;
    }
  }
  const skill = await readIfExists(targets.skillFile).catch(() => undefined);
  if (skill === SKILL_TEXT) {
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
