import type * as JsoncParser from 'jsonc-parser';

// Edits of JSON files that people also edit (Claude Code's settings, state-index.json) go through jsonc-parser's
// edit API: only the edited property changes, comments and every other byte are kept. Loaded on first use.
let jsoncModule: typeof JsoncParser | undefined;
const jsonc = (): typeof JsoncParser => (jsoncModule ??= require('jsonc-parser') as typeof JsoncParser);

export type JsonPath = (string | number)[];

export type ParsedObject = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

function position(text: string, offset: number): string {
  let line = 1;
  let col = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      col = 1;
    } else col++;
  }
  return `line ${line}, column ${col}`;
}

/**
 * Parses a JSON object (comments and trailing commas allowed, as JSONC). Text that is empty or only whitespace is
 * an empty object when `emptyIsObject`. Anything else that does not parse cleanly is an error with its position.
 */
export function parseJsonObject(text: string, opts: { emptyIsObject?: boolean } = {}): ParsedObject {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (src.trim() === '') return opts.emptyIsObject ? { ok: true, value: {} } : { ok: false, error: 'the file is empty' };
  const errors: JsoncParser.ParseError[] = [];
  const value = jsonc().parse(src, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false }) as unknown;
  if (errors.length) {
    const e = errors[0];
    return { ok: false, error: `${jsonc().printParseErrorCode(e.error)} at ${position(src, e.offset)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, error: 'the top level is not a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * The first key that appears twice in the object at `jsonPath` of a text checked with {@link parseJsonObject}
 * (JSON.parse and Claude Code keep the last; an edit would change the first), or undefined.
 */
export function duplicateKey(text: string, jsonPath: JsonPath): string | undefined {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (src.trim() === '') return undefined;
  const { parseTree, findNodeAtLocation } = jsonc();
  const root = parseTree(src, [], { allowTrailingComma: true, disallowComments: false });
  const node = root && findNodeAtLocation(root, jsonPath);
  if (node?.type !== 'object') return undefined;
  const seen = new Set<string>();
  for (const prop of node.children ?? []) {
    const key = prop.children?.[0]?.value as string;
    if (seen.has(key)) return key;
    seen.add(key);
  }
  return undefined;
}

/** The comments of a text between JSON values, with the white space around them; '' when it has none (commas go). */
function commentsAround(text: string): string {
  const { createScanner } = jsonc();
  const scanner = createScanner(text, false);
  let out = '';
  let comments = false;
  for (let kind = scanner.scan(); kind !== 17 /* EOF */; kind = scanner.scan()) {
    if (kind === 12 /* LineCommentTrivia */ || kind === 13 /* BlockCommentTrivia */) comments = true;
    if (kind === 12 || kind === 13 || kind === 14 /* LineBreakTrivia */ || kind === 15 /* Trivia */) out += scanner.getTokenValue();
  }
  return comments ? out : '';
}

/** Whether the value at `jsonPath` of a text checked with {@link parseJsonObject} holds a comment. */
export function hasComments(text: string, jsonPath: JsonPath): boolean {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const { parseTree, findNodeAtLocation } = jsonc();
  const root = parseTree(src, [], { allowTrailingComma: true, disallowComments: false });
  const node = root && findNodeAtLocation(root, jsonPath);
  return node !== undefined && commentsAround(src.slice(node.offset, node.offset + node.length)) !== '';
}

/** The indentation unit of a JSON text (a tab, or the first indentation's spaces) and its line ending. */
function styleOf(text: string): { unit: string; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indented = /\n([ \t]+)\S/.exec(text);
  if (!indented) return { unit: '  ', eol };
  return { unit: indented[1].startsWith('\t') ? '\t' : indented[1], eol };
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  let end = start;
  while (end < text.length && (text[end] === ' ' || text[end] === '\t')) end++;
  return text.slice(start, end);
}

/** True when only whitespace stands between the start of its line and `offset`. */
function startsLine(text: string, offset: number): boolean {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return text.slice(start, offset).trim() === '';
}

/** A value as pretty JSON whose lines after the first start with `indent`. */
function pretty(value: unknown, unit: string, indent: string, eol: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(eol + indent);
}

const splice = (text: string, offset: number, length: number, content: string): string => text.slice(0, offset) + content + text.slice(offset + length);

/**
 * Sets (or, with `undefined`, removes) the value at `jsonPath`, changing nothing else: an existing value is
 * replaced where it stands; a new property or array element goes after the last one, on its own line, indented
 * like its siblings; a removal takes out exactly what such an insertion added (so adding then removing gives the
 * original bytes). Array elements are addressed by index; the array's length appends. `text` must have been
 * checked with {@link parseJsonObject}; an empty text becomes a new object.
 */
export function editJson(text: string, jsonPath: JsonPath, value: unknown): string {
  const bom = text.charCodeAt(0) === 0xfeff ? '\uFEFF' : '';
  let src = bom ? text.slice(1) : text;
  if (src.trim() === '') src = `{}${styleOf(src).eol}`;
  const { parseTree, findNodeAtLocation } = jsonc();
  const root = parseTree(src, [], { allowTrailingComma: true, disallowComments: false });
  if (!root) throw new Error('not JSON');
  const node = findNodeAtLocation(root, jsonPath);
  const parent = jsonPath.length ? findNodeAtLocation(root, jsonPath.slice(0, -1)) : undefined;
  if (!parent || (parent.type !== 'object' && parent.type !== 'array')) throw new Error(`no object or array at ${jsonPath.slice(0, -1).join('.')}`);
  const children = parent.children ?? [];
  // The node that stands for the entry in its parent: the property (key and value) in an object, the element in an array.
  const entry = node && parent.type === 'object' ? node.parent : node;
  if (value === undefined) {
    if (!entry) return bom + src;
    const i = children.indexOf(entry);
    const end = entry.offset + entry.length;
    let from: number;
    let to: number;
    if (i > 0) [from, to] = [children[i - 1].offset + children[i - 1].length, end];
    else if (children.length > 1) [from, to] = [entry.offset, children[1].offset];
    else {
      // The only entry: what an insertion into the empty container added — the line break and indent before it, and
      // the line break and the container's indent after it — so `{ }` or `{\n}` comes back as it was.
      [from, to] = [parent.offset + 1, end];
      const close = styleOf(src).eol + lineIndent(src, parent.offset);
      if (src.startsWith(close, end)) to = end + close.length;
    }
    // Comments beside the entry (not inside it) are a person's: they stay, with the white space around them.
    const kept = commentsAround(src.slice(from, entry.offset)) + commentsAround(src.slice(end, to));
    return bom + splice(src, from, to - from, kept);
  }
  if (node) return bom + splice(src, node.offset, node.length, JSON.stringify(value));
  const { unit, eol } = styleOf(src);
  const key = jsonPath[jsonPath.length - 1];
  if (parent.type === 'array' && key !== children.length) throw new Error('only appending to an array is supported');
  const parentIndent = lineIndent(src, parent.offset);
  const last = children[children.length - 1];
  const indent = last && startsLine(src, last.offset) ? lineIndent(src, last.offset) : parentIndent + unit;
  const item = (parent.type === 'object' ? `${JSON.stringify(String(key))}: ` : '') + pretty(value, unit, indent, eol);
  if (!last) return bom + splice(src, parent.offset + 1, 0, `${eol}${indent}${item}${eol}${parentIndent}`);
  return bom + splice(src, last.offset + last.length, 0, `,${eol}${indent}${item}`);
}
