import matter from 'gray-matter';
import { CheckpointError } from './errors';

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
} as unknown as Parameters<typeof matter>[1];

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
  let parsed: matter.GrayMatterFile<string>;
  try {
    parsed = matter(src, SAFE_OPTIONS);
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

const PLAIN_SCALAR = /^[A-Za-z0-9_~/][A-Za-z0-9 _.,/~@+()-]*$/;
const RESERVED = /^(true|false|yes|no|on|off|null|y|n|~|[-+]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+)$/i;

/** A YAML scalar for a string: plain when that reads back as the same string, else double-quoted. */
export function yamlString(value: string): string {
  if (PLAIN_SCALAR.test(value) && !RESERVED.test(value) && !value.endsWith(' ')) return value;
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
