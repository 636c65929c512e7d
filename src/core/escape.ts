// Text that goes out to an agent (a hook's output, a printed command, a one-line value in a checkpoint) is read as
// instructions: every value is one line without control characters, and every shell word is quoted.

/** Control characters (C0, DEL, C1) and the Unicode line and paragraph separators. */
// eslint-disable-next-line no-control-regex
const BREAKING = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
const SPACES = / {2,}/g;

/**
 * One line of plain text: line breaks, tabs and other control characters become one space, runs of spaces one
 * space, the ends are trimmed, and text longer than `max` characters is cut with "…" (never inside a surrogate pair).
 */
export function agentLine(text: string, max = Infinity): string {
  const line = text.replace(BREAKING, ' ').replace(SPACES, ' ').trim();
  if (line.length <= max) return line;
  let cut = Math.max(0, max - 1);
  const code = line.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return `${line.slice(0, cut).trimEnd()}…`;
}

/** A word that a POSIX shell reads back as exactly `word`: bare when it is plainly safe, else single-quoted. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
