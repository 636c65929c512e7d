/**
 * Which lines of MEMORY.md are its checkpoint section and that section's bullets: headings outside code blocks, front
 * matter and HTML comments, and the shapes of bullet agents write.
 */
import { isBlank, type Line } from './memoryIndexLines';

/**
 * `## Active Checkpoints` as agents spell it (any case, level 2 or 3), or `## Checkpoints` as Checkpoint 0.1.0 wrote
 * it (read as the same section).
 */
const SECTION_RE = /^ {0,3}#{2,3}[ \t]+(?:active[ \t]+)?checkpoints[ \t]*(?:#+[ \t]*)?$/i;
const LEVEL_ONE_RE = /^ {0,3}#(?:[ \t]|$)/;
const ANY_HEADING_RE = /^ {0,3}#{1,6}(?:[ \t]|$)/;
/**
 * The shape of a bullet the product writes (and agents writing by hand write): `- **name** (branch, Mon DD) — summary`,
 * with the date as agents also write it (`Nov 05`, `2025-11-05`) and an en dash or `--` for the em dash. The name
 * holds no `*`; any `, <date>) <dash> ` after it will do (the first is found, scanning forward once: linear, and
 * quick on the long summaries that follow).
 */
const PRODUCT_BULLET_RE = /^[-*] \*\*([^*]+)\*\* \(.*?, (?:[A-Z][a-z]{2} \d{1,2}|\d{4}-\d{2}-\d{2})\) (?:—|–|--) /;
const SETEXT_UNDERLINE_RE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const HTML_COMMENT_OPEN_RE = /^ {0,3}<!--/;
export const RESUME_RE = /^Resume any:/;
/**
 * The code of the first character after up to three spaces (NaN for none): what a heading (`#`), fence or comment
 * starts with. Tested before the patterns, which most lines (bullets, prose) cannot match.
 */
function leadChar(text: string): number {
  let i = 0;
  while (i < 3 && text.charCodeAt(i) === SPACE) i++;
  return text.charCodeAt(i);
}
const SPACE = 0x20;
const [HASH, LESS_THAN, BACKTICK, TILDE] = ['#', '<', '`', '~'].map((c) => c.charCodeAt(0));
const isHeadingLine = (text: string): boolean => leadChar(text) === HASH;

/** The index of the line that closes YAML front matter at the top, or -1 when there is none. */
export function frontMatterEnd(lines: Line[]): number {
  if (!lines.length || lines[0].text !== '---') return -1;
  return lines.findIndex((l, j) => j > 0 && (l.text === '---' || l.text === '...'));
}

/** For each line: whether it is inside a fenced code block or YAML front matter (so never a heading). */
export function literalMask(lines: Line[]): boolean[] {
  const mask = new Array<boolean>(lines.length).fill(false);
  let i = 0;
  const close = frontMatterEnd(lines);
  if (close > 0) {
    for (; i <= close; i++) mask[i] = true;
  }
  let fence: string | undefined;
  let comment = false;
  for (; i < lines.length; i++) {
    const text = lines[i].text;
    if (!comment && !fence) {
      const c = leadChar(text);
      if (c !== LESS_THAN && c !== BACKTICK && c !== TILDE) continue;
    }
    // An HTML comment block (`<!--` through the line holding `-->`) is not Markdown: a heading in it is no section.
    if (comment || (!fence && HTML_COMMENT_OPEN_RE.test(text))) {
      mask[i] = true;
      const from: number = comment ? 0 : text.indexOf('<!--') + 4;
      comment = !text.includes('-->', from);
      continue;
    }
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(text);
    if (fence) {
      mask[i] = true;
      if (f && f[1][0] === fence[0] && f[1].length >= fence.length && lines[i].text.trim() === f[1]) fence = undefined;
    } else if (f && !(f[1][0] === '`' && lines[i].text.slice(f[0].length).includes('`'))) {
      fence = f[1];
      mask[i] = true;
    }
  }
  return mask;
}

export interface Section {
  start: number;
  /** Exclusive. */
  end: number;
}

/**
 * The checkpoint section: its heading through its resume line (the section's last line), or through the
 * line before the next heading (of any level: a `###` subsection after it is the person's) when it has no resume
 * line. Text after the resume line is the user's: a section inserted after the first heading must not swallow the
 * bullets that follow it.
 */
function sectionFrom(lines: Line[], mask: boolean[], start: number): Section {
  let end = start + 1;
  while (end < lines.length && (mask[end] || !isHeadingLine(lines[end].text) || !ANY_HEADING_RE.test(lines[end].text))) {
    end++;
    if (!mask[end - 1] && lines[end - 1].text[0] === 'R' && RESUME_RE.test(lines[end - 1].text)) break;
  }
  return { start, end };
}

/** Every checkpoint section in the file (normally one; a file edited by two tools may have two). */
export function findSections(lines: Line[], mask: boolean[]): Section[] {
  const sections: Section[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (mask[i] || !isHeadingLine(lines[i].text) || !SECTION_RE.test(lines[i].text)) continue;
    const s = sectionFrom(lines, mask, i);
    sections.push(s);
    i = s.end - 1;
  }
  return sections;
}

export function findSection(lines: Line[], mask: boolean[]): Section | undefined {
  return findSections(lines, mask)[0];
}

