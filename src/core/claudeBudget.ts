/**
 * What Claude Code loads of a MEMORY.md into a session (seen in Claude Code 2.1.328, checked by test/claude): the
 * text without its front matter and its HTML comment blocks (see {@link linesLeftOut}), with surrounding white space
 * trimmed, its first 200 lines (split at `\n`), then, when that is longer than 25,000 characters (UTF-16 code units,
 * not bytes), cut at the last `\n` within the first 25,000. A notice of what was cut follows; the rest of the file
 * never reaches the agent.
 */
export const CLAUDE_INDEX_MAX_LINES = 200;
export const CLAUDE_INDEX_MAX_CHARS = 25_000;

/** A line of the file: its text and the line end that follows it (`''` for a last line without one). */
export interface BudgetLine {
  text: string;
  eol: string;
}

const isSpace = (c: string): boolean => c.trim() === '';

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const COMMENT_START = /^( {0,3})<!--/;

/** The text without its closed `<!-- … -->` comments. */
function withoutComments(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf('<!--', at);
    const close = open < 0 ? -1 : text.indexOf('-->', open + 4);
    if (close < 0) return out + text.slice(at);
    out += text.slice(at, open);
    at = close + 3;
  }
}

/**
 * The index of the first line after the front matter Claude Code strips, or 0 when there is none: the file starts
 * with `---` and white space up to a line end, and the front matter ends at the next `---` (anywhere in a line, as the
 * client matches it). The closing line is left out too when nothing but white space follows its `---`.
 */
function frontMatterEnd(lines: readonly BudgetLine[]): number {
  if (!lines.length || !lines[0].text.startsWith('---') || lines[0].text.slice(3).trim() !== '' || !lines[0].eol.endsWith('\n')) return 0;
  for (let i = 1; i < lines.length; i++) {
    const at = lines[i].text.indexOf('---');
    if (at < 0) continue;
    return lines[i].text.slice(at + 3).trim() === '' ? i + 1 : i;
  }
  return 0;
}

/**
 * For each line, whether Claude Code leaves it out before it counts lines and characters (seen in 2.1.328): the front
 * matter, and each HTML comment that is a block of its own (a line starting with `<!--`, outside fenced code,
 * through the line of its `-->`, with the empty lines after it) when nothing but white space is left of the block
 * once its comments are removed. A comment inside a paragraph or a list item stays.
 */
export function linesLeftOut(lines: readonly BudgetLine[]): boolean[] {
  const out = new Array<boolean>(lines.length).fill(false);
  const start = frontMatterEnd(lines);
  for (let i = 0; i < start; i++) out[i] = true;
  let fence: string | undefined;
  for (let i = start; i < lines.length; i++) {
    const { text } = lines[i];
    const f = FENCE.exec(text)?.[1];
    if (fence !== undefined) {
      if (f && f[0] === fence[0] && f.length >= fence.length && text.trim() === f) fence = undefined;
      continue;
    }
    if (f) {
      fence = f;
      continue;
    }
    const m = COMMENT_START.exec(text);
    // An indented comment right below a line of text continues a paragraph or a list item.
    if (!m || (m[1] && i > start && lines[i - 1].text.trim() !== '')) continue;
    // The comment's end: `<!-->` and `<!--->` close at once, else the first `-->` after the `<!--`.
    let end = -1;
    let rest = '';
    const from = m[0].length;
    if (text.startsWith('>', from) || text.startsWith('->', from)) {
      end = i;
      rest = text.slice(from + (text[from] === '>' ? 1 : 2));
    } else {
      for (let j = i; j < lines.length; j++) {
        const at = lines[j].text.indexOf('-->', j === i ? from : 0);
        if (at >= 0) {
          end = j;
          rest = lines[j].text.slice(at + 3);
          break;
        }
      }
    }
    if (end < 0) break; // never closed: the client keeps the rest as it is
    // More comments on the closing line go too; any other text keeps the block (approximately: the whole line counts).
    if (withoutComments(rest).trim() !== '') {
      i = end;
      continue;
    }
    let last = end;
    while (last + 1 < lines.length && lines[last].eol === '\n' && lines[last + 1].text === '' && lines[last + 1].eol === '\n') last++;
    for (let j = i; j <= last; j++) out[j] = true;
    i = last;
  }
  return out;
}

/**
 * For each line of the file, whether Claude Code loads it whole: true for the first lines, false from the first line it
 * does not load on. The lines it leaves out first ({@link linesLeftOut}) count as loaded and take no room. White space
 * before the first non-blank character is trimmed away (so leading blank lines do not count); a line's `\r` of a
 * CRLF counts as a character, unless the text holds an HTML comment (the client then reads it through a Markdown
 * lexer, which makes every line end a `\n`).
 */
export function linesClaudeLoads(lines: readonly BudgetLine[]): boolean[] {
  const loaded = new Array<boolean>(lines.length).fill(false);
  const leftOut = linesLeftOut(lines);
  const lexed = lines.some((l) => l.text.includes('<!--'));
  let offset = 0; // of the current line in the text Claude Code counts
  let lead = -1; // offset of the first non-blank character
  let lineNo = 0; // 0-based line number in the trimmed text Claude Code splits
  for (let i = 0; i < lines.length; i++) {
    const { text } = lines[i];
    if (leftOut[i]) {
      loaded[i] = true;
      continue;
    }
    const eol = lexed && lines[i].eol ? '\n' : lines[i].eol;
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
