import { CheckpointError } from './errors';

export const MAX_NAME_LENGTH = 64;
export const CHECKPOINT_PREFIX = 'checkpoint-';
export const CHECKPOINT_SUFFIX = '.md';

/**
 * Turns free text into a checkpoint name: lowercase; spaces, `/` and `\` become `-`;
 * only `[a-z0-9._-]` kept; leading `.` and `-` stripped; at most 64 characters.
 * May return an empty string; {@link validateName} refuses that.
 */
export function sanitizeName(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[ /\\]/g, '-')
    .replace(/[^a-z0-9._-]/g, '')
    .replace(/^[.-]+/, '')
    .slice(0, MAX_NAME_LENGTH);
}

/** Sanitizes and refuses a name that is empty afterwards. */
export function validateName(raw: string): string {
  const name = sanitizeName(raw);
  if (!name) {
    throw new CheckpointError(
      `"${printable(raw)}" is not a usable checkpoint name: use letters, digits, ".", "_" or "-".`,
    );
  }
  return name;
}

/**
 * Refuses a name that must never be looked up: a path separator, `..`, NUL or another control character
 * (an agent may have written `checkpoint-fix:-login.md`, but never a name that leads out of the folder).
 */
export function assertLookupName(raw: string): void {
  if (!isLookupName(raw)) {
    throw new CheckpointError(`"${printable(raw)}" is not a checkpoint name: a name has no path separator, "..", or control character.`);
  }
}

/**
 * Whether a name may be looked up as it is: not blank or `.`, no path separator, no control character, and no `..`
 * unless the name is one the product writes itself (`a-..-b` is one file name of `[a-z0-9._-]`, never a way out).
 */
export function isLookupName(raw: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (raw.trim() === '' || raw === '.' || /[/\\\u0000-\u001f\u007f]/.test(raw)) return false;
  return !raw.includes('..') || sanitizeName(raw) === raw;
}

/**
 * The names a lookup tries, in order: the name as given (an agent following the seed may have written
 * `checkpoint-café-menu.md` or `checkpoint-My Feature.md`), its other Unicode normalization, then the sanitized
 * name the product writes. Call {@link assertLookupName} first.
 */
export function lookupNames(raw: string): string[] {
  const names = [raw, raw.normalize('NFC'), raw.normalize('NFD'), sanitizeName(raw)].filter((n) => n !== '');
  return [...new Set(names)];
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
