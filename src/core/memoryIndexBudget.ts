/**
 * What Claude Code leaves out of a MEMORY.md, and the warning an index write gives when a checkpoint's bullet, or a
 * line Claude Code loaded before the write, falls past what it loads.
 */
import { oneLine } from './escaping';
import { CLAUDE_INDEX_MAX_CHARS, CLAUDE_INDEX_MAX_LINES, linesClaudeLoads } from './claudeBudget';
import { BOM, isBlank, splitLines, type Line } from './memoryIndexLines';
import { findSection, findSections, literalMask, namer, type Namer, type Section } from './memoryIndexSections';

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
export function loadedTexts(lines: Line[]): Map<string, number> {
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
export function budgetWarning(wasLoaded: Map<string, number>, lines: Line[], bulletOf: Namer, mask = literalMask(lines), section?: Section): string | undefined {
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
