import { agentLine } from './escaping';
import { readTail } from './files';

/** At most this much of the end of a transcript is read. */
export const TRANSCRIPT_TAIL_BYTES = 256 * 1024;
/** The last user intent is one line of at most this many characters. */
export const INTENT_MAX_CHARS = 300;

/** The last `maxBytes` of a regular file, from the first whole line on (a cut first line is dropped). */
async function readLastLines(file: string, maxBytes: number): Promise<string> {
  // One byte more than wanted tells whether the file was cut.
  const tail = await readTail(file, maxBytes + 1);
  if (tail.length <= maxBytes) return tail.toString('utf8');
  const text = tail.toString('utf8', 1);
  return text.slice(text.indexOf('\n') + 1);
}

/** Text that Claude Code itself puts in a user turn (slash commands, their output, reminders): not the user's intent. */
const GENERATED_PREFIXES = ['<command-name>', '<command-message>', '<command-args>', '<local-command-', '<bash-input>', '<bash-stdout>', '<bash-stderr>', '<system-reminder>', '<user-prompt-submit-hook>', 'Caveat: The messages below were generated', '[Request interrupted'];
const CONTINUED = 'This session is being continued from a previous conversation';

/** The user's own text in one transcript entry, or undefined when the entry is not a message the user typed. */
function userText(entry: unknown): string | undefined {
  if (entry === null || typeof entry !== 'object') return undefined;
  const e = entry as { type?: unknown; isMeta?: unknown; isCompactSummary?: unknown; message?: { role?: unknown; content?: unknown } };
  if (e.type !== 'user' || e.isMeta === true || e.isCompactSummary === true) return undefined;
  if (!e.message || typeof e.message !== 'object' || (e.message.role !== undefined && e.message.role !== 'user')) return undefined;
  const content = e.message.content;
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    // An entry with a tool result is the tool's answer, not the user's words.
    if (content.some((b) => (b as { type?: unknown } | null)?.type === 'tool_result')) return undefined;
    text = content
      .filter((b): b is { type: 'text'; text: string } => (b as { type?: unknown } | null)?.type === 'text' && typeof (b as { text?: unknown }).text === 'string')
      .map((b) => b.text)
      .join(' ');
  } else return undefined;
  const trimmed = text.trim();
  if (!trimmed || trimmed.startsWith(CONTINUED) || GENERATED_PREFIXES.some((p) => trimmed.startsWith(p))) return undefined;
  return trimmed;
}

/**
 * The last message the user typed in a Claude Code transcript (JSONL), as one line of at most
 * {@link INTENT_MAX_CHARS} characters; reads only the last {@link TRANSCRIPT_TAIL_BYTES}. Undefined when there is
 * none (or the file cannot be read); torn or foreign lines are skipped.
 */
export async function lastUserIntent(file: string, opts: { maxBytes?: number; maxChars?: number } = {}): Promise<string | undefined> {
  let text: string;
  try {
    text = await readLastLines(file, opts.maxBytes ?? TRANSCRIPT_TAIL_BYTES);
  } catch {
    return undefined;
  }
  let end = text.length;
  while (end > 0) {
    const start = text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end).trim();
    end = start - 1;
    if (!line.startsWith('{') || !line.includes('"user"')) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const found = userText(entry);
    if (found !== undefined) {
      const one = agentLine(found, opts.maxChars ?? INTENT_MAX_CHARS);
      if (one) return one;
    }
  }
  return undefined;
}