/** The name of a bullet of the product's shape (see {@link PRODUCT_BULLET_RE}). */
export const productName = (line: Line): string | undefined =>
  // The name is what the pattern's group holds: from after `- **` to the first `*`. `test` allocates no match.
  isBulletStart(line.text) && PRODUCT_BULLET_RE.test(line.text) ? line.text.slice(4, line.text.indexOf('*', 4)) : undefined;

/** `- **` or `* **`: what every bullet with a bold name starts with (a test cheaper than the patterns). */
const isBulletStart = (text: string): boolean => (text[0] === '-' || text[0] === '*') && text.startsWith(' **', 1);

/** The checkpoint name of a line, or undefined when it is not a checkpoint's bullet (see {@link namer}). */
export type Namer = (line: Line) => string | undefined;

/**
 * Reads checkpoint bullets for one operation over one file's lines. Without `known`, a bullet is a checkpoint's when
 * it has the product's shape. With `known` (the checkpoints that exist or are in the trash), a line is a checkpoint's
 * when it names one of them in a shape agents write (see {@link shapeName}): a line that names no such checkpoint is
 * the person's, even in the product's shape (`- **todo** buy milk`, `- **todo** (x, Nov 02) — …`), and no operation
 * touches it unless the person names it (see `removeFromIndex` in memoryIndex.ts). Each line's text is read once,
 * however often it is asked, and again only when it is replaced.
 */
export function namer(known?: ReadonlySet<string>): Namer {
  return (line) => {
    if (line.read !== line.text) {
      const written = productName(line);
      line.product = written !== undefined;
      line.bullet = (known ? shapeName(line.text, known) : written) ?? null;
      line.read = line.text;
    }
    return line.bullet ?? undefined;
  };
}

/** After a plain name, what makes the line a checkpoint's bullet: ` (branch, date)`, a dash, a colon, or nothing. */
const PLAIN_NAME_END = [' (', ' — ', ' – ', ' -- ', ': '];

/**
 * The checkpoint of `known` a bullet names, in the shapes agents write inside the section: `- **name** …` (also
 * `*` or `+`, indented), `- [name](checkpoint-name.md) …`, and a name without bold followed by ` (`, a dash or a
 * colon (`- name (main, Nov 02) — …`). A name may hold `*` (an agent's file name): each closing `**` is tried.
 */
function shapeName(text: string, known: ReadonlySet<string>): string | undefined {
  if (known.size === 0) return undefined;
  let i = 0;
  while (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB) i++;
  const marker = text[i];
  if ((marker !== '-' && marker !== '*' && marker !== '+') || text[i + 1] !== ' ') return undefined;
  i += 2;
  while (text.charCodeAt(i) === SPACE) i++;
  const rest = text.slice(i);
  if (rest.startsWith('**')) {
    // At most a few closings are tried: a name is short, and the summary after it may hold many `**`.
    for (let end = rest.indexOf('**', 2), tries = 0; end > 2 && tries < 8; end = rest.indexOf('**', end + 1), tries++) {
      const name = rest.slice(2, end);
      if (known.has(name)) return name;
    }
    return undefined;
  }
  if (rest.startsWith('[')) {
    const close = rest.indexOf('](');
    if (close < 0) return undefined;
    const label = rest.slice(1, close);
    if (known.has(label)) return label;
    const target = rest.slice(close + 2, rest.indexOf(')', close + 2) >>> 0);
    const fromTarget = target.startsWith(CHECKPOINT_FILE_PREFIX) && target.endsWith('.md') ? target.slice(CHECKPOINT_FILE_PREFIX.length, -3) : undefined;
    return fromTarget !== undefined && known.has(fromTarget) ? fromTarget : undefined;
  }
  if (known.has(rest.trimEnd())) return rest.trimEnd();
  for (const end of PLAIN_NAME_END) {
    const at = rest.indexOf(end);
    if (at > 0 && known.has(rest.slice(0, at))) return rest.slice(0, at);
  }
  return undefined;
}
const TAB = 0x09;
const CHECKPOINT_FILE_PREFIX = 'checkpoint-';

/**
 * The index of the last line of the first level-one heading outside code and comments: a `# ` heading's line, or a
 * setext heading's `===` underline. -1 when there is none (a `## Setup` is no place for the section: its lines
 * would fall under it).
 */
export function firstHeadingEnd(lines: Line[], mask: boolean[]): number {
  for (let i = 0; i < lines.length; i++) {
    if (mask[i]) continue;
    if (LEVEL_ONE_RE.test(lines[i].text)) return i;
    const next = i + 1;
    if (
      next < lines.length &&
      !mask[next] &&
      !isBlank(lines[i]) &&
      SETEXT_UNDERLINE_RE.test(lines[next].text) &&
      lines[next].text.trim().startsWith('=') &&
      isParagraphLine(lines[i].text)
    ) {
      return next;
    }
  }
  return -1;
}

/** A line that can be (the last line of) a setext heading's text: not a list item, quote, fence or rule. */
function isParagraphLine(text: string): boolean {
  return !/^ {0,3}(?:[-*+>]|\d+[.)]|`{3}|~{3}|={3}|<)/.test(text) && !/^ {4}/.test(text);
}
