import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { CheckpointSummary } from '../../src/core/store';
import { newestFirst } from '../../src/core/order';
import { unreadableReason } from '../../src/core/wording';
import { tableTest } from '../support/tables';

tableTest('unreadableReason: a short reason for a list row, never a raw parser message with a trailing colon', unreadableReason, [
  ['invalid front matter: missed comma between flow collection entries at line 4, column 1:\n\n 3 | saved: [x\n', 'front matter is not valid YAML, line 4'],
  ['invalid front matter: ✖ Invalid input; → at saved', 'front matter: "saved" is not valid'],
  ['no checkpoint front matter or "# Checkpoint:" heading found', 'no front matter and no "# Checkpoint:" heading'],
  ['EACCES: permission denied, open /x/checkpoint-a.md', 'EACCES: permission denied, open /x/checkpoint-a.md'],
]);

test('unreadableReason: a long reason is cut to 60 characters', () => {
  assert.match(unreadableReason(`x${'y'.repeat(500)}`), /^xy{59}…$/, 'cut to 60 characters');
});

test('newestFirst: unreadable files come after every readable checkpoint, however new', () => {
  const entry = (name: string, saved: string, unreadable?: string): CheckpointSummary => ({ name, path: `/m/checkpoint-${name}.md`, branch: 'main', saved, description: '', source: 'markdown', ...(unreadable ? { unreadable } : {}) });
  const items = [
    entry('old', '2026-11-01T10:00:00.000Z'),
    entry('broken', '2026-11-25T10:00:00.000Z', 'invalid front matter: x'),
    entry('new', '2026-11-20T10:00:00.000Z'),
  ];
  assert.deepEqual([...items].sort(newestFirst(items)).map((i) => i.name), ['new', 'old', 'broken']);
});
