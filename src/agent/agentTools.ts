import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_CHECKPOINTS, formatStep } from '../core/wording';
import type * as z from 'zod/mini';
import type { Checkpoint } from '../core/checkpoint';
import { formatLocalDateTime, formatRelative } from '../core/dates';
import { CheckpointError } from '../core/errors';
import { oneLine, shellQuote, withoutInvisible } from '../core/escaping';
import { printable } from '../core/names';
import { resumeSummary } from '../core/resumeText';
import { sinceSaved, type SinceSource } from '../core/since';
import type * as ToolSchemas from './toolSchemas';
import {
  AmbiguousCheckpointError,
  CheckpointExistsError,
  OrphanRemovedError,
  type CheckpointSummary,
  type ResumeResult,
  type SaveInput,
  type SaveResult,
} from '../core/store';

// The checkpoint tools an AI agent calls: names, model-facing descriptions, input schemas, confirmation texts and
// result texts, in one place for both doors an agent comes through: the MCP server (`checkpoint mcp`) and VS Code's
// language-model tools. Each door only supplies the folder's checkpoints ({@link ToolTarget}) and its transport.

/** What a tool works on: one folder's checkpoints (the core's CheckpointStore, or the editor's folder object). */
export interface ToolTarget extends SinceSource {
  readonly memoryDir: string;
  save(input: SaveInput): Promise<SaveResult>;
  list(): Promise<CheckpointSummary[]>;
  show(name: string): Promise<Checkpoint & { path: string }>;
  resume(name: string | undefined, opts: { keep?: boolean }): Promise<ResumeResult>;
  currentBranch(): Promise<string>;
}

let schemaModule: typeof ToolSchemas | undefined;
/**
 * The tools' input schemas (src/agent/toolSchemas.ts), loaded on first use: zod's code runs when a tool is called or listed,
 * not when the extension activates.
 */
const schemas = (): typeof ToolSchemas => (schemaModule ??= require('./toolSchemas') as typeof ToolSchemas);

export interface AgentTool<S extends z.ZodMiniObject = z.ZodMiniObject> {
  /** The tool's name for MCP and for VS Code's `languageModelTools`. */
  name: string;
  /** VS Code's `toolReferenceName`: what a user types after `#` in chat. */
  referenceName: string;
  title: string;
  /** What a person reads in the tools picker. */
  userDescription: string;
  /** What the model reads to decide when and how to call the tool. */
  description: string;
  input: S;
  /**
   * What a call does to the folder: `reads` (MCP `readOnlyHint`; no confirmation in VS Code), `writes`, or `consumes`
   * (moves a file out of the list, as resume does: MCP `destructiveHint`).
   */
  effect: 'reads' | 'writes' | 'consumes';
  /** What the user confirms before a writing tool runs: what will be written or consumed, and where. */
  confirmation?: (input: z.infer<S>, memoryDir: string) => { title: string; message: string };
  /** Runs the tool; returns the text the model reads. A CheckpointError's message is the tool error to show. */
  run: (target: ToolTarget, input: z.infer<S>) => Promise<string>;
}

/** The texts of a tool a person and a model read. */
type ToolTexts = Pick<AgentTool, 'referenceName' | 'title' | 'userDescription' | 'description'>;

/** package.json's `contributes.languageModelTools`, set by the bundler (scripts/build.mjs); absent in the tsc output. */
declare const CHECKPOINT_TOOLS_DECLARED: Record<string, string>[] | undefined;

const declaredTools = (): Record<string, string>[] =>
  typeof CHECKPOINT_TOOLS_DECLARED === 'object'
    ? CHECKPOINT_TOOLS_DECLARED
    : (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { contributes: { languageModelTools: Record<string, string>[] } }).contributes
        .languageModelTools;

/**
 * Each tool's texts, by name. They are written once, in package.json's `contributes.languageModelTools` (where VS Code
 * reads them): the bundles carry them, and the tsc output (the tests) reads the manifest.
 */
const TOOL_TEXTS: Record<string, ToolTexts> = Object.fromEntries(
  declaredTools().map((t) => [t.name, { referenceName: t.toolReferenceName, title: t.displayName, userDescription: t.userDescription, description: t.modelDescription }]),
);

/**
 * A tool: its name and texts, then what it does (copied as descriptors: `input` stays a getter, loaded on first use).
 * What it returns reaches a model: format characters a person never sees are dropped from all of it.
 */
const describeTool = <S extends z.ZodMiniObject>(name: string, tool: Omit<AgentTool<S>, 'name' | keyof ToolTexts>): AgentTool<S> => {
  const described = Object.defineProperties({ name, ...TOOL_TEXTS[name] }, Object.getOwnPropertyDescriptors(tool)) as AgentTool<S>;
  const run = described.run;
  described.run = async (target, input) => withoutInvisible(await run(target, input));
  return described;
};

