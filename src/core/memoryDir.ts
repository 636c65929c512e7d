import { basename, dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { closeSync, openSync } from 'node:fs';
import { CheckpointError } from './errors';
import { isFolder, isInside } from './files';
import { threadPoolReads, type Reads } from './reads';
import { findRepositoryTop, resolveMainWorktree } from './gitDir';
import { claudeConfigDir, expandHome, homeFrom, tildify } from './paths';

export type MemoryDirSource = 'setting' | 'env' | 'claude' | 'workspace';

export interface MemoryDirOptions {
  /** Workspace folder. */
  cwd: string;
  /** Setting `checkpoint.memoryDirectory` / CLI `--dir`. */
  configured?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  /**
   * Whether the workspace is trusted: only then are its own Claude Code settings (`.claude/settings.json`,
   * `.claude/settings.local.json`) read, since a cloned repository could otherwise point the memory folder anywhere.
   * The CLI runs what the user asked for and counts as trusted; the editor passes its workspace trust.
   */
  trusted?: boolean;
  /** How files are read (default: through the thread pool; see {@link Reads}). */
  reads?: Reads;
  /** The folder of Claude Code's managed settings (default: {@link managedSettingsDir}); tests point it elsewhere. */
  managedDir?: string;
}

/** Claude Code's auto-memory folder for a workspace folder, and whether Claude Code loads it. */
export interface ClaudeMemory {
  dir: string;
  /** The settings file whose `autoMemoryDirectory` named the folder; undefined for `<claude dir>/projects/<slug>/memory`. */
  settingsFile?: string;
  /**
   * The path the project folder is named after: the repository's main worktree (shared by its linked worktrees
   * and subfolders), or the folder itself outside git. Undefined when `autoMemoryDirectory` named the folder.
   */
  projectRoot?: string;
  /** Why Claude Code will not load the folder (its auto memory is off); undefined when it does. */
  autoMemoryOff?: string;
  /**
   * An `autoMemoryDirectory` that Claude Code ignores (relative, or otherwise not a folder it accepts): it then loads
   * its default folder, and so does the product. The setting is the one of highest precedence, so no other applies.
   */
  ignored?: { value: string; settingsFile: string };
}

/** Where a folder's checkpoints go, and what Claude Code makes of that folder: what {@link resolveMemoryDir} gives. */
export interface ResolvedMemoryDir {
  dir: string;
  source: MemoryDirSource;
  /** Claude Code's auto-memory folder for this workspace folder, when Claude Code is set up (its config folder exists). */
  claude?: ClaudeMemory;
  /** Whether Claude Code loads checkpoints from `dir` (it is Claude's memory folder and auto memory is on). */
  claudeLoads: boolean;
  /**
   * `<folder>/.claude/memory` inside a git repository: when the product creates the folder it writes a `.gitignore`
   * of `*` in it, so that `git add .` never commits checkpoints.
   */
  ignoreInGit?: boolean;
}

/**
 * The memory folder as a person reads it in one glance: "Claude Code's memory for shop-app" for Claude's folder of a
 * project, else the path with `~` for the home folder.
 */
export function memoryDirLabel(resolved: ResolvedMemoryDir, home?: string): string {
  const root = resolved.claude?.projectRoot;
  if (resolved.source === 'claude' && root && resolved.claude?.dir === resolved.dir) return `Claude Code's memory for ${basename(root)}`;
  return tildify(resolved.dir, home);
}

/** Claude Code's project slug: the absolute path with every character outside `[A-Za-z0-9]` replaced by `-`. */
export function claudeSlug(absPath: string): string {
  return absPath.replace(/[^A-Za-z0-9]/g, '-');
}

export const MAX_SLUG_LENGTH = 200;

/** Java's `String.hashCode`: over UTF-16 code units, 32-bit with wrap-around. */
export function javaHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Claude Code's name for the project folder of `absPath`: its slug, and for a slug over 200 characters the first 200,
 * `-` and the path's {@link javaHashCode} (absolute value, base 36) — as Claude Code 2.1.328 names it.
 */
export function claudeProjectName(absPath: string): string {
  const slug = claudeSlug(absPath);
  return slug.length <= MAX_SLUG_LENGTH ? slug : `${slug.slice(0, MAX_SLUG_LENGTH)}-${Math.abs(javaHashCode(absPath)).toString(36)}`;
}

/** Claude Code's settings and plugin files are small; anything larger is not read. */
const SETTINGS_MAX_BYTES = 1024 * 1024;

interface SettingsFile {
  file: string;
  settings: Record<string, unknown>;
}

/** A small JSON file of Claude Code's (settings, installed plugins, hooks) as an object; undefined when it is missing, too large or not a JSON object. */
export async function readClaudeJson(file: string, reads: Reads): Promise<Record<string, unknown> | undefined> {
  try {
    const value = JSON.parse(await reads.readSmallFile(file, SETTINGS_MAX_BYTES)) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

async function readSettings(file: string, reads: Reads): Promise<SettingsFile | undefined> {
  const settings = await readClaudeJson(file, reads);
  return settings && { file, settings };
}

/** Where Claude Code reads managed settings on this platform (`managed-settings.json` and `managed-settings.d/`). */
export function managedSettingsDir(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return '/Library/Application Support/ClaudeCode';
  if (platform === 'win32') return 'C:\\Program Files\\ClaudeCode';
  return '/etc/claude-code';
}

/**
 * The managed settings files, highest precedence first: the drop-ins of `managed-settings.d/` (`*.json`, not hidden;
 * a later name overrides an earlier one), then `managed-settings.json`.
 */
export async function managedSettingsFiles(dir: string, reads: Reads): Promise<string[]> {
  const dropIns = join(dir, 'managed-settings.d');
  const names = (await reads.readdir(dropIns).catch(() => []))
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && e.name.endsWith('.json') && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort()
    .reverse();
  return [...names.map((n) => join(dropIns, n)), join(dir, 'managed-settings.json')];
}

/**
 * The settings files of a folder (none: the user's only), highest precedence first: the project's
 * `.claude/settings.local.json` and `.claude/settings.json`, then the user's `<claude dir>/settings.json`.
 */
export function folderSettingsFiles(claudeDir: string, folder: string | undefined): string[] {
  const files = folder ? [join(folder, '.claude', 'settings.local.json'), join(folder, '.claude', 'settings.json')] : [];
  return [...files, join(claudeDir, 'settings.json')];
}

/**
 * Every settings file of Claude Code that applies to a folder, highest precedence first, as the client reads them:
 * managed settings, then {@link folderSettingsFiles} (the project's only in a trusted workspace).
 */
export async function claudeSettingsFiles(claudeDir: string, cwd: string, opts: { trusted: boolean; managedDir: string }, reads: Reads): Promise<string[]> {
  return [...(await managedSettingsFiles(opts.managedDir, reads)), ...folderSettingsFiles(claudeDir, opts.trusted ? cwd : undefined)];
}

/** Claude Code's settings that apply to a folder, highest precedence first (see {@link claudeSettingsFiles}). */
async function claudeSettings(claudeDir: string, cwd: string, opts: { trusted: boolean; managedDir: string }, reads: Reads): Promise<SettingsFile[]> {
  const files = await claudeSettingsFiles(claudeDir, cwd, opts, reads);
  const read = await Promise.all(files.map((f) => readSettings(f, reads)));
  return read.filter((s): s is SettingsFile => s !== undefined);
}

/** The first settings file (by precedence) that sets `key` (to anything but null). */
function setting(files: SettingsFile[], key: string): { value: unknown; file: string } | undefined {
  for (const { file, settings } of files) {
    if (Object.prototype.hasOwnProperty.call(settings, key) && settings[key] !== undefined && settings[key] !== null) return { value: settings[key], file };
  }
  return undefined;
}

/**
 * The folder an `autoMemoryDirectory` value names, as Claude Code accepts it: an absolute path, or `~/…` below the
 * home folder; undefined for anything else (a relative path, `~` alone, `~/..`, a NUL, not a string), which the
 * client ignores.
 */
export function acceptedAutoMemoryDirectory(value: unknown, home: string): string | undefined {
  if (typeof value !== 'string' || !value || value.includes('\0')) return undefined;
  let p = value;
  if (p.startsWith('~/') || p.startsWith('~\\')) {
    const rest = normalize(p.slice(2) || '.');
    if (rest === '.' || rest === '..' || rest.startsWith(`..${sep}`) || rest.startsWith('../') || rest.startsWith('..\\')) return undefined;
    p = join(home, p.slice(2));
  }
  const dir = normalize(p).replace(/[/\\]+$/, '');
  if (!isAbsolute(dir) || dir.length < 3 || /^[A-Za-z]:$/.test(dir)) return undefined;
  return dir.normalize('NFC');
}

/** Why Claude Code's auto memory is off (the environment wins over the settings), or undefined when it is on. */
function autoMemoryOff(files: SettingsFile[], env: NodeJS.ProcessEnv, home: string): string | undefined {
  const flag = env.CLAUDE_CODE_DISABLE_AUTO_MEMORY?.trim().toLowerCase();
  if (flag === '1' || flag === 'true') return 'CLAUDE_CODE_DISABLE_AUTO_MEMORY=1 is set';
  if (flag === '0' || flag === 'false') return undefined;
  const enabled = setting(files, 'autoMemoryEnabled');
  if (enabled?.value === false) return `autoMemoryEnabled is false in ${tildify(enabled.file, home)}`;
  return undefined;
}

/**
 * Claude Code's auto-memory folder for a workspace folder, or undefined when Claude Code is not set up (no
 * `~/.claude`, or `$CLAUDE_CONFIG_DIR`, folder): the `autoMemoryDirectory` of the settings file of highest precedence
 * that sets it, when the client accepts the value (see {@link acceptedAutoMemoryDirectory}), else
 * `<claude dir>/projects/<project name of the repository's main worktree>/memory` (see {@link claudeProjectName}).
 */
async function claudeMemoryDir(opts: MemoryDirOptions): Promise<ClaudeMemory | undefined> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homeFrom(env);
  const cwd = resolve(opts.cwd);
  const claudeDir = claudeConfigDir(env, home);
  const reads = opts.reads ?? threadPoolReads;
  if (!(await isFolder(claudeDir, reads))) return undefined;
  const files = await claudeSettings(claudeDir, cwd, { trusted: opts.trusted ?? false, managedDir: opts.managedDir ?? managedSettingsDir() }, reads);
  const off = autoMemoryOff(files, env, home);
  const configured = setting(files, 'autoMemoryDirectory');
  const named = configured && acceptedAutoMemoryDirectory(configured.value, home);
  if (configured && named) return { dir: named, settingsFile: configured.file, autoMemoryOff: off };
  const root = (await resolveMainWorktree(cwd, reads)) ?? cwd;
  const found: ClaudeMemory = { dir: join(claudeDir, 'projects', claudeProjectName(root), 'memory'), projectRoot: root, autoMemoryOff: off };
  if (configured) found.ignored = { value: typeof configured.value === 'string' ? configured.value : JSON.stringify(configured.value), settingsFile: configured.file };
  return found;
}

type MemoryFolder = Pick<ResolvedMemoryDir, 'dir' | 'source' | 'ignoreInGit'>;

/**
 * The memory folder alone: the setting/flag, else `$CHECKPOINT_MEMORY_DIR`, else Claude Code's auto-memory folder
 * (`found`: when the Claude config folder exists), else `<folder>/.claude/memory`.
 */
async function resolveMemoryFolder(opts: MemoryDirOptions, found: ClaudeMemory | undefined): Promise<MemoryFolder> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homeFrom(env);
  const cwd = resolve(opts.cwd);
  if (opts.configured?.trim()) return { dir: resolve(cwd, expandHome(opts.configured.trim(), home)), source: 'setting' };
  const fromEnv = env.CHECKPOINT_MEMORY_DIR?.trim();
  if (fromEnv) return { dir: resolve(cwd, expandHome(fromEnv, home)), source: 'env' };
  if (found) return { dir: found.dir, source: 'claude' };
  const fallback: MemoryFolder = { dir: join(cwd, '.claude', 'memory'), source: 'workspace' };
  const reads = opts.reads ?? threadPoolReads;
  await assertWorkspaceMemoryDirInside(cwd, fallback.dir, reads);
  if ((await findRepositoryTop(cwd, reads)) !== undefined) fallback.ignoreInGit = true;
  return fallback;
}

/**
 * The one way to find a folder's memory folder (every entry point: CLI, hooks, MCP server, extension, doctor): where
 * its checkpoints go ({@link resolveMemoryFolder}) and Claude Code's own memory folder for it, read once, with
 * whether Claude Code loads the checkpoints from there.
 */
export async function resolveMemoryDir(opts: MemoryDirOptions): Promise<ResolvedMemoryDir> {
  const found = await claudeMemoryDir(opts);
  const folder = await resolveMemoryFolder(opts, found);
  const r: ResolvedMemoryDir = { ...folder, claudeLoads: found !== undefined && found.dir === folder.dir && !found.autoMemoryOff };
  if (found) r.claude = found;
  return r;
}

/**
 * The fallback `<folder>/.claude/memory` is inside the workspace, which a cloned repository controls: its
 * `.claude` (or `.claude/memory`) can be a symbolic link to anywhere, and checkpoints and MEMORY.md would be
 * written there. A link that stays inside the workspace folder is followed; one that leaves it is refused, with
 * an error naming it.
 */
async function assertWorkspaceMemoryDirInside(cwd: string, dir: string, reads: Reads): Promise<void> {
  const root = await reads.realpath(cwd).catch(() => cwd);
  for (const p of [dirname(dir), dir]) {
    const st = await reads.lstat(p).catch(() => undefined);
    if (!st?.isSymbolicLink()) continue;
    const target = await reads.realpath(p).catch(() => undefined);
    if (target === undefined || !isInside(root, target)) {
      throw new CheckpointError(
        `${p} is a symbolic link to ${target ?? 'a missing target'}, outside the workspace folder ${cwd}: checkpoints are not written there. ` +
          'Remove the link, or choose the memory directory with the checkpoint.memoryDirectory setting (CLI: --dir).',
      );
    }
  }
}

/**
 * Which of Claude Code's memory folders the checkpoints use (the welcome view says it): the folder named by
 * `autoMemoryDirectory` in Claude Code's settings, the folder of the repository's main worktree that a linked worktree
 * or a subfolder shares, or the folder of the project itself. Undefined when the checkpoints are not in Claude's folder.
 */
export type ClaudeMemoryKind = 'autoMemoryDirectory' | 'mainWorktree' | 'project';

/** The {@link ClaudeMemoryKind} of a folder's resolved memory directory. */
export function claudeMemoryKind(resolved: ResolvedMemoryDir, cwd: string): ClaudeMemoryKind | undefined {
  const claude = resolved.claude;
  if (resolved.source !== 'claude' || !claude) return undefined;
  if (claude.settingsFile) return 'autoMemoryDirectory';
  return claude.projectRoot !== undefined && resolve(claude.projectRoot) !== resolve(cwd) ? 'mainWorktree' : 'project';
}

/** The marker, in a memory folder, that its user was told Claude Code's auto memory is off (see {@link firstTimeTold}). */
const AUTO_MEMORY_OFF_TOLD = '.checkpoint-auto-memory-off-told';

/**
 * True the first time it is asked for a memory folder, so that a command-line user is told once that Claude Code's
 * auto memory is off (the editor remembers it in its own state): the first call makes a marker file in the folder
 * (exclusive create), later ones find it. When the marker cannot be made for another reason, true: told twice beats
 * never told.
 */
export async function firstTimeTold(memoryDir: string): Promise<boolean> {
  try {
    closeSync(openSync(join(memoryDir, AUTO_MEMORY_OFF_TOLD), 'wx'));
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'EEXIST';
  }
}
