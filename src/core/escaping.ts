/**
 * Escaping of everything the product writes or prints. Checkpoint files, MEMORY.md, resume prompts and hook output
 * are read by AI agents as instructions and by terminals as control sequences, so every value that goes into them
 * is one line with no control characters, and every shell word printed as a command is quoted. The CLI and the
 * extension use these helpers; none of them is written twice.
 *
 * Every pattern here is a single character class or a literal: linear time on any input.
 */

/**
 * Characters that end a line somewhere: LF, CR, VT, FF, NEL (U+0085), LINE SEPARATOR and PARAGRAPH SEPARATOR.
 * A value written as "one line" must contain none of them, or an agent (or a Markdown reader) sees a new line.
 */
// eslint-disable-next-line no-control-regex
const LINE_BREAKS = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/;

/**
 * Control characters a terminal or a reader may act on: C0 (except tab and LF, handled by the callers), DEL, C1
 * (which holds NEL and the 8-bit CSI/OSC), the line/paragraph separators, and the bidirectional overrides and
 * isolates that can make text read differently from what it is.
 */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `\uNNNN` for a control character: visible, inert in a terminal and in Markdown, and the same value inside a JSON
 * string (so one escaping serves text and JSON output alike).
 */
function visible(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Replaces every control character (see {@link CONTROLS}; LF included) by a visible escape such as `\u001b`. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, visible);
}

/** The lines of a text, split at every kind of line break (not only LF and CRLF). */
export function splitAnyLines(text: string): string[] {
  return text.split(LINE_BREAKS);
}

/**
 * One line of text: line breaks (of any kind) with the white space around them become one space; any other
 * control character is escaped visibly; the ends are trimmed. Linear time (no regex runs over white space runs).
 */
export function oneLine(text: string): string {
  const parts: string[] = [];
  for (const part of splitAnyLines(text)) {
    const t = part.trim();
    if (t !== '') parts.push(t);
  }
  return escapeControls(parts.join(' '));
}

/**
 * Text for a terminal, keeping its lines: CRLF becomes LF; every other control character (a lone CR, ESC, BEL,
 * VT, FF, C1, U+2028/2029, …) is escaped visibly as `\uNNNN`. Tabs stay. JSON text goes through unchanged in
 * meaning: JSON.stringify leaves only DEL, C1 and U+2028/2029 raw, and only inside strings, where `\uNNNN` is the
 * same character.
 */
export function terminalText(text: string): string {
  // Most output has nothing to replace: one scan (`search` ignores the pattern's `g`), and no copy of it (a listing
  // prints a megabyte).
  return text.search(TERMINAL_UNSAFE) < 0 ? text : text.replace(TERMINAL_UNSAFE, (c) => (c === '\r\n' ? '\n' : visible(c)));
}

/** CRLF, and the {@link CONTROLS} but LF: what {@link terminalText} replaces, in one pass over the text. */
// eslint-disable-next-line no-control-regex
const TERMINAL_UNSAFE = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Words a POSIX shell reads as themselves, unquoted. */
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * A word for a command line printed for a user or an agent to run: as is when the shell reads it literally,
 * else POSIX single-quoted (`'` inside becomes `'\''`), so `$(…)`, backticks, `;` and globs stay data. A word with
 * control characters cannot be printed safely and is escaped first.
 */
export function shellQuote(word: string): string {
  const clean = escapeControls(word);
  if (SHELL_SAFE.test(clean)) return clean;
  return `'${clean.replaceAll("'", `'\\''`)}'`;
}

/**
 * Control characters (C0, DEL, C1), the Unicode line and paragraph separators, and the bidirectional overrides and
 * isolates (text that reads differently from what it is), for {@link agentLine}.
 */
// eslint-disable-next-line no-control-regex
const BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g;
/**
 * Format characters an agent reads but a person never sees: zero-width space, the left-to-right and right-to-left
 * marks, word joiner and invisible operators, the byte-order mark, the Arabic letter mark, the Mongolian vowel
 * separator, and the tag characters (U+E0000–U+E007F, which spell hidden ASCII). The zero-width joiner and non-joiner
 * stay: emoji sequences and several scripts need them.
 */
const INVISIBLE = /[\u200b\u200e\u200f\u2060-\u2064\ufeff\u061c\u180e]|\udb40[\udc00-\udc7f]/g;
const SPACES = / {2,}/g;

/** `text` without the invisible format characters (see {@link INVISIBLE}): what a model reads is what a person sees. */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE, '');
}

/**
 * One line of plain text: invisible format characters (see {@link INVISIBLE}) are dropped; line breaks, tabs and
 * other control characters become one space, runs of spaces one space, the ends are trimmed, and text longer than `max` characters is cut with "…" (never inside a surrogate pair).
 */
export function agentLine(text: string, max = Infinity): string {
  const line = withoutInvisible(text).replace(BREAKING, ' ').replace(SPACES, ' ').trim();
  if (line.length <= max) return line;
  let cut = Math.max(0, max - 1);
  const code = line.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${line.slice(0, cut).trimEnd()}…`;
}