export const saveTool = describeTool('checkpoint_save', {
  get input() { return schemas().SaveToolInput; }, // zod's code loads on first use
  effect: 'writes',
  confirmation: (input, memoryDir) => ({
    title: 'Save checkpoint?',
    message:
      `Save checkpoint "${printable(oneLine(input.name), 64)}" (left off: "${printable(oneLine(input.leftOff), 120)}") to ${oneLine(memoryDir)}, with the current branch ` +
      `and modified files, and add it to MEMORY.md there.${input.force ? ' An existing checkpoint of that name goes to the trash.' : ''}`,
  }),
  run: async (target, input) => {
    let r: SaveResult;
    try {
      r = await target.save({
        name: input.name,
        leftOff: input.leftOff,
        done: input.done,
        failed: input.failed,
        decisions: input.decisions,
        questions: input.questions,
        plan: input.plan,
        force: input.force === true,
      });
    } catch (err) {
      if (err instanceof CheckpointExistsError) {
        throw new CheckpointError(`${err.message} Call checkpoint_save with another name, or with force: true to replace it (the previous one goes to the trash).`);
      }
      throw err;
    }
    const cp = r.checkpoint;
    const files = cp.modifiedFiles.length;
    const facts = [cp.branch ? `branch ${oneLine(cp.branch)}` : 'no git branch', `${files} modified file${files === 1 ? '' : 's'}`];
    if (cp.plan) facts.push(`plan ${oneLine(cp.plan)}${cp.planStep !== undefined && cp.planSteps !== undefined ? `, ${formatStep(cp.planStep, cp.planSteps)}` : ''}`);
    const lines = [
      `Saved checkpoint "${oneLine(cp.name)}" (${facts.join(', ')})${r.overwritten ? ', replacing the previous one (now in the trash)' : ''}.`,
      `File: ${oneLine(r.path)}`,
      `To pick it up later: checkpoint_resume with name "${oneLine(cp.name)}", or tell the agent: continue ${oneLine(cp.name)}`,
    ];
    for (const w of r.warnings) lines.push(`Warning: ${oneLine(w)}`);
    return lines.join('\n');
  },
});

export const listTool = describeTool('checkpoint_list', {
  get input() { return schemas().ListToolInput; }, // zod's code loads on first use
  effect: 'reads',
  run: async (target) => {
    const items = await target.list();
    if (items.length === 0) return `${NO_CHECKPOINTS} (Memory folder: ${oneLine(target.memoryDir)})`;
    const lines = [`${items.length} checkpoint${items.length === 1 ? '' : 's'}, newest first (memory folder: ${oneLine(target.memoryDir)}):`];
    for (const c of items) lines.push(listLine(c));
    return lines.join('\n');
  },
});

export const showTool = describeTool('checkpoint_show', {
  get input() { return schemas().ShowToolInput; }, // zod's code loads on first use
  effect: 'reads',
  run: async (target, input) => {
    const cp = await target.show(input.name);
    const currentBranch = await target.currentBranch();
    const since = await sinceSaved(target, cp, { currentBranch });
    return `${resumeSummary(cp, { currentBranch, since })}\n\nFile: ${oneLine(cp.path)}`;
  },
});

export const resumeTool = describeTool('checkpoint_resume', {
  get input() { return schemas().ResumeToolInput; }, // zod's code loads on first use
  effect: 'consumes',
  confirmation: (input, memoryDir) => ({
    title: 'Resume checkpoint?',
    message: `Resume checkpoint ${input.name ? `"${printable(oneLine(input.name), 64)}"` : '(the only one)'} from ${oneLine(memoryDir)}${
      input.keep ? ' and keep it.' : ', then move it to the trash there and remove its line from MEMORY.md (it can be restored).'
    }`,
  }),
  run: async (target, input) => {
    let r: ResumeResult;
    try {
      r = await target.resume(input.name, { keep: input.keep === true });
    } catch (err) {
      if (err instanceof OrphanRemovedError) return `${oneLine(err.message)} Nothing to resume under that name; checkpoint_list shows the others.`;
      if (err instanceof AmbiguousCheckpointError) {
        throw new CheckpointError(
          `There are ${err.candidates.length} checkpoints; call checkpoint_resume again with one name:\n${err.candidates.map(listLine).join('\n')}`,
        );
      }
      throw err;
    }
    const cp = r.checkpoint;
    const since = await sinceSaved(target, cp, { currentBranch: r.currentBranch });
    const lines = [resumeSummary(cp, { ...r, since }), ''];
    if (cp.failed.length) lines.push('Do not retry the previously failed approaches above.');
    if (r.consumed) lines.push(`The checkpoint was consumed: moved to ${oneLine(r.trashPath ?? '')} (restore it with: checkpoint restore ${shellQuote(cp.name)}).`);
    else lines.push(`The checkpoint was kept: ${oneLine(r.path)}`);
    return lines.join('\n');
  },
});

/** The four tools, in the order they are listed. */
export const AGENT_TOOLS: readonly AgentTool[] = [saveTool, listTool, showTool, resumeTool] as unknown as AgentTool[];

/**
 * One checkpoint as a line of a list the model reads. Every value comes from a file that someone else may have
 * written (a pulled checkpoint, an agent): each is one escaped line, so no value starts a line of its own.
 */
function listLine(c: CheckpointSummary): string {
  if (c.unreadable) return `- ${oneLine(c.name)} (unreadable: ${printable(oneLine(c.unreadable), 200)}) ${oneLine(c.path)}`;
  const saved = new Date(c.saved);
  const facts = [oneLine(c.branch) || 'no branch', `saved ${formatLocalDateTime(saved)} (${formatRelative(c.saved)})`];
  if (c.plan) facts.push(`plan ${oneLine(c.plan)}${c.planStep !== undefined && c.planSteps !== undefined ? ` ${formatStep(c.planStep, c.planSteps)}` : ''}`);
  if (c.source === 'json') facts.push('plan history, read-only');
  return `- ${oneLine(c.name)} [${facts.join('; ')}] ${oneLine(c.description) || '(no summary)'}`;
}

/**
 * Checks a tool's raw input against its schema; throws a CheckpointError that names each bad field. For hosts that
 * do not validate input themselves (VS Code passes the model's input as it is).
 */
export function parseToolInput<S extends z.ZodMiniObject>(tool: AgentTool<S>, raw: unknown): z.infer<S> {
  const r = schemas().checkInput(tool.input, raw ?? {});
  if (r.success) return r.data;
  throw new CheckpointError(`Invalid arguments for ${tool.name}: ${r.problems.join('; ')}`);
}
