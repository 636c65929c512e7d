import { formatMonthDay } from './dates';
import type { Checkpoint } from './checkpoint';
import { oneLine } from './escaping';
import { CLAUDE_INDEX_MAX_CHARS, CLAUDE_INDEX_MAX_LINES, linesClaudeLoads } from './claudeBudget';

/** The file name of the index in the memory directory. */
export const INDEX_FILE = 'MEMORY.md';
/** The heading of the checkpoint section (the one the session-checkpoint skill writes). */
export const SECTION_HEADING = '## Active Checkpoints';
/** What a new MEMORY.md starts with (the skill's heading). */
export const NEW_INDEX_HEADING = '# Project Memory';
export const RESUME_LINE = 'Resume any: `continue` or `continue {name}`';

interface Line {
  text: string;
  eol: string;
  /** Where the line starts in the text it was split from (unset for a line an edit added). */
  at?: number;
  /** The text {@link Line.bullet} was read from (the line's text may be replaced since). */
  read?: string;
  /** The checkpoint name of the bullet this line is, or null (see {@link namer}). */
  bullet?: string | null;
  /** Whether that bullet has the product's shape. */
  product?: boolean;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  // `\r` is looked for only in a file that has one (the usual file's lines all end in `\n`).
  const anyCr = text.includes('\r');
  const pieces = text.split('\n');
  let at = 0;
  const push = (line: string, eol: string): void => {
    // Every field a Line gets later, set now: one object shape throughout, no property added to thousands of lines.
    lines.push({ text: line, eol, at, read: undefined, bullet: undefined, product: undefined });
    at += line.length + eol.length;
  };
  for (let k = 0; k < pieces.length; k++) {
    const last = k === pieces.length - 1;
    let piece = pieces[k];
    if (last && piece === '') break;
    let eol = last ? '' : '\n';
    if (anyCr) {
      if (!last && piece.endsWith('\r')) {
        piece = piece.slice(0, -1);
        eol = '\r\n';
      }
      // A lone `\r` ends a line too.
      if (piece.includes('\r')) {
        const parts = piece.split('\r');
        for (let j = 0; j < parts.length - 1; j++) push(parts[j], '\r');
        piece = parts[parts.length - 1];
        if (last && piece === '') break;
      }
    }
    push(piece, eol);
  }
  return lines;
}

function joinLines(lines: Line[]): string {
  let out = '';
  for (const l of lines) out += l.text + l.eol;
  return out;
}

function detectEol(lines: Line[]): string {
  return lines.find((l) => l.eol !== '')?.eol ?? '\n';
}

const BOM = '\uFEFF';
/**
 * `## Active Checkpoints` as agents spell it (any case, level 2 or 3), or `## Checkpoints` as Checkpoint 0.1.0 wrote
 * it (read as the same section).
 */
const SECTION_RE = /^ {0,3}#{2,3}[ \t]+(?:active[ \t]+)?checkpoints[ \t]*(?:#+[ \t]*)?$/i;
const LEVEL_ONE_RE = /^ {0,3}#(?:[ \t]|$)/;
const ANY_HEADING_RE = /^ {0,3}#{1,6}(?:[ \t]|$)/;
/**
 * The shape of a bullet the product writes (and the seed's agents write): `- **name** (branch, Mon DD) — summary`,
 * with the date as agents also write it (`Nov 05`, `2025-11-05`) and an en dash or `--` for the em dash. The name
 * holds no `*`; any `, <date>) <dash> ` after it will do (the first is found, scanning forward once: linear, and
 * quick on the long summaries that follow).
 */
const PRODUCT_BULLET_RE = /^[-*] \*\*([^*]+)\*\* \(.*?, (?:[A-Z][a-z]{2} \d{1,2}|\d{4}-\d{2}-\d{2})\) (?:—|–|--) /;
const SETEXT_UNDERLINE_RE = /^ {0,3}(?:=+|-+)[ \t]*$/;
const HTML_COMMENT_OPEN_RE = /^ {0,3}<!--/;
const RESUME_RE = /^Resume any:/;
const isBlank = (l: Line | undefined): boolean => l !== undefined && l.text.trim() === '';
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
function frontMatterEnd(lines: Line[]): number {
  if (!lines.length || lines[0].text !== '---') return -1;
  return lines.findIndex((l, j) => j > 0 && (l.text === '---' || l.text === '...'));
}

