import type GrayMatter from 'gray-matter';
import { CheckpointError } from './errors';

// gray-matter (and js-yaml under it) is loaded on first use only: most front matter takes the fast path below,
// and commands that never parse a checkpoint (save) do not pay for loading them.
let grayMatter: typeof GrayMatter | undefined;
const matter = (): typeof GrayMatter => (grayMatter ??= require('gray-matter') as typeof GrayMatter);

function refuseCode(): never {
  throw new CheckpointError('front matter written in JavaScript is never executed; use YAML');
}

/**
 * gray-matter options that can never execute code: both names of its JavaScript engine are replaced by
 * engines that throw (`engines: { js: false }` would fall back to the default `eval` engine), and an
 * options object is always passed, which also disables gray-matter's shared-object cache.
 */
const SAFE_OPTIONS = {
  engines: {
    js: { parse: refuseCode, stringify: refuseCode },
    javascript: { parse: refuseCode, stringify: refuseCode },
    coffee: { parse: refuseCode, stringify: refuseCode },
  },
  excerpt: false,
} as unknown as Parameters<typeof GrayMatter>[1];

export interface FrontMatterResult {
  /** The parsed front matter, or undefined when the text has none. */
  data: Record<string, unknown> | undefined;
  /** The text after the front matter. */
  body: string;
}

/** Splits YAML front matter from a Markdown text. Throws CheckpointError when the front matter is invalid. */
export function parseFrontMatter(text: string): FrontMatterResult {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!/^---/.test(src)) return { data: undefined, body: src };
  const fast = simpleFrontMatter(src);
  if (fast) return fast;
  let parsed: GrayMatter.GrayMatterFile<string>;
  try {
    parsed = matter()(src, SAFE_OPTIONS);
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new CheckpointError(`invalid front matter: ${reason}`);
  }
  const data = parsed.data as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new CheckpointError('invalid front matter: expected key: value pairs');
  }
  // gray-matter returns an empty object both for "no front matter" and "empty front matter".
  const hasFrontMatter = parsed.matter !== undefined && src !== parsed.content;
  return { data: hasFrontMatter ? (data as Record<string, unknown>) : undefined, body: parsed.content };
}

// ---- fast path --------------------------------------------------------------------------------------------
// The front matter this extension writes (and most hand-written front matter) is a flat block of
// `key: value` lines whose values are plain words, double-quoted JSON-compatible strings, small integers or
// UTC timestamps. For exactly that shape, the result below is what gray-matter + js-yaml return (same data
// values and types, same body); anything else returns undefined and takes the gray-matter path.

/** The key of a `key: value` line (the line is cut at its first `: `, so the value may hold more). */
const FM_KEY = /^[A-Za-z][A-Za-z0-9_]*$/;
/** Plain scalars js-yaml reads as this very string: no indicator, digit, sign or dot first; no `#` or `:`. */
const FM_PLAIN = /^[A-Za-z_/][A-Za-z0-9 _.,/~@+()-]*$/;
/** Words js-yaml reads as booleans or null (and their case variants, to be safe). */
const FM_NOT_STRING = /^(?:true|false|null)$/i;
/** Double-quoted scalars whose escapes mean the same in YAML and JSON. */
const FM_QUOTED = /^"(?:[^"\\]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"$/;
const FM_INT = /^(?:0|[1-9][0-9]{0,14})$/;
const FM_TIMESTAMP = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z$/;
/**
 * Any character outside printable ASCII, newline and the printable BMP (so: tabs, CR, other controls, DEL and C1,
 * line/paragraph separators, surrogates, BOM, U+FFFE/F): a superset of what js-yaml refuses as non-printable or
 * treats specially. Such blocks are left to js-yaml.
 */
const FM_UNUSUAL = /[^\n\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFEFE\uFF00-\uFFFD]/;

/** Returned by {@link simpleValue} for a value it leaves to js-yaml. */
const UNSUPPORTED = Symbol('unsupported');

