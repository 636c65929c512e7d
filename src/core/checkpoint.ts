import { CheckpointError } from './errors';
import { formatLocalDateTime, parseLocalDateTime } from './dates';
import { parseFrontMatter, yamlString } from './frontMatter';
import { escapeControls, oneLine, splitAnyLines } from './escaping';
import type * as Schemas from './schemas';
import { formatStep } from './wording';

let schemaModule: typeof Schemas | undefined;
/** The zod schemas, loaded on first use (see schemas.ts). */
const schemas = (): typeof Schemas => (schemaModule ??= require('./schemas') as typeof Schemas);

/** One checkpoint: where work stopped. */
export interface Checkpoint {
  name: string;
  /** First line of Left Off: the one-line summary in the index. */
  description: string;
  /** Branch when saved; '' when the folder is not a git repository. */
  branch: string;
  /** ISO 8601 UTC. */
  saved: string;
  plan?: string;
  planStep?: number;
  planSteps?: number;
  leftOff: string;
  done: string[];
  failed: string[];
  decisions: string[];
  questions: string[];
  /** What blocks the work (`save --blocker`; a JSON checkpoint's `blockers`): the `## Blockers` section. */
  blockers?: string[];
  modifiedFiles: string[];
  /** The checkpoints this one was combined from (front matter `sources`, the `## Sources` table). */
  sources?: CheckpointSource[];
  /** Saved by a hook (before Claude Code compacted its context), not by a person or an agent's request. */
  auto?: boolean;
  /** The agent session an automatic checkpoint belongs to (its older automatic ones are replaced). */
  session?: string;
  /**
   * Why the file's front matter was skipped (it does not parse, or holds a binary byte): the checkpoint was then read
   * by its Markdown body alone. Never written.
   */
  frontMatterSkipped?: string;
  /** HEAD's commit when saved (full object id); absent before the first commit or without a snapshot. */
  head?: string;
  /** The code snapshot's commit (refs/checkpoints/snapshots/<name>); absent when none was taken. */
  snapshot?: string;
  /** Why no code snapshot was taken when one was due (too large, took too long). */
  snapshotSkipped?: string;
  /** Files left out of the code snapshot as larger than the per-file cap. */
  snapshotLeftOut?: string[];
}

/** One checkpoint a combined checkpoint was made from: a row of its `## Sources` table. */
export interface CheckpointSource {
  name: string;
  /** ISO 8601 UTC (minute precision once read back from the table); '' when unknown. */
  saved: string;
  /** '' when unknown or not a git repository. */
  branch: string;
  planStep?: number;
  planSteps?: number;
}

/** True for a full git object id (SHA-1 or SHA-256): the only form `head` and `snapshot` take. */
export const isObjectId = (s: unknown): s is string => typeof s === 'string' && (s.length === 40 || s.length === 64) && /^[0-9a-f]+$/.test(s);

export const NONE = 'None';
const NO_BRANCH = '(none)';

/** The sections a checkpoint's body is read into. */
type SectionKey = 'leftOff' | 'done' | 'failed' | 'decisions' | 'questions' | 'blockers' | 'modifiedFiles' | 'sources';

const SECTION_ALIASES: Record<string, SectionKey> = {
  'left off': 'leftOff',
  'where i left off': 'leftOff',
  'done this session': 'done',
  done: 'done',
  'failed approaches': 'failed',
  failed: 'failed',
  decisions: 'decisions',
  'open questions': 'questions',
  questions: 'questions',
  blockers: 'blockers',
  'modified files': 'modifiedFiles',
  'files modified': 'modifiedFiles',
  sources: 'sources',
};

const OWN_HEADING = /^## (?:Left Off|Done This Session|Failed Approaches|Decisions|Open Questions|Blockers|Modified Files|Sources)$/;

export { oneLine };

/** The description of a checkpoint: the first non-empty line of Left Off (any kind of line break ends it). */
export function describe(leftOff: string): string {
  const first = splitAnyLines(leftOff).find((l) => l.trim() !== '');
  return first ? oneLine(first) : NONE;
}

