// The JSON shapes the CLI prints with --json, written once (schema/checkpoint-cli.schema.json describes them): one
// checkpoint shape for every command that prints a checkpoint, and the summary a listing gives of each.
import type { Checkpoint } from '../core/checkpoint';
import type { CheckpointSummary } from '../core/store';
import { shellQuote } from '../core/escaping';
import { continueRequest } from '../core/resumeText';

/** A command line of this CLI to print: `checkpoint <words>`, each word quoted, with the --dir it ran with. */
export function cliLine(words: string[], dir: string | undefined): string {
  return ['checkpoint', ...words, ...(dir === undefined ? [] : ['--dir', dir])].map((w, i) => (i === 0 ? w : shellQuote(w))).join(' ');
}

/** How to pick a checkpoint up again, after it is saved: the CLI's command, and what to tell an agent. */
export function resumeHint(name: string, dir: string | undefined): string {
  return `Resume anytime: ${cliLine(['resume', name], dir)} (or tell your agent: ${continueRequest(name)})`;
}

/** The fields a listing and a whole checkpoint share. */
function headerJson(c: Pick<Checkpoint, 'name' | 'branch' | 'saved' | 'description' | 'plan' | 'planStep' | 'planSteps'>, path: string): Record<string, unknown> {
  return {
    name: c.name,
    path,
    branch: c.branch,
    saved: c.saved,
    description: c.description,
    plan: c.plan ?? null,
    planStep: c.planStep ?? null,
    planSteps: c.planSteps ?? null,
  };
}

/** A checkpoint as `list` and `pending` give it: its header, without reading the whole file. */
export function summaryJson(c: CheckpointSummary): Record<string, unknown> {
  // Added to the header's object, not spread into a new one: JSON.stringify writes 2,000 such objects about three
  // times faster (a listing's `--json`).
  const json = headerJson(c, c.path);
  json.unreadable = c.unreadable ?? null;
  json.frontMatterSkipped = c.frontMatterSkipped ?? null;
  return json;
}

/** The whole checkpoint: the summary's fields and every section (show, resume, save, restore, combine). */
export function checkpointJson(cp: Checkpoint, path: string): Record<string, unknown> {
  return {
    ...headerJson(cp, path),
    leftOff: cp.leftOff,
    done: cp.done,
    failedApproaches: cp.failed,
    decisions: cp.decisions,
    questions: cp.questions,
    blockers: cp.blockers ?? [],
    modifiedFiles: cp.modifiedFiles,
    sources: (cp.sources ?? []).map((s) => ({ name: s.name, saved: s.saved, branch: s.branch, planStep: s.planStep ?? null, planSteps: s.planSteps ?? null })),
    auto: cp.auto === true,
    session: cp.session ?? null,
    head: cp.head ?? null,
    snapshot: cp.snapshot ?? null,
    snapshotSkipped: cp.snapshotSkipped ?? null,
    snapshotLeftOut: cp.snapshotLeftOut ?? [],
    frontMatterSkipped: cp.frontMatterSkipped ?? null,
  };
}
