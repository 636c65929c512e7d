/**
 * A checkpoint file's Markdown body read into its fields and sections, as the product writes it and as agents write
 * it (with other headings, or without front matter).
 */
import { parseLocalDateTime } from './dates';
import { NO_BRANCH, NONE } from './checkpoint';

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

function unescapeLine(line: string): string {
  return line.startsWith('\\#') ? line.slice(1) : line;
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

export function parseBody(body: string): BodyFields {
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

export function stripTicks(s: string): string {
  const m = /^`(.*)`$/.exec(s.trim());
  return (m ? m[1] : s).trim();
}

export function parseStepText(text: string): [number, number] | undefined {
  let m = /step\s+(\d+)\s+of\s+(\d+)/i.exec(text);
  if (m) return [+m[1], +m[2]];
  m = /all\s+(\d+)\s+steps?\s+done/i.exec(text);
  if (m) return [+m[1] + 1, +m[1]];
  return undefined;
}

export function sectionText(lines: string[] | undefined): string {
  if (!lines) return '';
  const text = lines
    .map((l) => unescapeLine(l.trimEnd()))
    .filter((l) => l.trim() !== '')
    .join('\n');
  return text.trim() === NONE ? '' : text;
}

export function sectionItems(lines: string[] | undefined, stripCode = false): string[] {
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