/** The lines of Left Off as written: split at every kind of line break, control characters escaped, blanks dropped. */
function leftOffLines(leftOff: string): string[] {
  return splitAnyLines(leftOff)
    .map((l) => escapeControls(l.trimEnd()))
    .filter((l) => l.trim() !== '');
}

/**
 * The text of a heading line after its `#`s (`#{1,6}` then white space), without the closing `#`s and white space,
 * or undefined when the line is not a heading. Written without a regex over the title: `(.*?)\s*#*$` tries every
 * split of a long run of spaces, which is quadratic.
 */
function headingText(line: string): string | undefined {
  let i = 0;
  while (i < line.length && i < 7 && line.charCodeAt(i) === 0x23 /* # */) i++;
  if (i === 0 || i > 6 || i >= line.length || !/\s/.test(line[i])) return undefined;
  let end = line.length;
  while (end > i && /\s/.test(line[end - 1])) end--;
  while (end > i && line.charCodeAt(end - 1) === 0x23) end--;
  return line.slice(i, end).trim();
}

/** Keeps a user line from being read as a heading when the file is parsed again. */
function escapeLine(line: string): string {
  return /^\s*#/.test(line) ? `\\${line.trimStart()}` : line;
}

function unescapeLine(line: string): string {
  return line.startsWith('\\#') ? line.slice(1) : line;
}

function renderList(items: string[]): string[] {
  const clean = items.map(oneLine).filter((i) => i !== '');
  return clean.length ? clean.map((i) => `- ${i}`) : [NONE];
}

/** Renders a checkpoint file: YAML front matter and the Markdown body agents read. */
export function renderCheckpoint(cp: Checkpoint): string {
  return `${renderFrontMatter(cp).join('\n')}\n${renderCheckpointBody(cp)}`;
}

function renderFrontMatter(cp: Checkpoint): string[] {
  const fm = [
    '---',
    `name: ${yamlString(cp.name)}`,
    `description: ${yamlString(cp.description)}`,
    'type: checkpoint',
    `branch: ${yamlString(cp.branch)}`,
    `saved: ${new Date(cp.saved).toISOString()}`,
  ];
  if (cp.auto) fm.push('auto: true');
  if (cp.session) fm.push(`session: ${yamlString(cp.session)}`);
  if (cp.plan) {
    fm.push(`plan: ${yamlString(cp.plan)}`);
    if (cp.planStep !== undefined && cp.planSteps !== undefined) fm.push(`planStep: ${cp.planStep}`, `planSteps: ${cp.planSteps}`);
  }
  if (cp.sources?.length) fm.push(`sources: [${cp.sources.map((src) => flowScalar(src.name)).join(', ')}]`);
  // Object ids are always quoted: one of digits only would read back as a number.
  if (isObjectId(cp.head)) fm.push(`head: "${cp.head}"`);
  if (isObjectId(cp.snapshot)) fm.push(`snapshot: "${cp.snapshot}"`);
  if (cp.snapshotSkipped) fm.push(`snapshotSkipped: ${yamlString(oneLine(cp.snapshotSkipped))}`);
  if (cp.snapshotLeftOut?.length) fm.push(`snapshotLeftOut: [${cp.snapshotLeftOut.map((f) => flowScalar(oneLine(f))).join(', ')}]`);
  fm.push('---');
  return fm;
}

/**
 * The Markdown body of a checkpoint file, without the front matter: what a person reads (the editor shows a resumed
 * checkpoint as this), and what an agent reads below the metadata.
 */
