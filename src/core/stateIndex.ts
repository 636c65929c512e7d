import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { errorMessage } from './errors';
import { readSmallFile, writeFileAtomic } from './files';
import { JSON_CHECKPOINT_MAX_BYTES, readActivePlan } from './jsonCheckpoints';
import { editJson, parseJsonObject } from './jsonEdit';
import { expandHome, homeFrom } from './paths';
import { listPlans, resolvePlansDir } from './plans';

/**
 * `.claude/state-index.json` of the plan-scoped checkpoint procedure: `active_plan` names the plan a
 * save without one goes to; a plan-scoped save sets `last_checkpoint` and changes nothing else in the file.
 */
export const STATE_INDEX = join('.claude', 'state-index.json');

async function isFile(p: string): Promise<boolean> {
  return fs.stat(p).then((s) => s.isFile(), () => false);
}

/**
 * The plan file that `active_plan` names, or undefined. A path (absolute, `~/…`, or relative to the folder) is
 * taken as it is; a plain name is looked for as `.claude/plans/<name>.md`, `.claude/plans/<name>/plan.md`, then
 * `<plans directory>/<name>.md`. Only a regular file that exists counts.
 */
export async function resolveActivePlanFile(cwd: string, opts: { env?: NodeJS.ProcessEnv; plansDirectory?: string } = {}): Promise<string | undefined> {
  const active = (await readActivePlan(cwd))?.trim();
  // eslint-disable-next-line no-control-regex
  if (!active || /[\u0000-\u001f]/.test(active)) return undefined;
  const env = opts.env ?? process.env;
  if (/[/\\]/.test(active) || active.startsWith('~') || /\.md$/i.test(active)) {
    const p = resolve(cwd, expandHome(active, homeFrom(env)));
    return (await isFile(p)) ? p : undefined;
  }
  if (active === '.' || active === '..') return undefined;
  const plansDir = await resolvePlansDir({ cwd, configured: opts.plansDirectory, env });
  for (const p of [join(cwd, '.claude', 'plans', `${active}.md`), join(cwd, '.claude', 'plans', active, 'plan.md'), join(plansDir, `${active}.md`)]) {
    if (await isFile(p)) return p;
  }
  return undefined;
}

/** How recently a plan must have changed for the save form to offer it first. */
export const RECENT_PLAN_MS = 24 * 60 * 60 * 1000;

/** The plan a save form offers first, and why. */
export interface SuggestedPlan {
  path: string;
  /** `active`: named by `active_plan` in `.claude/state-index.json`; `recent`: the plans folder's newest, changed in the last 24 hours. */
  why: 'active' | 'recent';
}

/**
 * The plan the editor's save form preselects (a checkpoint with its plan beats one without): the file that
 * `active_plan` names, else the most recently modified plan of `plansDir` when it changed in the last 24 hours,
 * else none ("No plan").
 */
export async function suggestPlan(
  cwd: string,
  plansDir: string,
  opts: { env?: NodeJS.ProcessEnv; plansDirectory?: string; now?: number } = {},
): Promise<SuggestedPlan | undefined> {
  const active = await resolveActivePlanFile(cwd, opts).catch(() => undefined);
  if (active) return { path: active, why: 'active' };
  const newest = (await listPlans(plansDir))[0];
  const now = opts.now ?? Date.now();
  return newest && now - newest.mtimeMs <= RECENT_PLAN_MS ? { path: newest.path, why: 'recent' } : undefined;
}

/**
 * Sets `last_checkpoint` in the folder's `.claude/state-index.json` when that file exists. Every other byte of
 * the file is kept. Returns a warning instead of throwing (the checkpoint itself is saved): a file that is not a
 * JSON object is left as it is.
 */
export async function recordLastCheckpoint(cwd: string, savedIso: string): Promise<string | undefined> {
  const file = join(cwd, STATE_INDEX);
  let text: string;
  try {
    text = await readSmallFile(file, JSON_CHECKPOINT_MAX_BYTES);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return `${file} could not be read (${errorMessage(err)}); its last_checkpoint was not updated.`;
  }
  const parsed = parseJsonObject(text);
  if (!parsed.ok) return `${file} is not valid JSON (${parsed.error}); it is left as it is and its last_checkpoint was not updated.`;
  try {
    const updated = editJson(text, ['last_checkpoint'], savedIso);
    if (updated !== text) await writeFileAtomic(file, updated);
    return undefined;
  } catch (err) {
    return `${file}: last_checkpoint was not updated (${errorMessage(err)}).`;
  }
}
