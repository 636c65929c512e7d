import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeConfigDir, expandHome, homeFrom } from './paths';

export type MemoryDirSource = 'setting' | 'env' | 'claude' | 'workspace';

export interface MemoryDirOptions {
  /** Workspace folder. */
  cwd: string;
  /** Setting `checkpoint.memoryDirectory` / CLI `--dir`. */
  configured?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

export interface ResolvedMemoryDir {
  dir: string;
  source: MemoryDirSource;
}

/** Claude Code's project slug: the absolute path with every character outside `[A-Za-z0-9]` replaced by `-`. */
export function claudeSlug(absPath: string): string {
  return absPath.replace(/[^A-Za-z0-9]/g, '-');
}

export const MAX_SLUG_LENGTH = 200;

/** The folder holding `.git` (a folder or a worktree's file) at or above `start`; `start` itself when none. */
export async function findGitRoot(start: string): Promise<string> {
  let dir = path.resolve(start);
  for (;;) {
    if (await fs.lstat(path.join(dir, '.git')).then(() => true, () => false)) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(start);
    dir = parent;
  }
}

/**
 * Finds the `projects/*` folder whose transcripts (`*.jsonl`, field `cwd`) name `root`.
 * Used when the slug is too long to be the folder name as is.
 */
async function findProjectByTranscript(projectsDir: string, root: string): Promise<string | undefined> {
  const projects = await fs.readdir(projectsDir, { withFileTypes: true }).catch(() => []);
  for (const p of projects) {
    if (!p.isDirectory()) continue;
    const dir = path.join(projectsDir, p.name);
    const files = (await fs.readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl'));
    for (const f of files) {
      const text = await fs.readFile(path.join(dir, f), 'utf8').catch(() => '');
      for (const line of text.split('\n')) {
        if (!line.includes('"cwd"')) continue;
        try {
          const cwd = (JSON.parse(line) as { cwd?: unknown }).cwd;
          if (typeof cwd === 'string' && path.resolve(cwd) === root) return dir;
        } catch {
          // a torn line in a transcript: skip it
        }
      }
    }
  }
  return undefined;
}

/**
 * Resolves the memory directory: the setting/flag, else `$CHECKPOINT_MEMORY_DIR`, else Claude Code's
 * auto-memory folder for the git root (when the Claude config folder exists), else `<folder>/.claude/memory`.
 */
export async function resolveMemoryDir(opts: MemoryDirOptions): Promise<ResolvedMemoryDir> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? homeFrom(env);
  const cwd = path.resolve(opts.cwd);
  if (opts.configured?.trim()) {
    return { dir: path.resolve(cwd, expandHome(opts.configured.trim(), home)), source: 'setting' };
  }
  const fromEnv = env.CHECKPOINT_MEMORY_DIR?.trim();
  if (fromEnv) return { dir: path.resolve(cwd, expandHome(fromEnv, home)), source: 'env' };

  const claudeDir = claudeConfigDir(env, home);
  const hasClaude = await fs.stat(claudeDir).then((s) => s.isDirectory(), () => false);
  if (hasClaude) {
    const root = await findGitRoot(cwd);
    const slug = claudeSlug(root);
    const projects = path.join(claudeDir, 'projects');
    if (slug.length <= MAX_SLUG_LENGTH) return { dir: path.join(projects, slug, 'memory'), source: 'claude' };
    const found = await findProjectByTranscript(projects, root);
    if (found) return { dir: path.join(found, 'memory'), source: 'claude' };
  }
  return { dir: path.join(cwd, '.claude', 'memory'), source: 'workspace' };
}
