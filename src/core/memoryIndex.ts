/**
 * MEMORY.md's checkpoint section read and edited: the bullet the product writes, the names the section holds, and
 * adding, replacing and removing bullets with every byte outside the section kept.
 */
import { formatMonthDay } from './dates';
import type { Checkpoint } from './checkpoint';
import { oneLine } from './escaping';
import { budgetWarning, loadedTexts } from './memoryIndexBudget';
import { BOM, detectEol, insertAfter, isBlank, joinLines, removeRange, splitLines, type Line } from './memoryIndexLines';
import { findSection, findSections, firstHeadingEnd, frontMatterEnd, literalMask, namer, productName, RESUME_RE, type Namer, type Section } from './memoryIndexSections';

/** The file name of the index in the memory directory. */
export const INDEX_FILE = 'MEMORY.md';
/** The heading of the checkpoint section (the one the session-checkpoint skill writes). */
export const SECTION_HEADING = '## Active Checkpoints';
/** What a new MEMORY.md starts with (the skill's heading). */
export const NEW_INDEX_HEADING = '# Project Memory';
export const RESUME_LINE = 'Resume any: `continue` or `continue {name}`';

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
 * a `## Checkpoints` heading (what earlier releases wrote) is renamed; the bullets of a second section move to the end of
 * the first one's (a name already there is dropped) and its heading, resume line and blank lines go. The user's
 * own lines in a second section stay where they are.
 */
function normalizeSections(lines: Line[], eol: string, bulletOf: Namer): { mask: boolean[]; changed: boolean; section?: Section } {
  const mask = literalMask(lines);
  const sections = findSections(lines, mask);
  if (!sections.length) return { mask, changed: false };
  const first = sections[0];
  const rename = (): boolean => {
    // `## Checkpoints` (earlier releases' heading) is renamed; the heading as an agent spelled it (`### Active checkpoints`) is kept.
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
