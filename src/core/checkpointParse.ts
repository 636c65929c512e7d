/**
 * A checkpoint file read: its front matter (leniently: one that does not parse is skipped) and its body, the body
 * winning where they differ; and the header a listing needs, read from the front matter alone when it settles it.
 */
import { CheckpointError } from './errors';
import { formatLocalDateTime } from './dates';
import { parseFrontMatter } from './frontMatter';
import { oneLine, splitAnyLines } from './escaping';
import type * as Schemas from './schemas';
import { describe, isObjectId, NO_BRANCH, type Checkpoint, type CheckpointHeader, type CheckpointSource } from './checkpoint';
import { parseBody, sectionItems, sectionText } from './checkpointBody';
import { parseSourcesTable } from './checkpointSources';

let schemaModule: typeof Schemas | undefined;
/** The zod schemas, loaded on first use (see schemas.ts). */
const schemas = (): typeof Schemas => (schemaModule ??= require('./schemas') as typeof Schemas);

function asString(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return String(v);
}

function asIso(v: string | Date | undefined): string | undefined {
  if (v === undefined) return undefined;
  const d = v instanceof Date ? v : new Date(v);
  if (Number.isNaN(d.getTime())) throw new CheckpointError(`invalid front matter: saved "${String(v)}" is not a date`);
  return d.toISOString();
}

const isText = (v: unknown): boolean => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v));
const isCount = (v: unknown): boolean => v === undefined || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);

/**
 * True when `data` passes FrontMatterSchema (schemas.ts) as it is, so zod need not run: each known key absent or
 * of a type the schema accepts (what the extension writes always is). Validating thousands of files with zod costs
 * more than reading them. Must never accept what the schema refuses: keep it in step with FrontMatterSchema
 * (scripts/bench/check-parsers.mjs checks that they agree). Exported for that check.
 */
export function isPlainFrontMatter(data: Record<string, unknown>): boolean {
  const { name, description, type, branch, saved, plan } = data;
  return (
    !Object.prototype.hasOwnProperty.call(data, '__proto__') &&
    (name === undefined || isText(name) || typeof name === 'boolean') &&
    (description === undefined || description === null || isText(description)) &&
    (type === undefined || type === null || typeof type === 'string') &&
    (branch === undefined || branch === null || isText(branch)) &&
    (saved === undefined || typeof saved === 'string' || (saved instanceof Date && !Number.isNaN(saved.getTime()))) &&
    (plan === undefined || plan === null || typeof plan === 'string') &&
    isCount(data.planStep) &&
    isCount(data.planSteps)
  );
}

/** The validated front matter and the body of a checkpoint file; throws what {@link parseCheckpoint} throws for them. */
function strictFrontMatter(text: string): { fm: Schemas.FrontMatter | undefined; body: string } {
  if (text.includes('\u0000')) throw new CheckpointError('not a text file');
  const { data, body } = parseFrontMatter(text);
  let fm: Schemas.FrontMatter | undefined;
  if (data && isPlainFrontMatter(data)) {
    fm = data as Schemas.FrontMatter;
  } else if (data) {
    const { FrontMatterSchema, prettifyError } = schemas();
    const result = FrontMatterSchema.safeParse(data);
    if (!result.success) {
      throw new CheckpointError(`invalid front matter: ${splitAnyLines(prettifyError(result.error)).map((l) => oneLine(l)).filter((l) => l !== '').join('; ')}`);
    }
    fm = result.data;
  }
  // The values read later must read: a `saved` that is no date, `sources` that are no list of names.
  if (fm) {
    asIso(fm.saved);
    const sources = (fm as Record<string, unknown>).sources;
    if (sources !== undefined && sources !== null && (!Array.isArray(sources) || !sources.every(isText))) {
      throw new CheckpointError('invalid front matter: sources must be a list of checkpoint names');
    }
  }
  return { fm, body };
}

/**
 * The text after a front matter block that could not be parsed: after its closing `---` line (or the whole text when
 * it has none). Undefined when the text starts with no such block.
 */
function bodyAfterFrontMatter(text: string): string | undefined {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!src.startsWith('---')) return undefined;
  const lines = src.split('\n');
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i].replace(/\r$/, '');
    if (l === '---' || l === '...') return lines.slice(i + 1).join('\n');
  }
  return src;
}

