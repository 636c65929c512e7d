import { homedir } from 'node:os';
import { join, resolve, sep } from 'node:path';

/** Expands a leading `~` or `~/` to the home folder. */
export function expandHome(p: string, home: string = homedir()): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return join(home, p.slice(2));
  return p;
}

/** Claude Code's configuration folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env, home?: string): string {
  const configured = env.CLAUDE_CONFIG_DIR?.trim();
  if (configured) return resolve(expandHome(configured, home ?? homeFrom(env)));
  return join(home ?? homeFrom(env), '.claude');
}

/** HOME from the given environment (so tests can point it elsewhere), else the OS's idea. */
export function homeFrom(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME?.trim() || env.USERPROFILE?.trim() || homedir();
}

/** A path with the home folder shown as `~` (for short messages). */
export function tildify(p: string, home: string = homedir()): string {
  return home && (p === home || p.startsWith(`${home}${sep}`)) ? `~${p.slice(home.length)}` : p;
}
