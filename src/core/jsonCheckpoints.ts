import { basename, join } from 'node:path';
import { sanitizeName } from './names';
import { readSmallFile } from './files';
import { threadPoolReads, type Reads } from './reads';
import type { Checkpoint } from './checkpoint';
import type * as Schemas from './schemas';

let schemaModule: typeof Schemas | undefined;
/** The zod schemas, loaded on first use (see schemas.ts). */
const schemas = (): typeof Schemas => (schemaModule ??= require('./schemas') as typeof Schemas);

/**
 * Read-only support for JSON checkpoints written by the "plan-scoped checkpoint" procedure:
 * `.claude/plans/<plan>/checkpoints/*.json`, `.claude/checkpoints/*.json`, active plan from
 * `.claude/state-index.json`. They are history (append-only), so they are listed and shown, never consumed.
 */
/** JSON checkpoints are a few KB; a bigger (or non-regular) file in a workspace is listed as unreadable, not read. */
export const JSON_CHECKPOINT_MAX_BYTES = 1024 * 1024;

export interface JsonCheckpointFile {
  checkpoint?: Checkpoint;
  path: string;
  name: string;
  /** The plan folder name, for plan-scoped ones. */
  planName?: string;
  unreadable?: string;
}

async function jsonFiles(dir: string, reads: Reads): Promise<string[]> {
  const entries = await reads.readdir(dir).catch(() => []);
  return entries.filter((e) => e.name.endsWith('.json')).map((e) => join(dir, e.name));
}

export function parseJsonCheckpoint(text: string, name: string, planName: string | undefined, mtime: string): Checkpoint {
  const data = schemas().JsonCheckpointSchema.parse(JSON.parse(text));
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
    questions: [],
    modifiedFiles: (data.context?.files_in_progress ?? []).map(String),
  };
  // A JSON checkpoint's blockers are what blocks the work, not questions: shown as Blockers.
  if (data.blockers?.length) cp.blockers = data.blockers.map(String);
  const plan = planName ?? data.context?.active_plan ?? undefined;
  if (plan) cp.plan = plan;
  if (stage !== undefined && stage !== null && Number.isInteger(Number(stage))) cp.planStep = Number(stage);
  return cp;
}

/**
 * Every JSON checkpoint of a workspace folder; broken ones come back with `unreadable`. `reads`: a store's (inline
 * in a one-shot process: usually the folders do not exist, and it then never starts libuv's thread pool for them).
 */
export async function readJsonCheckpoints(cwd: string, reads: Reads = threadPoolReads): Promise<JsonCheckpointFile[]> {
  const claude = join(cwd, '.claude');
  const sources: { file: string; planName?: string }[] = (await jsonFiles(join(claude, 'checkpoints'), reads)).map((file) => ({ file }));
  const plans = await reads.readdir(join(claude, 'plans')).catch(() => []);
  for (const p of plans) {
    if (!p.isDirectory()) continue;
    for (const file of await jsonFiles(join(claude, 'plans', p.name, 'checkpoints'), reads)) sources.push({ file, planName: p.name });
  }
  return Promise.all(
    sources.map(async ({ file, planName }) => {
      const stem = basename(file, '.json');
      const name = sanitizeName(planName ? `${planName}-${stem}` : stem) || 'checkpoint';
      try {
        const st = await reads.stat(file);
        const text = await reads.readSmallFile(file, JSON_CHECKPOINT_MAX_BYTES);
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
    const data = JSON.parse(await readSmallFile(join(cwd, '.claude', 'state-index.json'), JSON_CHECKPOINT_MAX_BYTES)) as { active_plan?: unknown };
    return typeof data.active_plan === 'string' && data.active_plan ? data.active_plan : undefined;
  } catch {
    return undefined;
  }
}
