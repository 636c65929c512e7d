/**
 * What Claude Code loads of a MEMORY.md into a session (seen in Claude Code 2.1.328, checked by test/claude): the
 * text with surrounding white space trimmed, its first 200 lines (split at `\n`), then, when that is longer than
 * 25,000 characters (UTF-16 code units, not bytes), cut at the last `\n` within the first 25,000. A notice of what
 * was cut follows; the rest of the file never reaches the agent.
 */
export const CLAUDE_INDEX_MAX_LINES = 200;
export const CLAUDE_INDEX_MAX_CHARS = 25_000;

/** A line of the file: its text and the line end that follows it (`''` for a last line without one). */
export interface BudgetLine {
  text: string;
  eol: string;
}

const isSpace = (c: string): boolean => c.trim() === '';

/**
 * For each line of the file, whether Claude Code loads it whole: true for the first lines, false from the first line it
 * does not load on. White space before the first non-blank character is trimmed away (so leading blank lines do not
 * count); a line's `\r` of a CRLF counts as a character.
 */
export function linesClaudeLoads(lines: readonly BudgetLine[]): boolean[] {
  const loaded = new Array<boolean>(lines.length).fill(false);
  let offset = 0; // of the current line in the whole file
  let lead = -1; // offset of the first non-blank character
  let lineNo = 0; // 0-based line number in the trimmed text Claude Code splits
  for (let i = 0; i < lines.length; i++) {
    const { text, eol } = lines[i];
    if (lead < 0) {
      let c = 0;
      while (c < text.length && isSpace(text[c])) c++;
      if (c < text.length) lead = offset + c;
    }
    if (lead >= 0) {
      // Claude Code's line ends at its `\n`: a CR of a CRLF is part of the line; a lone CR does not end one.
      const end = offset + text.length + (eol === '\r\n' ? 1 : 0) - lead;
      // Past either limit, every later line is too (both only grow).
      if (lineNo >= CLAUDE_INDEX_MAX_LINES || end > CLAUDE_INDEX_MAX_CHARS) break;
      loaded[i] = true;
      if (eol.endsWith('\n')) lineNo++;
    } else {
      loaded[i] = true;
    }
    offset += text.length + eol.length;
  }
  return loaded;
}
