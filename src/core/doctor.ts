import { join, resolve } from 'node:path';
import { pluginEnabledIn, PLUGIN_ID } from './claudeSettings';
import { errorMessage } from './errors';
import { escapeControls } from './escaping';
import { HOOK_EVENTS, isHookEvent } from './hooks';
import { isFolder } from './files';
import { threadPoolReads, type Reads } from './reads';
import { spawnInGroup } from './gitProcess';
import { INDEX_FILE } from './memoryIndex';
import { claudeLeavesOut } from './memoryIndexBudget';
import { claudeSettingsFiles, managedSettingsDir, readClaudeJson, resolveMemoryDir, type ResolvedMemoryDir } from './memoryDir';
import { openStore } from './openStore';
import { claudeConfigDir, homeFrom, tildify } from './paths';
import { findPending } from './pending';
import { lastSessionStart, type SessionStartRecord } from './sessionStarts';
import { CHECKPOINT_PREFIX } from './names';

/**
 * `checkpoint doctor`: will the next Claude Code session in a folder get the checkpoint, and if not, why. Every part
 * is read the way the client reads it (its settings scopes, its memory folder, its hooks, its MEMORY.md budget); the
 * report names each problem with its fix, the first one first.
 */

/** The SessionStart sources a session can start with (Claude Code 2.1.328; `fork` since 2.1.214). */
export const SESSION_SOURCES = ['startup', 'resume', 'clear', 'compact', 'fork'] as const;
type SessionSource = (typeof SESSION_SOURCES)[number];

/** `claude --version` is given this long. */
const VERSION_TIMEOUT_MS = 10_000;
const INDEX_MAX_BYTES = 4 * 1024 * 1024;

export interface HookSource {
  /** A settings file, or `plugin checkpoint@<marketplace>`. */
  where: string;
  kind: 'plugin' | 'settings';
  /** The SessionStart sources its session-start hook runs on. */
  sessionStart: SessionSource[];
  /** The other events it runs the product's hook on (PreCompact, PostCompact, SessionEnd). */
  events: string[];
}

export interface DoctorProblem {
  id: 'no-claude' | 'elsewhere' | 'auto-memory-off' | 'ignored-auto-memory-directory' | 'no-hooks' | 'missing-sources' | 'past-budget' | 'left-behind';
  message: string;
  fix: string;
}

export interface DoctorReport {
  ok: boolean;
  claudeCode: { version: string | null; configDir: string; configDirExists: boolean };
  hooks: { sources: HookSource[]; missing: SessionSource[] };
  memory: {
    /** Where checkpoints go. */
    dir: string;
    source: ResolvedMemoryDir['source'];
    /** The folder Claude Code loads MEMORY.md from; null when it loads none (not set up, auto memory off). */
    claudeLoads: string | null;
    /** Claude Code's own folder for this folder, whether it loads it or not. */
    claudeDir: string | null;
    autoMemory: 'on' | 'off';
    autoMemoryOff: string | null;
    settingsFile: string | null;
    ignoredAutoMemoryDirectory: { value: string; settingsFile: string } | null;
    projectRoot: string | null;
  };
  index: { file: string; exists: boolean; firstLineLeftOut: number | null; checkpointsLeftOut: string[] } | null;
  lastSessionStart: SessionStartRecord | null;
  /** The checkpoints a session start offers, the one it names first on top (see `checkpoint pending`). */
  pending: string[];
  problems: DoctorProblem[];
  notes: string[];
}

export interface DoctorOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** `--dir` / the `checkpoint.memoryDirectory` setting. */
  configured?: string;
  /** Whether the folder's own Claude Code settings count (default true, as for the CLI). */
  trusted?: boolean;
  managedDir?: string;
  /** `claude --version`'s first line, or undefined when it cannot be run (default: `claude` from PATH, time-limited). */
  claudeVersion?: () => Promise<string | undefined>;
  /** How files are read (default: through the thread pool; see {@link Reads}). */
  reads?: Reads;
}