function simpleValue(raw: string): unknown {
  const c = raw.charCodeAt(0);
  if (c === 0x22 /* " */) return FM_QUOTED.test(raw) ? (JSON.parse(raw) as string) : UNSUPPORTED;
  if (c >= 0x30 && c <= 0x39 /* 0-9 */) {
    if (FM_INT.test(raw)) return Number(raw);
    const t = FM_TIMESTAMP.exec(raw);
    if (!t) return UNSUPPORTED;
    // As js-yaml constructs a timestamp: UTC fields, milliseconds from the first three fraction digits.
    const ms = t[7] ? Number(t[7].slice(0, 3).padEnd(3, '0')) : 0;
    return new Date(Date.UTC(+t[1], +t[2] - 1, +t[3], +t[4], +t[5], +t[6], ms));
  }
  if (FM_PLAIN.test(raw) && !raw.endsWith(' ') && !FM_NOT_STRING.test(raw)) return raw;
  // js-yaml reads these two lower-case words as booleans (`auto: true` of an automatic checkpoint).
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  return UNSUPPORTED;
}

/** gray-matter's result for simple front matter; undefined for anything else. `src` starts with `---`. */
function simpleFrontMatter(src: string): FrontMatterResult | undefined {
  // gray-matter: `---` then a newline (no `----`, no language name); the block ends at the first "\n---".
  if (src.charCodeAt(3) !== 0x0a) return undefined;
  const str = src.slice(3);
  const close = str.indexOf('\n---');
  if (close <= 0) return undefined;
  // A copy, not a slice: the values kept from it must not hold the whole file's text in memory (V8 slices share
  // their parent's), which across thousands of listed files adds measurably to garbage collection.
  const block = ` ${str.slice(1, close)}`.slice(1);
  // Not empty, nothing unusual, no blank last line; then every line must be a `key: value` line.
  if (block === '' || block.charCodeAt(block.length - 1) === 0x0a || FM_UNUSUAL.test(block)) return undefined;
  const data: Record<string, unknown> = {};
  // Line by line, without a match array per line (a listing parses thousands of these).
  for (let at = 0; at < block.length; ) {
    let end = block.indexOf('\n', at);
    if (end < 0) end = block.length;
    const colon = block.indexOf(': ', at);
    // A key, `: `, and a value of at least one character, all on this line.
    if (colon < 0 || colon + 2 >= end) return undefined;
    const key = block.slice(at, colon);
    if (!FM_KEY.test(key) || FM_NOT_STRING.test(key) || Object.prototype.hasOwnProperty.call(data, key)) return undefined;
    const v = simpleValue(block.slice(colon + 2, end));
    if (v === UNSUPPORTED) return undefined;
    data[key] = v;
    at = end + 1;
  }
  let body = str.slice(close + 4);
  if (body.charCodeAt(0) === 0x0d) body = body.slice(1);
  if (body.charCodeAt(0) === 0x0a) body = body.slice(1);
  return { data, body };
}

// Plain only when it starts with a letter, `_`, `/` or `~`: anything that starts with a digit may read back as a
// number, a date or a timestamp (`2025-01-01`), so it is quoted.
const PLAIN_SCALAR = /^[A-Za-z_~/][A-Za-z0-9 _.,/~@+()-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|null|y|n|~)$/i;
const YAML_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A YAML scalar for a string: plain when that reads back as the same string, else double-quoted. */
export function yamlString(value: string): string {
  if (PLAIN_SCALAR.test(value) && !RESERVED.test(value) && !value.endsWith(' ')) return value;
  // JSON escapes C0 controls; DEL, C1 (NEL is a line break to YAML), the line/paragraph separators and the bidi
  // controls are escaped too, so the file holds no control character (both YAML and JSON read `\uNNNN` back).
  return JSON.stringify(value).replace(YAML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
