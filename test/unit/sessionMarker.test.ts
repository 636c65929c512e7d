import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { firstToAnswer, markerName } from '../../src/core/hooks';
import { removeDir, tempDir } from '../support/fixtures';

// A session start answered once when the plugin's hooks and Connect's both run (firstToAnswer), and the markers it
// leaves in the temp folder kept to two days.

const temps: string[] = [];
after(() => temps.forEach(removeDir));
const DAY = 24 * 3600_000;
const markers = (tmp: string): string[] => readdirSync(readdirSync(tmp).map((d) => path.join(tmp, d))[0]);

test('a session start is answered by the first hook only; another session, or the same one a minute on, is answered again', async () => {
  const tmp = tempDir();
  temps.push(tmp);
  // The marker's time is the file's: the clock now.
  const now = Date.now();
  const start = { sessionId: 'a1b2', source: 'startup' };
  assert.equal(await firstToAnswer(start, '/mem', 'context', { tempDir: tmp, now }), true, 'the first hook answers');
  assert.equal(await firstToAnswer(start, '/mem', 'context', { tempDir: tmp, now: now + 50 }), false, 'the second hook of the same start is quiet');
  assert.equal(await firstToAnswer({ ...start, sessionId: 'c3d4' }, '/mem', 'context', { tempDir: tmp, now: now + 60 }), true, 'another session');
  assert.equal(await firstToAnswer(start, '/mem', 'other context', { tempDir: tmp, now: now + 70 }), true, 'another checkpoint to tell');
  assert.equal(await firstToAnswer(start, '/mem', 'context', { tempDir: tmp, now: now + 61_000 }), true, 'a compaction a minute on');
  assert.equal(await firstToAnswer({ source: 'startup' }, '/mem', 'context', { tempDir: tmp, now }), true, 'no session id: always answered');
});

test("the first session start of a day removes the markers of the days before yesterday; yesterday's and today's stay", async () => {
  const tmp = tempDir();
  temps.push(tmp);
  // Whether a start is the day's first is read from the folder's time before it writes: set here, never the clock's.
  const yesterday = Date.UTC(2026, 10, 26, 12);
  const now = yesterday + DAY;
  const today = Math.floor(now / DAY);
  assert.equal(await firstToAnswer({ sessionId: 's1' }, '/mem', 'context', { tempDir: tmp, now: yesterday }), true);
  const dir = path.join(tmp, readdirSync(tmp)[0]);
  const old = [`${today - 2}-${markerName('old')}`, `${today - 30}-${markerName('older')}`, '0123456789abcdef0123456789abcdef'];
  const kept = [`${today - 1}-${markerName('yesterday')}`];
  for (const f of [...old, ...kept]) writeFileSync(path.join(dir, f), '');
  utimesSync(dir, yesterday / 1000, yesterday / 1000);
  assert.equal(await firstToAnswer({ sessionId: 's2' }, '/mem', 'context', { tempDir: tmp, now }), true);
  const left = markers(tmp);
  for (const f of old) assert.ok(!left.includes(f), `${f} is removed`);
  for (const f of kept) assert.ok(left.includes(f), `${f} stays`);
  assert.equal(left.filter((f) => f.startsWith(`${today - 1}-`)).length, 2, "yesterday's two markers stay");
  assert.equal(left.filter((f) => f.startsWith(`${today}-`)).length, 1, "today's marker is there");
  // A later start that day (the folder changed today) does not list the folder again.
  const stale = `${today - 9}-${markerName('stale')}`;
  writeFileSync(path.join(dir, stale), '');
  utimesSync(dir, now / 1000, now / 1000);
  assert.equal(await firstToAnswer({ sessionId: 's3' }, '/mem', 'context', { tempDir: tmp, now: now + 1000 }), true);
  assert.ok(markers(tmp).includes(stale), 'a later start that day leaves the folder as it is');
});

test('marker names: 16 hex digits, different for inputs that differ in one character', () => {
  const names = ['session\0startup\0/mem\0context', 'session\0startup\0/mem\0contexu', 'session\0resume\0/mem\0context', ''].map(markerName);
  for (const n of names) assert.match(n, /^[0-9a-f]{16}$/);
  assert.equal(new Set(names).size, names.length);
  assert.equal(markerName('same'), markerName('same'));
});