/** `claude --version` from PATH: its first line, or undefined when there is no such command or it fails. */
export async function claudeVersionFromPath(cwd: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    const r = await spawnInGroup(cwd, 'claude', ['--version'], { envFrom: env, timeoutMs: VERSION_TIMEOUT_MS }).done;
    const line = r.out.toString('utf8').split('\n')[0]?.trim();
    return r.code === 0 && line ? line.slice(0, 100) : undefined;
  } catch {
    return undefined;
  }
}

/** A command that ends in `hook <event>`; the event word is checked against HOOK_EVENTS. */
const HOOK_COMMAND = /\bhook ([a-z-]+)\s*$/;

/**
 * The SessionStart sources a matcher selects: none, `*` or `.*` selects all; else its `|` alternatives (a pattern's
 * anchors and group parentheses aside, as in `^(startup|fork)$`).
 */
function matched(matcher: unknown): SessionSource[] {
  if (matcher === undefined || matcher === null) return [...SESSION_SOURCES];
  if (typeof matcher !== 'string') return [];
  const alternatives = matcher.replace(/[()^$]/g, '').split('|').map((a) => a.trim());
  if (alternatives.some((a) => a === '' || a === '*' || a === '.*')) return [...SESSION_SOURCES];
  return SESSION_SOURCES.filter((s) => alternatives.includes(s));
}

/** The product's hooks in a `hooks` object (settings file or plugin): which sources and events they run on. */
function productHooks(hooks: unknown, where: string, kind: HookSource['kind']): HookSource | undefined {
  if (!hooks || typeof hooks !== 'object') return undefined;
  const found: HookSource = { where, kind, sessionStart: [], events: [] };
  let any = false;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups as { matcher?: unknown; hooks?: unknown }[]) {
      const entries = Array.isArray(g?.hooks) ? (g.hooks as { command?: unknown }[]) : [];
      for (const h of entries) {
        const command = typeof h?.command === 'string' ? h.command : '';
        const arg = HOOK_COMMAND.exec(command)?.[1];
        if (!arg || !isHookEvent(arg) || !/checkpoint/i.test(command)) continue;
        any = true;
        if (event === 'SessionStart' && arg === 'session-start') {
          for (const s of matched(g.matcher)) if (!found.sessionStart.includes(s)) found.sessionStart.push(s);
        } else if (arg !== 'session-start' && HOOK_EVENTS[arg] === event && !found.events.includes(event)) {
          found.events.push(event);
        }
      }
    }
  }
  found.sessionStart.sort((a, b) => SESSION_SOURCES.indexOf(a) - SESSION_SOURCES.indexOf(b));
  return any ? found : undefined;
}

/** The Checkpoint plugin's hooks when the plugin is enabled for the folder and installed (its `hooks/hooks.json`). */
async function pluginHooks(cwd: string, env: NodeJS.ProcessEnv, claudeDir: string, reads: Reads, notes: string[]): Promise<HookSource | undefined> {
  const enabledIn = await pluginEnabledIn(cwd, env);
  if (!enabledIn) return undefined;
  const installed = (await readClaudeJson(join(claudeDir, 'plugins', 'installed_plugins.json'), reads))?.plugins;
  const entries = installed && typeof installed === 'object' ? Object.entries(installed as Record<string, unknown>).filter(([id]) => id === PLUGIN_ID) : [];
  for (const [id, value] of entries) {
    for (const entry of Array.isArray(value) ? value : [value]) {
      const installPath = (entry as { installPath?: unknown } | null)?.installPath;
      if (typeof installPath !== 'string') continue;
      const file = await readClaudeJson(join(installPath, 'hooks', 'hooks.json'), reads);
      const found = productHooks(file?.hooks, `plugin ${id}`, 'plugin');
      if (found) return found;
    }
  }
  notes.push(`The Checkpoint plugin is enabled in ${enabledIn}, but Claude Code lists no installed copy with its hooks: install it with /plugin install checkpoint@checkpoint.`);
  return undefined;
}

