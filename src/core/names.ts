import { CheckpointError } from './errors';

export const MAX_NAME_LENGTH = 64;
export const CHECKPOINT_PREFIX = 'checkpoint-';
export const CHECKPOINT_SUFFIX = '.md';

/**
 * Turns free text into a checkpoint name: Unicode NFC, lowercase; spaces, `/` and `\` become `-`; letters,
 * marks and digits of every script kept with `.`, `_` and `-` (so no separator, control or format character, and none
 * of the characters a file name may not hold on Windows); a run of dots becomes one (never `..`); leading `.` and `-`
 * and trailing `.` stripped; at most 64 characters (never half a character). "Café Menu" → `café-menu`; "名前" → `名前`.
 * May return an empty string; {@link validateName} refuses that.
 */
export function sanitizeName(raw: string): string {
  const name = raw
    .toLowerCase()
    .normalize('NFC')
    .replace(/[ /\\]/g, '-')
    .replace(NOT_NAME, '')
    .replace(/\.{2,}/g, '.')
    .replace(/^[.-]+/, '');
  const cut = cutName(name);
  // One trailing dot at most is left after the runs were merged: Windows drops it from a file name.
  return cut.endsWith('.') ? cut.slice(0, -1) : cut;
}

/**
 * What a name never keeps: ASCII other than lowercase letters, digits, `.`, `_` and `-` (so no separator and none of
 * the characters a Windows file name may not hold); C1 controls; spaces, format characters (zero-width, bidi, soft
 * hyphen, BOM) and the punctuation and symbol blocks of the BMP (dashes, quotes, arrows, math, box drawing, dingbats,
 * CJK and fullwidth punctuation); private use; and every character outside the BMP (emoji, tag characters). Letters,
 * marks and digits of the scripts of the BMP stay. (Written without `\p{…}`: a Unicode-mode pattern falls outside
 * the linear-time engine every pattern here is held to.)
 */
