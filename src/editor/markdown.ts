/**
 * Markdown text helpers for tooltips (MarkdownString). No `vscode` import: plain strings.
 */

/** An inline code span for any text: the fence is longer than any backtick run inside it; line breaks become spaces. */
export function inlineCode(text: string): string {
  const clean = text.replace(/[\r\n]+/g, ' ');
  const longest = Math.max(0, ...(clean.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = clean.startsWith('`') || clean.endsWith('`') || clean === '' ? ' ' : '';
  return `${fence}${pad}${clean}${pad}${fence}`;
}

/** Escapes Markdown punctuation so user text reads literally. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~$]/g, '\\$&').replace(/[\r\n]+/g, ' ');
}

export { tildify } from '../core/paths';
