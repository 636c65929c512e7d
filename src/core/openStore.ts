import { gitTimeoutFrom } from './gitProcess';
import { resolveMemoryDir, type ResolvedMemoryDir } from './memoryDir';
import { CheckpointStore } from './store';
import { homeFrom } from './paths';
import type { Reads } from './reads';

export interface OpenStoreOptions {
  /** The workspace folder. */
  cwd: string;
  /** The memory directory asked for (`--dir`, the `checkpoint.memoryDirectory` setting). */
  dir?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * Whether the folder is trusted (default true: the CLI, the hooks and the MCP server run what their user asked for
   * in their own folder). Untrusted (VS Code's Restricted Mode): the folder's own Claude Code settings are not read
   * and git never runs.
   */
  trusted?: boolean;
  /** How the store and the folder's resolution read (default: through the thread pool; see {@link Reads}). */
  reads?: Reads;
  /** The memory folder already resolved with these options (the extension keeps it until a setting changes). */
  resolved?: ResolvedMemoryDir;
}

/**
 * The one way every entry point (CLI, hooks, MCP server, extension) opens a folder's checkpoints: the same memory
 * folder, the same trust rule, the same `.gitignore` when it creates the fallback folder, the same git time limit.
 */
export async function openStore(opts: OpenStoreOptions): Promise<{ store: CheckpointStore; resolved: ResolvedMemoryDir }> {
  const env = opts.env ?? process.env;
  const trusted = opts.trusted ?? true;
  const resolved = opts.resolved ?? (await resolveMemoryDir({ cwd: opts.cwd, configured: opts.dir, env, trusted, reads: opts.reads }));
  const store = new CheckpointStore({
    memoryDir: resolved.dir,
    cwd: opts.cwd,
    allowGit: trusted,
    ignoreInGit: resolved.ignoreInGit,
    gitTimeoutMs: gitTimeoutFrom(env),
    reads: opts.reads,
    home: homeFrom(env),
  });
  return { store, resolved };
}