export function renderCheckpointBody(cp: Checkpoint): string {
  // Every value in the body is one escaped line: a branch, plan path or name with a line break (or a control
  // character) must not start a section of its own that an agent would read as instructions.
  const plan = cp.plan === undefined ? undefined : oneLine(cp.plan);
  const lines = [`# Checkpoint: ${oneLine(cp.name)}`, `- **Branch:** \`${oneLine(cp.branch) || NO_BRANCH}\``, `- **Saved:** ${formatLocalDateTime(new Date(cp.saved))}`];
  if (cp.plan) {
    const step = cp.planStep !== undefined && cp.planSteps !== undefined ? ` (${formatStep(cp.planStep, cp.planSteps)})` : '';
    lines.push(`- **Plan:** \`${plan}\`${step}`);
  }
  const leftOff = leftOffLines(cp.leftOff).map(escapeLine);
  lines.push('## Left Off', ...(leftOff.length ? leftOff : [NONE]));
  lines.push('## Done This Session', ...renderList(cp.done));
  lines.push('## Failed Approaches', ...renderList(cp.failed));
  if (cp.decisions.length) lines.push('## Decisions', ...renderList(cp.decisions));
  if (cp.questions.length) lines.push('## Open Questions', ...renderList(cp.questions));
  if (cp.blockers?.length) lines.push('## Blockers', ...renderList(cp.blockers));
  lines.push('## Modified Files', ...renderList(cp.modifiedFiles));
  if (cp.sources?.length) lines.push('## Sources', ...renderSources(cp.sources));
  return `${lines.join('\n')}\n`;
}

/** Characters a plain scalar may hold inside a YAML flow sequence (no `,`, brackets, braces, spaces or `#`). */
const FLOW_SAFE = /^[A-Za-z0-9_.~/@+-]+$/;

/** A string as an item of a YAML flow sequence (`[a, b]`): plain when it reads back as itself, else quoted. */
function flowScalar(value: string): string {
  const y = yamlString(value);
  if (y !== value) return y;
  return FLOW_SAFE.test(value) ? value : JSON.stringify(value);
}

const NO_VALUE = '—';
const SOURCES_HEADER = ['| Name | Saved | Branch | Plan step |', '| --- | --- | --- | --- |'];

/** One table cell: one line, no control characters, `\` and `|` escaped so the row splits where it should. */
function tableCell(text: string): string {
  // eslint-disable-next-line no-control-regex
  const line = oneLine(text).replace(/[\u0000-\u001f\u007f]/g, '?');
  return line === '' ? NO_VALUE : line.replace(/[\\|]/g, (c) => `\\${c}`);
}

function renderSources(sources: CheckpointSource[]): string[] {
  return [
    ...SOURCES_HEADER,
    ...sources.map((src) => {
      const saved = src.saved ? formatLocalDateTime(new Date(src.saved)) : '';
      const step = src.planStep !== undefined && src.planSteps !== undefined ? formatStep(src.planStep, src.planSteps) : '';
      return `| ${[tableCell(src.name), tableCell(saved), tableCell(src.branch || NO_BRANCH), tableCell(step)].join(' | ')} |`;
    }),
  ];
}

/** The cells of a Markdown table row (`| a | b\\|c |`), unescaped; undefined when the line is not a row. */
function tableCells(line: string): string[] | undefined {
  const row = line.trim();
  if (!row.startsWith('|')) return undefined;
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < row.length; i++) {
    const c = row[i];
    if (c === '\\' && (row[i + 1] === '|' || row[i + 1] === '\\')) cell += row[++i];
    else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  if (cell.trim() !== '') cells.push(cell.trim());
  return cells;
}

/** The rows of the `## Sources` table, by name (a header row followed by a `---` row is skipped). */
function parseSourcesTable(lines: string[] | undefined): CheckpointSource[] {
  if (!lines) return [];
  const rows = lines.map(tableCells).filter((r): r is string[] => r !== undefined && r.length > 0);
  const isRule = (r: string[] | undefined): boolean => r !== undefined && r.every((c) => /^:?-+:?$/.test(c));
  const data = isRule(rows[1]) ? rows.slice(2) : rows.filter((r) => !isRule(r));
  return data.map((r) => {
    const value = (i: number): string => (r[i] === undefined || r[i] === NO_VALUE ? '' : r[i]);
    const src: CheckpointSource = {
      name: value(0),
      saved: parseLocalDateTime(value(1))?.toISOString() ?? '',
      branch: value(2) === NO_BRANCH ? '' : stripTicks(value(2)),
    };
    const step = value(3) ? parseStepText(value(3)) : undefined;
    if (step) [src.planStep, src.planSteps] = step;
    return src;
  }).filter((src) => src.name !== '');
}

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