/** For each line: whether it is inside a fenced code block or YAML front matter (so never a heading). */
function literalMask(lines: Line[]): boolean[] {
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

interface Section {
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
function findSections(lines: Line[], mask: boolean[]): Section[] {
  const sections: Section[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (mask[i] || !isHeadingLine(lines[i].text) || !SECTION_RE.test(lines[i].text)) continue;
    const s = sectionFrom(lines, mask, i);
    sections.push(s);
    i = s.end - 1;
  }
  return sections;
}

function findSection(lines: Line[], mask: boolean[]): Section | undefined {
  return findSections(lines, mask)[0];
}

/** The name of a bullet of the product's shape (see {@link PRODUCT_BULLET_RE}). */
const productName = (line: Line): string | undefined =>
  // The name is what the pattern's group holds: from after `- **` to the first `*`. `test` allocates no match.
  isBulletStart(line.text) && PRODUCT_BULLET_RE.test(line.text) ? line.text.slice(4, line.text.indexOf('*', 4)) : undefined;

/** `- **` or `* **`: what every bullet with a bold name starts with (a test cheaper than the patterns). */
const isBulletStart = (text: string): boolean => (text[0] === '-' || text[0] === '*') && text.startsWith(' **', 1);

/** The checkpoint name of a line, or undefined when it is not a checkpoint's bullet (see {@link namer}). */
type Namer = (line: Line) => string | undefined;

/**
 * Reads checkpoint bullets for one operation over one file's lines. Without `known`, a bullet is a checkpoint's when
 * it has the product's shape. With `known` (the checkpoints that exist or are in the trash), a line is a checkpoint's
 * when it names one of them in a shape agents write (see {@link shapeName}): a line that names no such checkpoint is
 * the person's, even in the product's shape (`- **todo** buy milk`, `- **todo** (x, Nov 02) — …`), and no operation
 * touches it unless the person names it (see {@link removeFromIndex}). Each line's text is read once, however often
 * it is asked, and again only when it is replaced.
 */
function namer(known?: ReadonlySet<string>): Namer {
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
 * The checkpoint of `known` a bullet names, in the shapes agents write inside the section (SPEC): `- **name** …` (also
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
function firstHeadingEnd(lines: Line[], mask: boolean[]): number {
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

/** The one index line for a checkpoint: `- **name** (branch, Mon DD) — summary`. */
export function formatBullet(cp: Pick<Checkpoint, 'name' | 'branch' | 'saved' | 'description'>): string {
  const date = formatMonthDay(new Date(cp.saved));
  // Every value is one escaped line: a name, branch or description must not add a line an agent reads.
  return `- **${oneLine(cp.name)}** (${oneLine(cp.branch) || 'no branch'}, ${date}) — ${oneLine(cp.description)}`;
}

/**
 * The names a person may remove a line of by naming them (delete, resume of a checkpoint whose file is gone): the
 * bullets of `known` checkpoints (those that exist or are in the trash) in any shape, and the lines of the product's
 * full shape whatever name they hold.
 */
export function removableNames(text: string, known: ReadonlySet<string>): string[] {
  const lines = splitLines(text.startsWith(BOM) ? text.slice(1) : text);
  const mask = literalMask(lines);
  const bulletOf = namer(known);
  const names = new Set<string>();
  for (const s of findSections(lines, mask)) {
    for (let i = s.start + 1; i < s.end; i++) {
      const n = mask[i] ? undefined : (bulletOf(lines[i]) ?? productName(lines[i]));
      if (n !== undefined) names.add(n);
    }
  }
  return [...names];
}

/** Names that have a bullet in the checkpoint section (or, in a file with two, in either), in order. */
export function indexedNames(text: string, known?: ReadonlySet<string>): string[] {
  return indexBullets(text, known).names;
}

/**
 * One reading of the checkpoint section(s), in order: `names` as {@link indexedNames} with `known`, and `product`,
 * the names of the bullets the product wrote (what {@link indexedNames} finds without `known`).
 */
export interface IndexBullets {
  names: string[];
  product: string[];
}

/** {@link IndexBullets} of a MEMORY.md text. */
export function indexBullets(text: string, known?: ReadonlySet<string>): IndexBullets {
  const lines = splitLines(text.startsWith(BOM) ? text.slice(1) : text);
  return bulletsIn(lines, literalMask(lines), namer(known));
}

/** What {@link indexBullets} finds, in lines already read. */
function bulletsIn(lines: Line[], mask: boolean[], bulletOf: Namer, sections = findSections(lines, mask)): IndexBullets {
  const names = new Set<string>();
  const product = new Set<string>();
  for (const s of sections) {
    for (let i = s.start + 1; i < s.end; i++) {
      if (mask[i]) continue;
      const n = bulletOf(lines[i]);
      if (n !== undefined) names.add(n);
      const p = lines[i].product ? productName(lines[i]) : undefined;
      if (p !== undefined) product.add(p);
    }
  }
  return { names: [...names], product: [...product] };
}

/**
 * Makes the checkpoint sections of a file one `## Active Checkpoints` section, as every index write leaves it:
 * a `## Checkpoints` heading (Checkpoint 0.1.0) is renamed; the bullets of a second section move to the end of
 * the first one's (a name already there is dropped) and its heading, resume line and blank lines go. The user's
 * own lines in a second section stay where they are.
 */
function normalizeSections(lines: Line[], eol: string, bulletOf: Namer): { mask: boolean[]; changed: boolean; section?: Section } {
  const mask = literalMask(lines);
  const sections = findSections(lines, mask);
  if (!sections.length) return { mask, changed: false };
  const first = sections[0];
  const rename = (): boolean => {
    // `## Checkpoints` (0.1.0) is renamed; the heading as an agent spelled it (`### Active checkpoints`) is kept.
    if (/active/i.test(lines[first.start].text)) return false;
    lines[first.start].text = SECTION_HEADING;
    return true;
  };
  // One section: its lines stay where they are (a renamed heading is still one line).
  if (sections.length === 1) return { mask, changed: rename(), section: first };
  const moved: string[] = [];
  for (let k = sections.length - 1; k >= 1; k--) {
    const s = sections[k];
    const bullets: string[] = [];
    let userText = false;
    for (let i = s.start + 1; i < s.end; i++) {
      if (!mask[i] && bulletOf(lines[i]) !== undefined) bullets.push(lines[i].text);
      else if (mask[i] || !(isBlank(lines[i]) || RESUME_RE.test(lines[i].text))) userText = true;
    }
    moved.unshift(...bullets);
    if (userText) {
      for (let i = s.end - 1; i >= s.start; i--) {
        if (i === s.start || (!mask[i] && (bulletOf(lines[i]) !== undefined || RESUME_RE.test(lines[i].text)))) removeRange(lines, i, i + 1);
      }
    } else {
      let from = s.start;
      let to = s.end;
      if (from > 0 && isBlank(lines[from - 1])) from--;
      else if (isBlank(lines[to])) to++;
      removeRange(lines, from, to);
      // The blank line taken before a section that starts where the first ends was the first one's last line.
      if (from < first.end) first.end = from;
    }
  }
  const have = new Set<string>();
  let last = first.start;
  for (let i = first.start + 1; i < first.end; i++) {
    const n = mask[i] ? undefined : bulletOf(lines[i]);
    if (n !== undefined) {
      have.add(n);
      last = i;
    }
  }
  const add = moved.filter((text) => {
    const n = bulletOf({ text, eol: '' })!;
    if (have.has(n)) return false;
    have.add(n);
    return true;
  });
  if (add.length) insertAfter(lines, last, add, eol);
  rename();
  return { mask: literalMask(lines), changed: true };
}

export interface IndexEdit {
  text: string;
  /**
   * The bullets of `of`, read with the same `known` from the lines already split: an index write checks them without
   * reading the text again when `of` is still its `text` (a caller that changes `text` leaves a stale `of`).
   */
  bullets?: { of: string; read: () => IndexBullets };
  /** Set when the bullet would lie beyond what Claude Code reads of MEMORY.md. */
  budgetWarning?: string;
}

/** Inserts `insert` after line `at`, keeping a missing final newline missing. */
function insertAfter(lines: Line[], at: number, insert: string[], eol: string): void {
  const newLines = insert.map((text) => ({ text, eol }));
  if (at >= 0 && lines[at].eol === '') {
    lines[at].eol = eol;
    newLines[newLines.length - 1].eol = '';
  }
  lines.splice(at + 1, 0, ...newLines);
}

/** Removes lines [from, to) and keeps the file's final-newline state. */
function removeRange(lines: Line[], from: number, to: number): void {
  const endsBare = to === lines.length && lines[to - 1].eol === '';
  lines.splice(from, to - from);
  if (endsBare && from > 0) lines[from - 1].eol = '';
}

/**
 * `25000` as `25,000`. Not `toLocaleString`: its first call loads ICU's number formatting, about 30 ms, at every
 * start of the CLI, the hook and the extension, for one constant.
 */
const thousands = (n: number): string => {
  const digits = String(n);
  const head = digits.length % 3 || 3;
  const groups = [digits.slice(0, head)];
  for (let i = head; i < digits.length; i += 3) groups.push(digits.slice(i, i + 3));
  return groups.join(',');
};

const BUDGET = `Claude Code loads only the first ${CLAUDE_INDEX_MAX_LINES} lines / ${thousands(CLAUDE_INDEX_MAX_CHARS)} characters of MEMORY.md`;
const quote = (text: string, max = 60): string => JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);

/** The text of each non-blank line Claude Code loads, with how often it occurs (what an edit must not push out). */
function loadedTexts(lines: Line[]): Map<string, number> {
  const texts = new Map<string, number>();
  const loaded = linesClaudeLoads(lines);
  for (let i = 0; i < lines.length && loaded[i]; i++) if (!isBlank(lines[i])) texts.set(lines[i].text, (texts.get(lines[i].text) ?? 0) + 1);
  return texts;
}

/** The lines from `from` on that are checkpoint bullets of `sections`. */
function bulletLinesFrom(lines: Line[], mask: boolean[], bulletOf: Namer, sections: readonly Section[], from: number): number[] {
  const found: number[] = [];
  for (const s of sections) for (let i = Math.max(s.start + 1, from); i < s.end; i++) if (!mask[i] && bulletOf(lines[i]) !== undefined) found.push(i);
  return found;
}

/**
 * What Claude Code leaves out of a MEMORY.md text: the first line it does not load (1-based; undefined when it loads
 * it all) and the names of the checkpoint bullets from there on.
 */
export function claudeLeavesOut(text: string, known?: ReadonlySet<string>): { line?: number; names: string[] } {
  const lines = splitLines(text.startsWith(BOM) ? text.slice(1) : text);
  const cut = linesClaudeLoads(lines).indexOf(false);
  if (cut < 0) return { names: [] };
  const mask = literalMask(lines);
  const bulletOf = namer(known);
  return { line: cut + 1, names: [...new Set(bulletLinesFrom(lines, mask, bulletOf, findSections(lines, mask), cut).map((i) => bulletOf(lines[i]) ?? ''))] };
}

/**
 * Warns when, after an index write, Claude Code would not load a checkpoint bullet, or would no longer load a line
 * of the file it loaded before the write (`wasLoaded`: what {@link loadedTexts} found before it).
 */
function budgetWarning(wasLoaded: Map<string, number>, lines: Line[], bulletOf: Namer, mask = literalMask(lines), section?: Section): string | undefined {
  // What Claude Code loads is the file's first lines: lines [0, cut).
  const cut = linesClaudeLoads(lines).indexOf(false);
  if (cut < 0) return undefined;
  const s = section ?? findSection(lines, mask);
  const hidden = s ? bulletLinesFrom(lines, mask, bulletOf, [s], cut) : [];
  if (hidden.length) {
    const names = hidden.slice(0, 3).map((i) => quote(oneLine(bulletOf(lines[i]) ?? ''))).join(', ');
    const more = hidden.length > 3 ? ` and ${hidden.length - 3} more` : '';
    return (
      `The index entry for ${names}${more} is at line ${hidden[0] + 1} of MEMORY.md, past what the agent sees: ${BUDGET}. ` +
      'Move the checkpoint section up, trim MEMORY.md, or delete old checkpoints.'
    );
  }
  // Lines the write pushed out: loaded before, not after (the text outside the section is the same, moved down).
  for (let i = 0; i < cut; i++) {
    const n = wasLoaded.get(lines[i].text);
    if (n) wasLoaded.set(lines[i].text, n - 1);
  }
  if (![...wasLoaded.values()].some((n) => n > 0)) return undefined;
  let pushed = cut;
  while (pushed < lines.length && !wasLoaded.get(lines[pushed].text)) pushed++;
  if (pushed === lines.length) return undefined;
  return (
    `Line ${pushed + 1} of MEMORY.md (${quote(oneLine(lines[pushed].text))}) is now past what the agent sees: ${BUDGET}. ` +
    'Trim MEMORY.md or delete old checkpoints.'
  );
}

/**
 * Adds or replaces the bullet for `name` in the `## Active Checkpoints` section of MEMORY.md text
 * (`undefined`: no file yet). Every byte outside the section is kept; afterwards the file has one section.
 */
export function upsertIndex(text: string | undefined, name: string, bullet: string, known?: ReadonlySet<string>): IndexEdit {
  if (text === undefined) {
    const out = [NEW_INDEX_HEADING, '', SECTION_HEADING, bullet, '', RESUME_LINE, ''].join('\n');
    return { text: out };
  }
  if (text.startsWith(BOM)) {
    // A byte-order mark stays the first thing in the file; the rules apply to the text after it.
    const edit = upsertIndex(text.slice(1), name, bullet, known);
    return { ...edit, text: BOM + edit.text };
  }
  const lines = splitLines(text);
  const before = loadedTexts(lines);
  const eol = detectEol(lines);
  const bulletOf = namer(known);
  const { mask, changed, section } = normalizeSections(lines, eol, bulletOf);
  const s = section ?? findSection(lines, mask);
  if (s) {
    const bullets: number[] = [];
    let resume = -1;
    for (let i = s.start + 1; i < s.end; i++) {
      if (mask[i]) continue;
      if (bulletOf(lines[i]) !== undefined) bullets.push(i);
      else if (resume < 0 && RESUME_RE.test(lines[i].text)) resume = i;
    }
    const existing = bullets.find((i) => bulletOf(lines[i]) === name);
    if (existing !== undefined) {
      const old = lines[existing];
      // One bullet for another: the lines are where they were, and so is what is code or comment. When nothing
      // else changed, the new text is the old one with that line replaced.
      const out = !changed && old.at !== undefined ? text.slice(0, old.at) + bullet + text.slice(old.at + old.text.length) : undefined;
      old.text = bullet;
      const result = out ?? joinLines(lines);
      return { text: result, budgetWarning: budgetWarning(before, lines, bulletOf, mask, s), bullets: { of: result, read: () => bulletsIn(lines, mask, bulletOf, [s]) } };
    } else if (bullets.length) {
      lines.splice(bullets[0], 0, { text: bullet, eol: lines[bullets[0]].eol || eol });
      if (resume < 0) insertAfter(lines, bullets[bullets.length - 1] + 1, ['', RESUME_LINE], eol);
    } else if (resume >= 0) {
      insertAfter(lines, s.start, [bullet], eol);
    } else {
      insertAfter(lines, s.start, [bullet, '', RESUME_LINE], eol);
    }
  } else {
    // After the first level-one heading, with a blank line before and after (the text that followed the heading
    // stays a paragraph of its own); without one, first, after YAML front matter (which must stay the first thing).
    const heading = firstHeadingEnd(lines, mask);
    const matter = frontMatterEnd(lines);
    const at = heading >= 0 ? heading : matter;
    if (at >= 0) {
      // Under a heading: a blank line before the section, and one after it when text follows directly (a blank line
      // already there is the one after). After front matter the section is first, followed by a blank line. Removing
      // the section takes the blank line before it; text that followed the heading directly keeps the blank line
      // above it that the section brought.
      const textFollows = at + 1 < lines.length && !isBlank(lines[at + 1]);
      const block = heading >= 0 ? ['', SECTION_HEADING, bullet, '', RESUME_LINE] : [SECTION_HEADING, bullet, '', RESUME_LINE];
      if (at + 1 < lines.length && (heading < 0 || textFollows)) block.push('');
      insertAfter(lines, at, block, eol);
    } else {
      const block = [SECTION_HEADING, bullet, '', RESUME_LINE].map((t) => ({ text: t, eol }));
      if (lines.length) block.push({ text: '', eol });
      lines.unshift(...block);
    }
  }
  const after = literalMask(lines);
  const result = joinLines(lines);
  return { text: result, budgetWarning: budgetWarning(before, lines, bulletOf, after), bullets: { of: result, read: () => bulletsIn(lines, after, bulletOf) } };
}

/**
 * Removes the bullets of `names` (all bullets when `names` is 'all'). When no bullet remains, the section
 * goes: its heading through its resume line, with the one blank line that separated it. Text of the
 * user's own after those lines stays; text between the heading and the resume line keeps the heading and
 * the resume line.
 */
export function removeFromIndex(text: string, names: string[] | 'all', known?: ReadonlySet<string>): string {
  if (text.startsWith(BOM)) return BOM + removeFromIndex(text.slice(1), names, known);
  const lines = splitLines(text);
  const doomed = (n: string | undefined): boolean => n !== undefined && (names === 'all' || names.includes(n));
  // A line goes only when it is a checkpoint's: it names one that exists or is in the trash (`known`), in any shape,
  // or, for a name the person gave, it has the product's full shape. With 'all', a line of the product's shape that
  // names no such checkpoint is the person's and stays.
  const bulletOf = namer(known);
  const nameOf = (line: Line): string | undefined => bulletOf(line) ?? (names === 'all' ? undefined : productName(line));
  if (!(names === 'all' ? indexedNames(text, known) : known ? removableNames(text, known) : indexedNames(text)).some(doomed)) return text;
  const { mask } = normalizeSections(lines, detectEol(lines), bulletOf);
  const s = findSection(lines, mask);
  if (!s) return text;
  let changed = false;
  for (let i = s.end - 1; i > s.start; i--) {
    if (!mask[i] && doomed(nameOf(lines[i]))) {
      removeRange(lines, i, i + 1);
      mask.splice(i, 1);
      s.end--;
      changed = true;
    }
  }
  if (!changed) return text;
  const managed = (i: number): boolean => !mask[i] && (bulletOf(lines[i]) !== undefined || RESUME_RE.test(lines[i].text));
  if (lines.slice(s.start + 1, s.end).some((l, k) => !mask[s.start + 1 + k] && bulletOf(l) !== undefined)) return joinLines(lines);
  let lastManaged = s.start;
  let firstUser = -1;
  for (let i = s.start + 1; i < s.end; i++) {
    if (managed(i)) lastManaged = i;
    else if (firstUser < 0 && (mask[i] || !isBlank(lines[i]))) firstUser = i;
  }
  if (firstUser >= 0 && firstUser < lastManaged) {
    // The user wrote their own text between the heading and our lines: keep the heading, and the resume line
    // that ends the section (without it, the user's lines after the section would be read as part of it).
    return joinLines(lines);
  }
  let from = s.start;
  let to = lastManaged + 1;
  if (from > 0 && isBlank(lines[from - 1])) from--;
  else if (isBlank(lines[to])) to++;
  removeRange(lines, from, to);
  return joinLines(lines);
}