/** The settings files whose hooks apply to the folder, in Claude Code's order: user, project, local (trusted), managed. */
async function settingsHooks(cwd: string, claudeDir: string, trusted: boolean, managedDir: string, reads: Reads): Promise<HookSource[]> {
  const files = (await claudeSettingsFiles(claudeDir, cwd, { trusted, managedDir }, reads)).reverse();
  const found: HookSource[] = [];
  for (const file of files) {
    const h = productHooks((await readClaudeJson(file, reads))?.hooks, file, 'settings');
    if (h) found.push(h);
  }
  return found;
}

/** The checkpoint files in a folder (none when it cannot be listed). */
async function checkpointFiles(dir: string, reads: Reads): Promise<string[]> {
  const entries = await reads.readdir(dir).catch(() => []);
  return entries.filter((e) => e.isFile() && e.name.startsWith(CHECKPOINT_PREFIX) && e.name.endsWith('.md')).map((e) => e.name);
}

const list = (items: readonly string[]): string => items.map((s) => JSON.stringify(s)).join(', ');

/** Looks at everything that decides whether the next Claude Code session in `opts.cwd` gets the checkpoint. */
export async function diagnose(opts: DoctorOptions): Promise<DoctorReport> {
  const env = opts.env ?? process.env;
  const cwd = resolve(opts.cwd);
  const home = homeFrom(env);
  const trusted = opts.trusted ?? true;
  const managedDir = opts.managedDir ?? managedSettingsDir();
  const reads = opts.reads ?? threadPoolReads;
  const claudeDir = claudeConfigDir(env, home);
  const where = { cwd, configured: opts.configured, env, trusted, managedDir, reads };
  const [resolved, version, configDirExists] = await Promise.all([
    resolveMemoryDir(where),
    (opts.claudeVersion ?? (() => claudeVersionFromPath(cwd, env)))(),
    isFolder(claudeDir, reads),
  ]);
  const claude = resolved.claude;
  const notes: string[] = [];
  const problems: DoctorProblem[] = [];
  const t = (p: string): string => tildify(p, home);

  const plugin = await pluginHooks(cwd, env, claudeDir, reads, notes);
  const sources = [...(plugin ? [plugin] : []), ...(await settingsHooks(cwd, claudeDir, trusted, managedDir, reads))];
  const covered = new Set(sources.flatMap((s) => s.sessionStart));
  const missing = SESSION_SOURCES.filter((s) => !covered.has(s));

  const loads = claude && !claude.autoMemoryOff ? claude.dir : undefined;
  const indexFile = loads ? join(loads, INDEX_FILE) : undefined;
  let index: DoctorReport['index'] = null;
  if (indexFile) {
    const text = await reads.readSmallFile(indexFile, INDEX_MAX_BYTES).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') notes.push(`${t(indexFile)} could not be read (${errorMessage(err)}).`);
      return undefined;
    });
    const left = text === undefined ? { names: [] } : claudeLeavesOut(text);
    index = { file: indexFile, exists: text !== undefined, firstLineLeftOut: left.line ?? null, checkpointsLeftOut: left.names };
  }
  const last = (await lastSessionStart(resolved.dir, reads)) ?? null;
  const { store } = await openStore({ cwd, dir: opts.configured, env, trusted, reads, resolved });
  const pending = (await findPending(store).catch(() => ({ checkpoints: [] }))).checkpoints.map((c) => c.name);

  // The problems, the one that stops the most first.
  if (!claude) {
    problems.push({
      id: 'no-claude',
      message: `Claude Code is not set up for this user: ${t(claudeDir)} does not exist, so checkpoints go to ${t(resolved.dir)}, which Claude Code does not load.`,
      fix: `Run claude once (it creates ${t(claudeDir)}); if Claude Code keeps its configuration elsewhere, set CLAUDE_CONFIG_DIR to that folder.`,
    });
  } else if (resolved.dir !== claude.dir) {
    const why =
      resolved.source === 'setting'
        ? { cause: 'the memory directory is set (checkpoint.memoryDirectory or --dir)', fix: 'Remove the checkpoint.memoryDirectory setting (or the --dir option)' }
        : { cause: 'CHECKPOINT_MEMORY_DIR is set', fix: 'Unset CHECKPOINT_MEMORY_DIR' };
    problems.push({
      id: 'elsewhere',
      message: `Checkpoints go to ${t(resolved.dir)} (${why.cause}), but Claude Code loads ${t(claude.dir)}.`,
      fix: `${why.fix}, so that checkpoints go to Claude Code's folder.`,
    });
  }
  if (claude?.autoMemoryOff) {
    problems.push({
      id: 'auto-memory-off',
      message: `Claude Code's auto memory is off (${claude.autoMemoryOff}): it loads no MEMORY.md, so the session is told only through the hooks.`,
      fix: claude.autoMemoryOff.startsWith('CLAUDE_CODE_DISABLE_AUTO_MEMORY')
        ? 'Unset CLAUDE_CODE_DISABLE_AUTO_MEMORY.'
        : 'Set "autoMemoryEnabled": true in that settings file (or remove the key).',
    });
  }
  if (claude?.ignored) {
    const suggestion = resolve(claude.projectRoot ?? cwd, claude.ignored.value);
    problems.push({
      id: 'ignored-auto-memory-directory',
      message: `autoMemoryDirectory ${JSON.stringify(claude.ignored.value)} in ${t(claude.ignored.settingsFile)} is ignored: Claude Code accepts only an absolute path or ~/…, so it loads its default folder ${t(claude.dir)} (and checkpoints go there too).`,
      fix: `Write it as an absolute path, e.g. ${JSON.stringify(suggestion)}, or remove it.`,
    });
  }
  if (!sources.length) {
    problems.push({
      id: 'no-hooks',
      message: 'No Checkpoint hook runs at session start: the Checkpoint plugin is not enabled for this folder and no settings file has the hooks, so a session is not told about the pending checkpoint.',
      fix: 'Install the Checkpoint plugin (its folder or unpacked zip: claude plugin marketplace add <folder>, then claude plugin install checkpoint@checkpoint), or run "Checkpoint: Connect Claude Code" in VS Code.',
    });
  } else if (missing.length) {
    problems.push({
      id: 'missing-sources',
      message: `The session-start hook does not run for ${missing.join(', ')} (it runs for ${[...covered].join(', ') || 'none'}): a session started that way is not told.`,
      fix: 'Update the Checkpoint plugin (/plugin update checkpoint@checkpoint), or Disconnect and Connect Claude Code again, for the hooks of this version.',
    });
  }
  if (index?.checkpointsLeftOut.length) {
    problems.push({
      id: 'past-budget',
      message: `Claude Code loads MEMORY.md only up to line ${(index.firstLineLeftOut ?? 1) - 1} of the file (200 lines / 25,000 characters, front matter and HTML comments not counted): the index entries for ${list(index.checkpointsLeftOut)} are past it.`,
      fix: `Move the "## Active Checkpoints" section up in ${t(index.file)}, trim the file, or delete old checkpoints.`,
    });
  } else if (index?.firstLineLeftOut) {
    notes.push(`Claude Code loads ${t(index.file)} only up to line ${index.firstLineLeftOut - 1}; no checkpoint entry is past it.`);
  }
  // Checkpoints an earlier version saved in the workspace fallback while Claude Code read elsewhere (a long path).
  const fallback = join(cwd, '.claude', 'memory');
  if (claude && resolved.dir !== fallback) {
    const stranded = await checkpointFiles(fallback, reads);
    if (stranded.length) {
      problems.push({
        id: 'left-behind',
        message: `${stranded.length} checkpoint file(s) in ${t(fallback)} (${list(stranded.slice(0, 3))}${stranded.length > 3 ? ', …' : ''}) are in a folder Claude Code does not load; checkpoints now go to ${t(resolved.dir)}.`,
        fix: `Move them into ${t(resolved.dir)}; the next save there adds them to its MEMORY.md.`,
      });
    }
  }
  if (!version) notes.push('The claude command was not found on PATH (or did not answer claude --version); an editor extension may run its own copy.');
  if (!last) notes.push('No session start answered by the Checkpoint hook is recorded for this memory folder yet.');

  return {
    ok: problems.length === 0,
    claudeCode: { version: version ?? null, configDir: claudeDir, configDirExists },
    hooks: { sources, missing },
    memory: {
      dir: resolved.dir,
      source: resolved.source,
      claudeLoads: loads ?? null,
      claudeDir: claude?.dir ?? null,
      autoMemory: claude?.autoMemoryOff ? 'off' : 'on',
      autoMemoryOff: claude?.autoMemoryOff ?? null,
      settingsFile: claude?.settingsFile ?? null,
      ignoredAutoMemoryDirectory: claude?.ignored ?? null,
      projectRoot: claude?.projectRoot ?? null,
    },
    index,
    lastSessionStart: last,
    pending,
    // Each one line: a path or a settings value with a line break in it is shown escaped.
    problems: problems.map((p) => ({ ...p, message: escapeControls(p.message), fix: escapeControls(p.fix) })),
    notes: notes.map(escapeControls),
  };
}