/**
 * The front matter and body of a checkpoint file, read leniently: front matter that does not parse or holds a
 * binary byte is skipped, with the reason, and the file is read by its body. A NUL in the body is no text file.
 */
function readFrontMatter(text: string): { fm: Schemas.FrontMatter | undefined; body: string; skipped?: string } {
  try {
    return strictFrontMatter(text);
  } catch (err) {
    const body = bodyAfterFrontMatter(text);
    if (!(err instanceof CheckpointError) || body === undefined || body.includes('\u0000')) throw err;
    const reason = err.message === 'not a text file' ? 'it holds a binary byte' : err.message;
    return { fm: undefined, body, skipped: oneLine(reason) };
  }
}

/**
 * The body's value where it says otherwise than the front matter (the body wins), else the front matter's: a body
 * showing the front matter's value as one escaped line says the same.
 */
function pick(body: string | undefined, fm: string | undefined): string | undefined {
  if (body === undefined) return fm;
  if (fm === undefined) return body;
  return body === fm || body === oneLine(fm) ? fm : body;
}

/** Whether two times fall in the same local minute, as the body shows a time. */
const sameMinute = (a: string, b: string): boolean => formatLocalDateTime(new Date(a)) === formatLocalDateTime(new Date(b));

/**
 * The sources of a combined checkpoint: the names of front matter `sources` (in their order) with the details of
 * their table rows; without front matter, the table's rows. Undefined when it names none.
 */
function parseSources(fmSources: unknown, tableLines: string[] | undefined): CheckpointSource[] | undefined {
  const table = parseSourcesTable(tableLines);
  if (fmSources === undefined || fmSources === null) return table.length ? table : undefined;
  if (!Array.isArray(fmSources) || !fmSources.every(isText)) {
    throw new CheckpointError('invalid front matter: sources must be a list of checkpoint names');
  }
  const names = fmSources.map(String);
  if (names.length === 0) return undefined;
  return names.map((name) => table.find((t) => t.name === name) ?? { name, saved: '', branch: '' });
}

/**
 * Parses a checkpoint file. `fallbackName` (from the file name) is used when the file names none;
 * `fallbackSaved` when it carries no date. Throws CheckpointError with the reason when the text is
 * not a checkpoint.
 */
export function parseCheckpoint(text: string, fallbackName: string, fallbackSaved?: string): Checkpoint {
  const { fm, body, skipped } = readFrontMatter(text);
  const b = parseBody(body);
  if (!fm && !b.recognized) {
    // Front matter skipped and no body to read: the front matter's own reason.
    throw new CheckpointError(skipped ?? 'no checkpoint front matter or "# Checkpoint:" heading found');
  }
  const leftOff = sectionText(b.sections.leftOff);
  // The body wins: it is what a person and the agent read, and an agent may have edited it since the product
  // wrote the front matter. The front matter's time is kept when the body shows the same minute (it is precise).
  const fmSaved = asIso(fm?.saved);
  const saved = (b.saved !== undefined && (fmSaved === undefined || !sameMinute(fmSaved, b.saved)) ? b.saved : fmSaved) ?? fallbackSaved ?? new Date(0).toISOString();
  const cp: Checkpoint = {
    name: fallbackName,
    description: pick(leftOff === '' ? undefined : describe(leftOff), asString(fm?.description)) ?? describe(leftOff),
    branch: pick(b.branch, asString(fm?.branch)) ?? '',
    saved,
    leftOff,
    done: sectionItems(b.sections.done),
    failed: sectionItems(b.sections.failed),
    decisions: sectionItems(b.sections.decisions),
    questions: sectionItems(b.sections.questions),
    modifiedFiles: sectionItems(b.sections.modifiedFiles, true),
  };
  if (skipped) cp.frontMatterSkipped = skipped;
  const blockers = sectionItems(b.sections.blockers);
  if (blockers.length) cp.blockers = blockers;
  const sources = parseSources((fm as Record<string, unknown> | undefined)?.sources, b.sections.sources);
  if (sources) cp.sources = sources;
  if (fm?.auto === true) cp.auto = true;
  if (typeof fm?.session === 'string' && fm.session) cp.session = fm.session;
  const fmPlan = asString(fm?.plan);
  const plan = pick(b.plan, fmPlan);
  if (plan) {
    cp.plan = plan;
    // The body's step, else the front matter's when both name the same plan.
    const fromFm = fmPlan === plan && b.planStep === undefined;
    const step = fromFm ? fm?.planStep : b.planStep;
    const steps = fromFm ? fm?.planSteps : b.planSteps;
    if (step !== undefined && steps !== undefined) {
      cp.planStep = step;
      cp.planSteps = steps;
    }
  }
  // Only a full object id is kept: anything else in these keys is not ours and is ignored, not an error.
  if (isObjectId(fm?.head)) cp.head = fm.head;
  if (isObjectId(fm?.snapshot)) cp.snapshot = fm.snapshot;
  const extra = fm as Record<string, unknown> | undefined;
  if (typeof extra?.snapshotSkipped === 'string' && extra.snapshotSkipped) cp.snapshotSkipped = oneLine(extra.snapshotSkipped);
  const leftOut = extra?.snapshotLeftOut;
  if (Array.isArray(leftOut) && leftOut.length && leftOut.every(isText)) cp.snapshotLeftOut = leftOut.map((f) => oneLine(String(f)));
  return cp;
}