const NOT_NAME =
  // eslint-disable-next-line no-control-regex, no-misleading-character-class -- it drops controls and U+034F, a lone joiner
  /[\u0000-\u002c/:-@[-^`{-\u00a9\u00ab-\u00b1\u00b4\u00b6-\u00b8\u00bb\u00bf\u00d7\u00f7\u034f\u061c\u1680\u180e\u2000-\u206f\u20a0-\u20cf\u2100-\u214f\u2190-\u2bff\u2e00-\u2e7f\u3000-\u3004\u3007-\u303f\ud800-\uf8ff\ufe10-\ufe1f\ufe30-\ufe6f\ufeff\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\uffe0-\uffff]/g;

/** The first {@link MAX_NAME_LENGTH} characters of a name, cut between characters, never inside one. */
function cutName(name: string): string {
  if (name.length <= MAX_NAME_LENGTH) return name;
  let out = '';
  for (const ch of name) {
    if (out.length + ch.length > MAX_NAME_LENGTH) break;
    out += ch;
  }
  return out;
}

/** Device names Windows reserves: no file may be called so, whatever its extension. */
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\.|$)/;

/** Sanitizes and refuses a name that is empty afterwards, or a device name Windows reserves. */
export function validateName(raw: string): string {
  const name = sanitizeName(raw);
  if (!name) {
    throw new CheckpointError(
      `"${printable(raw)}" is not a usable checkpoint name: use letters or digits (of any script), ".", "_" or "-".`,
    );
  }
  if (WINDOWS_RESERVED.test(name)) {
    throw new CheckpointError(`"${printable(raw)}" is not a usable checkpoint name: "${name}" is a device name Windows reserves for no file to use.`);
  }
  return name;
}

/**
 * Refuses a name that must never be looked up: blank, `..`, NUL or another control character. A `/` is no way out:
 * a typed name only ever maps to a file name through the rules of {@link resolveName}.
 */
export function assertLookupName(raw: string): void {
  if (!isLookupName(raw)) {
    throw new CheckpointError(`"${printable(raw)}" is not a checkpoint name: a name has no "..", NUL or control character.`);
  }
}

/**
 * Whether a name may be looked up: not blank or `.`, no control character, and no `..` unless the name is one
 * Checkpoint 0.2.0 could write (`v1..2`, of `[a-z0-9._-]` only: one file name, never a way out).
 */
export function isLookupName(raw: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (raw.trim() === '' || raw === '.' || /[\u0000-\u001f\u007f]/.test(raw)) return false;
  return !raw.includes('..') || (raw !== '..' && /^[a-z0-9._-]+$/.test(raw));
}

/**
 * The rule an agent following the skill by hand uses for a file name: lowercase; spaces and `/` become
 * `-`; leading `-` stripped. "fix: login" → `fix:-login`.
 */
export function seedName(raw: string): string {
  return raw.toLowerCase().replace(/[ /]/g, '-').replace(/^-+/, '');
}

/** A name compared loosely: Unicode form, case, spaces, dashes and underscores ignored ("my feature" ~ "My-Feature"). */
const looseKey = (name: string): string => name.normalize('NFC').toLowerCase().replace(/[\s_-]+/g, '');

/** Raised when a loosely typed name matches two or more checkpoints. */
export class AmbiguousNameError extends CheckpointError {
  constructor(
    raw: string,
    readonly matches: string[],
  ) {
    super(`"${printable(raw)}" matches ${matches.length} checkpoints: ${matches.map((m) => `"${printable(m, 64)}"`).join(', ')}. Use the exact name.`);
    this.name = 'AmbiguousNameError';
  }
}

/**
 * The one lookup every command uses: which of `names` (the names that exist, as their files spell them) a
 * typed name means. In order: the name as given (in either Unicode form), the agent's rule ({@link seedName}), the
 * product's rule ({@link sanitizeName}), then the one name that matches ignoring case, spaces, dashes, underscores and
 * Unicode form. Two or more such matches: {@link AmbiguousNameError}. Undefined when none. A name that is not a
 * lookup name is never looked up (see {@link assertLookupName}).
 */
export function resolveName(raw: string, names: Iterable<string>): string | undefined {
  assertLookupName(raw);
  const have = names instanceof Set ? (names as Set<string>) : new Set(names);
  const seed = seedName(raw);
  for (const n of [raw, raw.normalize('NFC'), raw.normalize('NFD'), seed, seed.normalize('NFC'), seed.normalize('NFD'), sanitizeName(raw)]) {
    if (n !== '' && !hasSeparator(n) && have.has(n)) return n;
  }
  const key = looseKey(raw);
  if (key === '') return undefined;
  const loose = [...have].filter((n) => looseKey(n) === key);
  if (loose.length > 1) throw new AmbiguousNameError(raw, loose.sort());
  return loose[0];
}

/**
 * Whether a name holds a path separator of this system: `/`, and on Windows `\`. Elsewhere `\` is a character a file
 * name may hold (an agent writing by hand writes `checkpoint-a\b.md` for "a\b"), found by its own name first.
 */
export function hasSeparator(name: string): boolean {
  return name.includes('/') || (process.platform === 'win32' && name.includes('\\'));
}

export function fileNameFor(name: string): string {
  return `${CHECKPOINT_PREFIX}${name}${CHECKPOINT_SUFFIX}`;
}

/** The checkpoint name of a file name like `checkpoint-foo.md`, or undefined. */
export function nameFromFileName(fileName: string): string | undefined {
  if (!fileName.startsWith(CHECKPOINT_PREFIX) || !fileName.endsWith(CHECKPOINT_SUFFIX)) return undefined;
  const name = fileName.slice(CHECKPOINT_PREFIX.length, -CHECKPOINT_SUFFIX.length);
  return name.length > 0 ? name : undefined;
}

/** Text safe to echo in a one-line message: control characters shown as `?`, long text cut. */
export function printable(text: string, max = 80): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
