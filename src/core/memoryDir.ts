import { promises as fs } from 'node:fs';
import path = require('node:path');
import { CheckpointError } from './errors';
import { fileReads, isFolder, isInside, openRegular, type FileReads } from './files';
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
  /** Read inline (a one-shot process, as a store's `syncReads`; see {@link fileReads}). */
  syncReads?: boolean;
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
}

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
  if (resolved.source === 'claude' && root && resolved.claude?.dir === resolved.dir) return `Claude Code's memory for ${path.basename(root)}`;
  return tildify(resolved.dir, home);
}

/** Claude Code's project slug: the absolute path with every character outside `[A-Za-z0-9]` replaced by `-`. */
export function claudeSlug(absPath: string): string {
  return absPath.replace(/[^A-Za-z0-9]/g, '-');
}

export const MAX_SLUG_LENGTH = 200;
/** Claude Code's settings files are small; anything larger is not read. */
const SETTINGS_MAX_BYTES = 1024 * 1024;
/** The first line of a transcript is read up to this many bytes; a longer one is skipped. */
const TRANSCRIPT_FIRST_LINE_MAX_BYTES = 256 * 1024;

/** The first line of a file (without its line break), or undefined when it is longer than `maxBytes` or unreadable. */
async function readFirstLine(file: string, maxBytes: number): Promise<string | undefined> {
  let handle;
  try {
    ({ handle } = await openRegular(file));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(Math.min(16 * 1024, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buf, 0, buf.length, total);
      const chunk = buf.subarray(0, bytesRead);
      const nl = chunk.indexOf(0x0a);
      if (nl >= 0) {
        chunks.push(chunk.subarray(0, nl));
        break;
      }
      chunks.push(chunk);
      total += bytesRead;
      if (bytesRead === 0) break;
      if (total > maxBytes) return undefined;
    }
    return Buffer.concat(chunks).toString('utf8').replace(/\r$/, '');
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Finds the `projects/*` folder whose transcripts (`*.jsonl`, field `cwd`) name one of `paths`, reading no more
 * than the first line of each transcript. Used when the slug is too long to be the folder name as is (Claude Code
 * then adds a hash of its own, which is not guessed here).
 */
async function findProjectByTranscript(projectsDir: string, paths: string[]): Promise<string | undefined> {
  const projects = await fs.readdir(projectsDir, { withFileTypes: true }).catch(() => []);
  for (const p of projects) {
    if (!p.isDirectory()) continue;
    const dir = path.join(projectsDir, p.name);
    const files = (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl'));
    for (const f of files) {
      const line = await readFirstLine(path.join(dir, f), TRANSCRIPT_FIRST_LINE_MAX_BYTES);
      if (!line?.includes('"cwd"')) continue;
      try {
        const cwd = (JSON.parse(line) as { cwd?: unknown } | null)?.cwd;
        if (typeof cwd === 'string' && path.isAbsolute(cwd) && paths.includes(path.resolve(cwd))) return dir;
      } catch {
        // a torn or foreign line: not this project's
      }
    }
  }
  return undefined;
}

interface SettingsFile {
  file: string;
  settings: Record<string, unknown>;
}

/** A Claude Code settings file as an object; undefined when it is missing, too large or not a JSON object. */
async function readSettings(file: string, reads: FileReads): Promise<SettingsFile | undefined> {
  try {
    const value = JSON.parse(await reads.readSmallFile(file, SETTINGS_MAX_BYTES)) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? { file, settings: value as Record<string, unknown> } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claude Code's settings that apply to a folder, highest precedence first: the project's
 * `.claude/settings.local.json` and `.claude/settings.json` (only in a trusted workspace), then the user's
 * `<claude dir>/settings.json`.
 */
async function claudeSettings(claudeDir: string, cwd: string, trusted: boolean, reads: FileReads): Promise<SettingsFile[]> {
  const files = [path.join(claudeDir, 'settings.json')];
  if (trusted) files.unshift(path.join(cwd, '.claude', 'settings.local.json'), path.join(cwd, '.claude', 'settings.json'));
  const read = await Promise.all(files.map((f) => readSettings(f, reads)));
  return read.filter((s): s is SettingsFile => s !== undefined);
}

/** The first settings file (by precedence) that sets `key`. */
function setting(files: SettingsFile[], key: string): { value: unknown; file: string } | undefined {
  for (const { file, settings } of files) {
    if (Object.prototype.hasOwnProperty.call(settings, key) && settings[key] !== undefined) return { value: settings[key], file };
  }
  return undefined;
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
 * `~/.claude`, or `$CLAUDE_CONFIG_DIR`, folder): `autoMemoryDirectory` from its settings when set (`~` expanded,
 * relative against the folder), else `<claude dir>/projects/<slug of the repository's main worktree>/memory`; for a
 * slug over 200 characters, the project folder whose transcripts name that path, else undefined.
 */
export async function claudeMemoryDir(opts: MemoryDirOptions): Promise<ClaudeMemory | undefined> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homeFrom(env);
  const cwd = path.resolve(opts.cwd);
  const claudeDir = claudeConfigDir(env, home);
  const reads = fileReads(opts.syncReads);
  if (!(await isFolder(claudeDir, reads))) return undefined;
  const files = await claudeSettings(claudeDir, cwd, opts.trusted ?? false, reads);
  const off = autoMemoryOff(files, env, home);
  const configured = setting(files, 'autoMemoryDirectory');
  if (typeof configured?.value === 'string' && configured.value.trim()) {
    return { dir: path.resolve(cwd, expandHome(configured.value.trim(), home)), settingsFile: configured.file, autoMemoryOff: off };
  }
  const root = (await resolveMainWorktree(cwd, reads)) ?? cwd;
  const slug = claudeSlug(root);
  const projects = path.join(claudeDir, 'projects');
  if (slug.length <= MAX_SLUG_LENGTH) return { dir: path.join(projects, slug, 'memory'), projectRoot: root, autoMemoryOff: off };
  const found = await findProjectByTranscript(projects, root === cwd ? [root] : [root, cwd]);
  return found ? { dir: path.join(found, 'memory'), projectRoot: root, autoMemoryOff: off } : undefined;
}

/** The memory folder alone: what a store needs (see {@link ResolvedMemoryDir}). */
export type MemoryFolder = Pick<ResolvedMemoryDir, 'dir' | 'source' | 'ignoreInGit'>;

/**
 * The memory folder: the setting/flag, else `$CHECKPOINT_MEMORY_DIR`, else Claude Code's auto-memory folder (when
 * the Claude config folder exists), else `<folder>/.claude/memory`. Claude Code's settings are read only when they
 * decide it (through `claude` when given: a caller that needs them anyway reads them once).
 */
export async function resolveMemoryFolder(opts: MemoryDirOptions, claude = (): Promise<ClaudeMemory | undefined> => claudeMemoryDir(opts)): Promise<MemoryFolder> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homeFrom(env);
  const cwd = path.resolve(opts.cwd);
  if (opts.configured?.trim()) return { dir: path.resolve(cwd, expandHome(opts.configured.trim(), home)), source: 'setting' };
  const fromEnv = env.CHECKPOINT_MEMORY_DIR?.trim();
  if (fromEnv) return { dir: path.resolve(cwd, expandHome(fromEnv, home)), source: 'env' };
  const found = await claude();
  if (found) return { dir: found.dir, source: 'claude' };
  const fallback: MemoryFolder = { dir: path.join(cwd, '.claude', 'memory'), source: 'workspace' };
  const reads = fileReads(opts.syncReads);
  await assertWorkspaceMemoryDirInside(cwd, fallback.dir, reads);
  if ((await findRepositoryTop(cwd, reads)) !== undefined) fallback.ignoreInGit = true;
  return fallback;
}

/** The memory folder ({@link resolveMemoryFolder}) with what Claude Code makes of it. */
export async function resolveMemoryDir(opts: MemoryDirOptions): Promise<ResolvedMemoryDir> {
  const reading = claudeMemoryDir(opts);
  const [folder, found] = await Promise.all([resolveMemoryFolder(opts, () => reading), reading]);
  return withClaude(folder, found);
}

/** A resolved memory folder with Claude Code's own (`found`, as {@link claudeMemoryDir} reads it). */
export function withClaude(folder: MemoryFolder, found: ClaudeMemory | undefined): ResolvedMemoryDir {
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
async function assertWorkspaceMemoryDirInside(cwd: string, dir: string, reads: FileReads): Promise<void> {
  const root = await reads.realpath(cwd).catch(() => cwd);
  for (const p of [path.dirname(dir), dir]) {
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
  return claude.projectRoot !== undefined && path.resolve(claude.projectRoot) !== path.resolve(cwd) ? 'mainWorktree' : 'project';
}
