/**
 * MEMORY.md as lines: each line's text with the line end it had; splitting, joining, and inserting or removing lines
 * with a missing final newline kept missing.
 */

export interface Line {
  text: string;
  eol: string;
  /** Where the line starts in the text it was split from (unset for a line an edit added). */
  at?: number;
  /** The text {@link Line.bullet} was read from (the line's text may be replaced since). */
  read?: string;
  /** The checkpoint name of the bullet this line is, or null (see `namer` in memoryIndexSections.ts). */
  bullet?: string | null;
  /** Whether that bullet has the product's shape. */
  product?: boolean;
}

export function splitLines(text: string): Line[] {
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

export function joinLines(lines: Line[]): string {
  let out = '';
  for (const l of lines) out += l.text + l.eol;
  return out;
}

export function detectEol(lines: Line[]): string {
  return lines.find((l) => l.eol !== '')?.eol ?? '\n';
}

export const BOM = '\uFEFF';
export const isBlank = (l: Line | undefined): boolean => l !== undefined && l.text.trim() === '';

/** Inserts `insert` after line `at`, keeping a missing final newline missing. */
export function insertAfter(lines: Line[], at: number, insert: string[], eol: string): void {
  const newLines = insert.map((text) => ({ text, eol }));
  if (at >= 0 && lines[at].eol === '') {
    lines[at].eol = eol;
    newLines[newLines.length - 1].eol = '';
  }
  lines.splice(at + 1, 0, ...newLines);
}

/** Removes lines [from, to) and keeps the file's final-newline state. */
export function removeRange(lines: Line[], from: number, to: number): void {
  const endsBare = to === lines.length && lines[to - 1].eol === '';
  lines.splice(from, to - from);
  if (endsBare && from > 0) lines[from - 1].eol = '';
}
