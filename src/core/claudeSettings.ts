/**
 * Connect Claude Code: merges the product's hooks into a Claude Code settings file (the workspace's
 * `.claude/settings.json` or the user's) and installs the product's skill; Disconnect takes out what Connect wrote.
 * And whether a settings file enables the Checkpoint plugin.
 */
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CheckpointError, errorMessage } from './errors';
import { isInside, readSmallFile, writeFileAtomic } from './files';
import { parseJsonObject } from './jsonEdit';
import { folderSettingsFiles } from './memoryDir';
import { claudeConfigDir, homeFrom } from './paths';
import { SKILL_TEXT } from './skill';
import { connectSettingsText, disconnectSettingsText, plannedHooks, type PlannedHook, type SettingsChange } from './claudeSettingsHooks';

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
  const base = scope === 'workspace' ? join(folder, '.claude') : claudeConfigDir(env, homeFrom(env));
  const targets: ClaudeTargets = { settingsFile: join(base, 'settings.json'), skillFile: join(base, 'skills', 'checkpoint', 'SKILL.md') };
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
    let dir = dirname(file);
    for (;;) {
      const real = await fs.realpath(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' && dirname(dir) !== dir) return undefined;
        throw err;
      });
      if (real === undefined) {
        dir = dirname(dir);
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
 * SHA-256 of the SKILL.md texts earlier releases installed (every earlier release wrote the same one): Connect replaces
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
  if (!skillCurrent) summary.push(`Skill: ${targets.skillFile}${skillBackup ? ` (the SKILL.md there now is kept as ${basename(skillBackup)}; Disconnect puts it back)` : ''}`);
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
    await fs.mkdir(dirname(targets.settingsFile), { recursive: true });
    // Another writer's edit made since the plan read the file is merged, never lost: the plan is made again.
    if (await replaceSettingsIf(targets.settingsFile, plan.settingsText, plan.change.text)) break;
    if (attempt >= SETTINGS_TRIES) throw new CheckpointError(`${targets.settingsFile} kept changing while Connect merged its hooks; nothing was written. Try again.`);
    plan = await planConnect(targets, program, opts);
  }
  if (!plan.skillCurrent) {
    await fs.mkdir(dirname(targets.skillFile), { recursive: true });
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
      await fs.rmdir(dirname(targets.skillFile)).catch(() => undefined);
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
  // Lowest precedence first: a later file's value wins.
  const files = folderSettingsFiles(claudeConfigDir(env, homeFrom(env)), folder).reverse();
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
