import { promises as fs } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { claudeConfigDir, expandHome } from './paths';
import { readSmallFile } from './files';

/** Plans and `.claude/settings.json` larger than this (or not regular files) are not read: a workspace decides what is there. */
export const PLAN_MAX_BYTES = 4 * 1024 * 1024;

export interface PlanProgress {
  /** 1-based step where work stands; steps + 1 when every step is checked. */
  step: number;
  steps: number;
}

/**
 * Step N of M of a Markdown plan: checklist items count as steps and N is the first unchecked one;
 * without checkboxes, top-level ordered-list items (N is the first not struck through or marked done);
 * without those, undefined.
 */
export function planProgress(markdown: string): PlanProgress | undefined {
  const checks: boolean[] = [];
  const ordered: boolean[] = [];
  let fence: string | undefined;
  for (const line of markdown.split(/\r?\n/)) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1];
      else if (f[1][0] === fence[0] && f[1].length >= fence.length) fence = undefined;
      continue;
    }
    if (fence) continue;
    const check = /^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]/.exec(line);
    if (check) {
      checks.push(check[1] !== ' ');
      continue;
    }
    const item = /^(?:\d+)[.)]\s+(.*)$/.exec(line);
    if (item) ordered.push(/^~~.*~~\s*$|✅|\((?:done|complete)\)|\[done\]/i.test(item[1].trim()));
  }
  const list = checks.length ? checks : ordered;
  if (!list.length) return undefined;
  const first = list.indexOf(false);
  return { step: first === -1 ? list.length + 1 : first + 1, steps: list.length };
}

export interface PlansDirOptions {
  /** Setting `checkpoint.plansDirectory` (absolute, `~/…`, or relative to the folder). */
  configured?: string;
  /** The workspace folder. */
  cwd: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
}

/** Setting, else `plansDirectory` of the folder's `.claude/settings.json`, else `<claude dir>/plans`. */
export async function resolvePlansDir(opts: PlansDirOptions): Promise<string> {
  const env = opts.env ?? process.env;
  if (opts.configured?.trim()) return resolve(opts.cwd, expandHome(opts.configured.trim(), opts.home));
  try {
    const settings = JSON.parse(await readSmallFile(join(opts.cwd, '.claude', 'settings.json'), PLAN_MAX_BYTES)) as unknown;
    const dir = (settings as { plansDirectory?: unknown } | null)?.plansDirectory;
    if (typeof dir === 'string' && dir.trim()) return resolve(opts.cwd, expandHome(dir.trim(), opts.home));
  } catch {
    // no settings file, or not JSON: fall through to the default
  }
  return join(claudeConfigDir(env, opts.home), 'plans');
}

export interface PlanFile {
  path: string;
  name: string;
  mtimeMs: number;
}

/** Markdown plans in a folder, most recently modified first. A missing folder has none. */
export async function listPlans(dir: string): Promise<PlanFile[]> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const plans = await Promise.all(
    entries
      .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.md'))
      .map(async (e) => {
        const p = join(dir, e.name);
        const st = await fs.stat(p).catch(() => undefined);
        return st ? { path: p, name: e.name.replace(/\.md$/i, ''), mtimeMs: st.mtimeMs } : undefined;
      }),
  );
  return plans.filter((p): p is PlanFile => p !== undefined).sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** Reads a plan and its progress; undefined progress when the file is missing or has no steps. */
export async function readPlanProgress(planPath: string): Promise<PlanProgress | undefined> {
  const text = await readSmallFile(planPath, PLAN_MAX_BYTES).catch(() => undefined);
  return text === undefined ? undefined : planProgress(text);
}

/**
 * A plan path as written in a checkpoint, as a path: `~/…` expanded, a relative one resolved
 * against the workspace folder. The same plan file then has one path whatever form it was written in.
 */
export function resolvePlanPath(plan: string, cwd: string, home?: string): string {
  return resolve(cwd, expandHome(plan.trim(), home));
}

/**
 * A plan path as a checkpoint file holds it: under the home folder as `~/…` (so that a checkpoint
 * pulled on another machine finds the plan in that machine's home), any other path as it is.
 */
export function portablePlanPath(plan: string, home: string): string {
  const rel = home ? relative(home, plan) : '';
  if (!home || !isAbsolute(plan) || rel === '' || rel.startsWith('..') || isAbsolute(rel)) return plan;
  return `~/${rel.split(sep).join('/')}`;
}

/** A checkpoint with its plan path in the form a file holds (see {@link portablePlanPath}). */
export function withPortablePlan<T extends { plan?: string }>(cp: T, home: string): T {
  return cp.plan ? { ...cp, plan: portablePlanPath(cp.plan, home) } : cp;
}

/** The display name of a plan path: its file name without `.md`. */
export function planName(planPath: string): string {
  return basename(planPath).replace(/\.md$/i, '');
}
