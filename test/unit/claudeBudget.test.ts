import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { linesClaudeLoads, type BudgetLine } from '../../src/core/claudeBudget';

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
