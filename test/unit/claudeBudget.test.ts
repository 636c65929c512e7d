import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { linesClaudeLoads, linesLeftOut, type BudgetLine } from '../../src/core/claudeBudget';

const split = (text: string): BudgetLine[] =>
  [...text.matchAll(/([^\r\n]*)(\r\n|\n|\r|$)/g)].filter((m) => m[0] !== '').map((m) => ({ text: m[1], eol: m[2] }));

/** The 0-based indexes of the lines not loaded. */
const cut = (text: string): number[] => linesClaudeLoads(split(text)).flatMap((ok, i) => (ok ? [] : [i]));

test('the first 200 lines are loaded, the 201st is not', () => {
  const lines = Array.from({ length: 201 }, (_, i) => `line ${i + 1}`);
  assert.deepEqual(cut(lines.slice(0, 200).join('\n') + '\n'), []);
  assert.deepEqual(cut(lines.join('\n') + '\n'), [200]);
});

test('leading blank lines are trimmed away before lines are counted', () => {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`);
  assert.deepEqual(cut('\n \n' + lines.join('\n') + '\n'), []);
});

test('a line ending past 25,000 characters is not loaded; characters, not bytes', () => {
  assert.deepEqual(cut('a'.repeat(25_000) + '\nb\n'), [1]);
  assert.deepEqual(cut('a'.repeat(25_001) + '\nb\n'), [0, 1]);
  assert.deepEqual(cut('x'.repeat(24_998) + '\nz\nc\n'), [2]);
  // 24,000 three-byte characters are 72,000 bytes but 24,000 characters: all loaded.
  assert.deepEqual(cut('界'.repeat(24_000) + '\nend\n'), []);
});

test('a CR of a CRLF counts; a lone CR does not end a line', () => {
  assert.deepEqual(cut('a'.repeat(25_000) + '\r\nb\r\n'), [0, 1]);
  assert.deepEqual(cut('a'.repeat(24_999) + '\r\nb\r\n'), [1]);
  const crOnly = Array.from({ length: 300 }, (_, i) => `l${i}`).join('\r');
  assert.deepEqual(cut(crOnly), []);
});

// What Claude Code 2.1.328 loaded of such a file (test/claude/whereClientReads.test.ts runs the client on one).
test('front matter and HTML comment blocks are left out before lines are counted, as Claude Code leaves them out', () => {
  const notes = Array.from({ length: 199 }, (_, i) => `- note ${i + 1}`);
  const text = ['---', 'name: x', 'description: y', '---', '# Title', '<!-- a comment', 'spanning', 'three lines -->', '', 'text <!-- inline --> after', ...notes].join('\n') + '\n';
  // Counted: "# Title", "text …", notes 1-198 (200 lines); note 199 is the 201st.
  assert.deepEqual(cut(text), [text.split('\n').length - 2]);
  assert.deepEqual(linesLeftOut(split(text)).flatMap((o, i) => (o ? [i] : [])), [0, 1, 2, 3, 5, 6, 7, 8]);
});

test('what stays: a comment in a fenced code block, an unclosed one, one followed by text, one indented below a list item', () => {
  const kept = (text: string): number[] => linesLeftOut(split(text)).flatMap((o, i) => (o ? [i] : []));
  assert.deepEqual(kept('```\n<!-- in code -->\n```\n<!-- out -->\n'), [3]);
  assert.deepEqual(kept('a\n<!-- never closed\nb\n'), []);
  assert.deepEqual(kept('<!-- c --> text\n<!-- d --><!-- e -->\n'), [1]);
  assert.deepEqual(kept('- item\n  <!-- in the item -->\n'), []);
  assert.deepEqual(kept('---\nno end\n'), [], 'front matter without its closing ---');
  assert.deepEqual(kept('---\na: b---\nrest\n'), [0, 1], 'a --- inside a line closes it, as the client matches it');
  assert.deepEqual(kept('---\na: 1\n--- more\nrest\n'), [0, 1], 'text after the closing --- stays');
  assert.deepEqual(kept('---\na: 1\n---\n\nbody\n'), [0, 1, 2]);
});