/** What the Markdown body alone says (agents may write files without front matter). */
interface BodyFields {
  name?: string;
  branch?: string;
  saved?: string;
  plan?: string;
  planStep?: number;
  planSteps?: number;
  sections: Partial<Record<SectionKey, string[]>>;
  recognized: boolean;
}

function parseBody(body: string): BodyFields {
  const out: BodyFields = { sections: {}, recognized: false };
  let current: SectionKey | undefined;
  let fence: string | undefined;
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trimEnd();
    // One of our own section headings at column 0 ends any fence: user text is escaped when written (a line
    // starting with `#` gets a backslash), so such a line is ours, and an unclosed fence in Left Off must not
    // swallow the sections after it.
    if (fence && OWN_HEADING.test(line)) fence = undefined;
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      if (!fence) fence = fenceMatch[1];
      else if (fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = undefined;
    }
    if (!fence && !fenceMatch) {
      const h1 = /^#\s+Checkpoint:\s*(.*)$/i.exec(line);
      if (h1) {
        out.name = h1[1].trim();
        out.recognized = true;
        current = undefined;
        continue;
      }
      const h = headingText(line);
      if (h !== undefined) {
        current = SECTION_ALIASES[h.toLowerCase().replace(/:$/, '')];
        if (current) {
          out.recognized = true;
          out.sections[current] ??= [];
        }
        continue;
      }
      if (!current) {
        const meta = /^[-*]\s+\*\*(Branch|Saved|Plan):?\*\*:?\s*(.*)$/i.exec(line);
        if (meta) {
          const key = meta[1].toLowerCase();
          const value = meta[2].trim();
          if (key === 'branch') {
            const b = stripTicks(value);
            out.branch = b === NO_BRANCH ? '' : b;
          } else if (key === 'saved') {
            out.saved = parseLocalDateTime(value)?.toISOString();
          } else {
            const pm = /^`([^`]+)`\s*(?:\((.*)\))?/.exec(value) ?? /^(\S+)\s*(?:\((.*)\))?/.exec(value);
            if (pm) {
              out.plan = pm[1];
              const step = pm[2] ? parseStepText(pm[2]) : undefined;
              if (step) [out.planStep, out.planSteps] = step;
            }
          }
          out.recognized = true;
          continue;
        }
      }
    }
    if (current) out.sections[current]!.push(raw);
  }
  return out;
}

function stripTicks(s: string): string {
  const m = /^`(.*)`$/.exec(s.trim());
  return (m ? m[1] : s).trim();
}

function parseStepText(text: string): [number, number] | undefined {
  let m = /step\s+(\d+)\s+of\s+(\d+)/i.exec(text);
  if (m) return [+m[1], +m[2]];
  m = /all\s+(\d+)\s+steps?\s+done/i.exec(text);
  if (m) return [+m[1] + 1, +m[1]];
  return undefined;
}

function sectionText(lines: string[] | undefined): string {
  if (!lines) return '';
  const text = lines
    .map((l) => unescapeLine(l.trimEnd()))
    .filter((l) => l.trim() !== '')
    .join('\n');
  return text.trim() === NONE ? '' : text;
}

function sectionItems(lines: string[] | undefined, stripCode = false): string[] {
  if (!lines) return [];
  const items: string[] = [];
  for (const raw of lines) {
    const line = unescapeLine(raw.trimEnd());
    if (line.trim() === '') continue;
    const bullet = /^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (bullet) items.push(bullet[1].trim());
    else if (/^\s/.test(line) && items.length) items[items.length - 1] += ` ${line.trim()}`;
    else items.push(line.trim());
  }
  const out = items.filter((i) => i !== NONE && i !== `_${NONE}_`);
  return stripCode ? out.map(stripTicks) : out;
}

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
 * The front matter and body of a checkpoint file, read leniently (SPEC): front matter that does not parse or holds a
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
  // The body wins (SPEC): it is what a person and the agent read, and an agent may have edited it since the product
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

/** What a listing shows of a checkpoint. */
export type CheckpointHeader = Pick<Checkpoint, 'name' | 'description' | 'branch' | 'saved' | 'plan' | 'planStep' | 'planSteps' | 'auto' | 'frontMatterSkipped'>;

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
