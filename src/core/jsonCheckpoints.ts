import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import { sanitizeName } from './names';
import type { Checkpoint } from './checkpoint';

/**
 * Read-only support for JSON checkpoints written by the "plan-scoped checkpoint" procedure:
 * `.claude/plans/<plan>/checkpoints/*.json`, `.claude/checkpoints/*.json`, active plan from
 * `.claude/state-index.json`. They are history (append-only), so they are listed and shown, never consumed.
 */
const strList = z.optional(z.array(z.union([z.string(), z.number()])));
const JsonCheckpointSchema = z.looseObject({
  timestamp: z.optional(z.string()),
  summary: z.optional(z.string()),
  decisions: strList,
  next_action: z.optional(z.nullable(z.string())),
  blockers: strList,
  context: z.optional(
    z.looseObject({
      active_plan: z.optional(z.nullable(z.string())),
      active_plan_stage: z.optional(z.nullable(z.union([z.string(), z.number()]))),
      files_in_progress: strList,
    }),
  ),
});

export interface JsonCheckpointFile {
  checkpoint?: Checkpoint;
  path: string;
  name: string;
  /** The plan folder name, for plan-scoped ones. */
  planName?: string;
  unreadable?: string;
}

async function jsonFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir).catch(() => [] as string[]);
  return entries.filter((e) => e.endsWith('.json')).map((e) => path.join(dir, e));
}

export function parseJsonCheckpoint(text: string, name: string, planName: string | undefined, mtime: string): Checkpoint {
  const data = JsonCheckpointSchema.parse(JSON.parse(text));
  const stage = data.context?.active_plan_stage;
  const leftOff = [data.next_action, data.summary].filter((s): s is string => !!s && s.trim() !== '').join('\n');
  const cp: Checkpoint = {
    name,
    description: data.summary?.split('\n')[0] ?? data.next_action ?? 'None',
    branch: '',
    saved: data.timestamp && !Number.isNaN(Date.parse(data.timestamp)) ? new Date(data.timestamp).toISOString() : mtime,
    leftOff,
    done: [],
    failed: [],
    decisions: (data.decisions ?? []).map(String),
    questions: (data.blockers ?? []).map(String),
    modifiedFiles: (data.context?.files_in_progress ?? []).map(String),
  };
  const plan = planName ?? data.context?.active_plan ?? undefined;
  if (plan) cp.plan = plan;
  if (stage !== undefined && stage !== null && Number.isInteger(Number(stage))) cp.planStep = Number(stage);
  return cp;
}

/** Every JSON checkpoint of a workspace folder; broken ones come back with `unreadable`. */
export async function readJsonCheckpoints(cwd: string): Promise<JsonCheckpointFile[]> {
  const claude = path.join(cwd, '.claude');
  const sources: { file: string; planName?: string }[] = (await jsonFiles(path.join(claude, 'checkpoints'))).map((file) => ({ file }));
  const plans = await fs.readdir(path.join(claude, 'plans'), { withFileTypes: true }).catch(() => []);
  for (const p of plans) {
    if (!p.isDirectory()) continue;
    for (const file of await jsonFiles(path.join(claude, 'plans', p.name, 'checkpoints'))) sources.push({ file, planName: p.name });
  }
  return Promise.all(
    sources.map(async ({ file, planName }) => {
      const stem = path.basename(file, '.json');
      const name = sanitizeName(planName ? `${planName}-${stem}` : stem) || 'checkpoint';
      try {
        const st = await fs.stat(file);
        const text = await fs.readFile(file, 'utf8');
        return { path: file, name, planName, checkpoint: parseJsonCheckpoint(text, name, planName, st.mtime.toISOString()) };
      } catch (err) {
        return { path: file, name, planName, unreadable: (err as Error).message.split('\n')[0] };
      }
    }),
  );
}

/** The active plan named in `.claude/state-index.json`, if any. */
export async function readActivePlan(cwd: string): Promise<string | undefined> {
  try {
    const data = JSON.parse(await fs.readFile(path.join(cwd, '.claude', 'state-index.json'), 'utf8')) as { active_plan?: unknown };
    return typeof data.active_plan === 'string' && data.active_plan ? data.active_plan : undefined;
  } catch {
    return undefined;
  }
}
