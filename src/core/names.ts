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
