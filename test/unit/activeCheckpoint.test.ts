import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { pickActive, type ActiveCheckpoint } from '../../src/core/activeCheckpoint';
import type { CheckpointSummary } from '../../src/core/store';

const H = 3_600_000;
const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();

/** A checkpoint file saved `hoursAgo` hours before NOW. */
function file(name: string, hoursAgo: number, extra: Partial<CheckpointSummary> = {}): CheckpointSummary {
  return { name, path: `/mem/checkpoint-${name}.md`, branch: 'main', saved: iso(NOW - hoursAgo * H), description: name, source: 'markdown', ...extra };
}

/** The record of a checkpoint saved or resumed in this window `atHoursAgo` hours before NOW. */
function own(name: string, savedHoursAgo: number, atHoursAgo: number, path = `/mem/checkpoint-${name}.md`): ActiveCheckpoint {
  return { name, branch: 'main', saved: iso(NOW - savedHoursAgo * H), path, at: iso(NOW - atHoursAgo * H) };
}

const cases: {
  title: string;
  own?: ActiveCheckpoint;
  files?: CheckpointSummary[];
  dismissedUntil?: string;
  active: string | undefined;
  dismissed?: boolean;
  dismissalOver?: boolean;
}[] = [
  { title: 'nothing saved, nothing listed', active: undefined },
  { title: 'not listed yet: the one of this window', own: own('a', 5, 1), active: 'a' },
  { title: 'listed: the newest file', files: [file('old', 3), file('new', 1)], active: 'new' },
  { title: 'same saved time: by name', files: [file('b', 1), file('a', 1)], active: 'a' },
  { title: 'unreadable and JSON files never count', files: [file('x', 0, { unreadable: 'bad' }), file('j', 0, { source: 'json' }), file('ok', 2)], active: 'ok' },
  { title: 'the one resumed here wins over files saved before it became active', own: own('older', 5, 0.5), files: [file('older', 5), file('newer', 1)], active: 'older' },
  { title: 'a file saved after it became active wins', own: own('mine', 5, 2), files: [file('mine', 5), file('agent', 1)], active: 'agent' },
  { title: 'the one of this window, consumed (its file gone): the newest file', own: own('gone', 1, 0, '/mem/.trash/x.md'), files: [file('left', 3)], active: 'left' },
  { title: 'empty folder: none, even with a record', own: own('gone', 1, 0, '/mem/.trash/x.md'), files: [], active: undefined },
  { title: 'dismissed: hidden', files: [file('a', 2)], dismissedUntil: iso(NOW - H), active: 'a', dismissed: true },
  { title: 'saved after the Dismiss: the Dismiss is over', files: [file('a', 2), file('b', 0.5)], dismissedUntil: iso(NOW - H), active: 'b', dismissed: false, dismissalOver: true },
  { title: 'a record without `at`: its saved time counts', own: { name: 'r', branch: '', saved: iso(NOW - 4 * H), path: '/mem/checkpoint-r.md' }, files: [file('r', 4), file('s', 3)], active: 's' },
];

for (const c of cases) {
  test(`pickActive: ${c.title}`, () => {
    const pick = pickActive(c.own, c.files, c.dismissedUntil, NOW);
    assert.equal(pick.active?.name, c.active);
    assert.equal(pick.dismissed, c.dismissed ?? false);
    assert.equal(pick.dismissalOver, c.dismissalOver ?? false);
  });
}

test('pickActive: Dismiss records now, or a saved time ahead of the clock', () => {
  assert.equal(pickActive(undefined, [file('a', 1)], undefined, NOW).dismissUntil, iso(NOW));
  assert.equal(pickActive(undefined, [file('future', -2)], undefined, NOW).dismissUntil, iso(NOW + 2 * H));
});