/** Only a body line like `- **Plan:** …` can give a plan; a body without `**plan` (any case) cannot. */
function mayNamePlan(body: string): boolean {
  for (let i = body.indexOf('**'); i >= 0; i = body.indexOf('**', i + 2)) {
    // `plan` in any case, from character codes (`| 0x20` lower-cases an ASCII letter; no other code becomes one).
    if ((body.charCodeAt(i + 2) | 0x20) === 0x70 && (body.charCodeAt(i + 3) | 0x20) === 0x6c && (body.charCodeAt(i + 4) | 0x20) === 0x61 && (body.charCodeAt(i + 5) | 0x20) === 0x6e) return true;
  }
  return false;
}

/**
 * The header fields of a checkpoint file: exactly what {@link parseCheckpoint} gives for them (and the same
 * errors), without parsing the body when the front matter settles them all (description, branch, saved, and
 * the plan with its steps, or no plan and no plan line in the body). Listing thousands of files needs no more.
 * `fallbackSaved` may be a function, called only when the file carries no date.
 */
export function parseCheckpointHeader(text: string, fallbackName: string, fallbackSaved?: string | (() => string)): CheckpointHeader {
  const { fm, body } = readFrontMatter(text);
  const full = (): Checkpoint => parseCheckpoint(text, fallbackName, typeof fallbackSaved === 'function' ? fallbackSaved() : fallbackSaved);
  if (!fm || fm.description == null || fm.branch == null || fm.saved === undefined) return full();
  const plan = asString(fm.plan);
  const settled = plan ? fm.planStep !== undefined && fm.planSteps !== undefined : plan === '' || !mayNamePlan(body);
  if (!settled) return full();
  const header: CheckpointHeader = {
    name: fallbackName,
    description: String(fm.description),
    branch: String(fm.branch),
    saved: asIso(fm.saved)!,
  };
  if (plan) {
    header.plan = plan;
    header.planStep = fm.planStep;
    header.planSteps = fm.planSteps;
  }
  // The body wins where it says otherwise (an agent edited it): the full reading then decides.
  if (!bodyAgrees(body, header)) return full();
  if (fm.auto === true) header.auto = true;
  return header;
}

/**
 * Whether a body says what the front matter's header says, as the product writes it: its Branch, Saved and Plan
 * lines and the first line of Left Off. Any doubt is a no (the full reading is always right, only slower).
 */
function bodyAgrees(body: string, h: CheckpointHeader): boolean {
  if (!body.includes(`\n- **Branch:** \`${h.branch || NO_BRANCH}\`\n`) || !body.includes(`\n- **Saved:** ${formatLocalDateTime(new Date(h.saved))}\n`)) return false;
  if (h.plan && !body.includes(`\n- **Plan:** \`${h.plan}\``)) return false;
  const at = body.indexOf('\n## Left Off\n');
  if (at < 0) return false;
  const from = at + '\n## Left Off\n'.length;
  const end = body.indexOf('\n', from);
  return body.slice(from, end < 0 ? body.length : end) === h.description;
}