/** The report as a person reads it: one line per finding, the problems with their fixes, then the verdict. */
export function doctorText(r: DoctorReport, home?: string): string {
  const t = (p: string): string => escapeControls(tildify(p, home));
  const out: string[] = [];
  out.push(`Claude Code: ${r.claudeCode.version === null ? 'not found on PATH' : escapeControls(r.claudeCode.version)}${r.claudeCode.configDirExists ? '' : ` (no ${t(r.claudeCode.configDir)})`}`);
  if (r.hooks.sources.length) {
    for (const s of r.hooks.sources) {
      out.push(`Hooks (${s.kind === 'plugin' ? escapeControls(s.where) : t(s.where)}): session start on ${s.sessionStart.join(', ') || 'no source'}${s.events.length ? `; ${s.events.join(', ')}` : ''}`);
    }
  } else out.push('Hooks: none');
  out.push(`Checkpoints go to: ${t(r.memory.dir)}`);
  const why = r.memory.settingsFile
    ? ` (autoMemoryDirectory in ${t(r.memory.settingsFile)})`
    : r.memory.projectRoot
      ? ` (its folder for ${t(r.memory.projectRoot)}, shared by the repository's worktrees and subfolders)`
      : '';
  out.push(`Claude Code loads: ${r.memory.claudeLoads ? `${t(r.memory.claudeLoads)}${why}` : 'no MEMORY.md'}`);
  out.push(`Auto memory: ${r.memory.autoMemory}${r.memory.autoMemoryOff ? ` (${escapeControls(r.memory.autoMemoryOff)})` : ''}`);
  if (r.index) {
    const left = r.index.firstLineLeftOut;
    out.push(`MEMORY.md: ${!r.index.exists ? 'not written yet' : left ? `loaded up to line ${left - 1}${r.index.checkpointsLeftOut.length ? `; past it: ${list(r.index.checkpointsLeftOut)}` : ''}` : 'loaded whole'}`);
  }
  out.push(`Pending: ${r.pending.length ? `${list(r.pending.slice(0, 3))}${r.pending.length > 3 ? ', …' : ''}` : 'none (nothing to tell the next session)'}`);
  const last = r.lastSessionStart;
  out.push(`Last session start answered: ${last ? `${last.at} (${last.source}${last.told ? ', told about a checkpoint' : ''})` : 'none recorded'}`);
  for (const n of r.notes) out.push(`Note: ${n}`);
  for (const p of r.problems) out.push(`Problem: ${p.message}\n  Fix: ${p.fix}`);
  const ok = `ok: the next Claude Code session in this folder gets ${r.pending.length ? `the checkpoint ${JSON.stringify(r.pending[0])}` : 'the checkpoints saved here'}.`;
  out.push(r.ok ? ok : `Not ok: ${r.problems.length} problem(s); fix the first one first.`);
  return out.join('\n');
}
