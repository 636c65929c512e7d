import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { firstToAnswer, markerName } from '../../src/core/sessionStartMarker';
import { removeDir, tempDir } from '../support/fixtures';

// A session start answered once when the plugin's hooks and Connect's both run (firstToAnswer), and the markers it
// leaves in the temp folder removed after a day, by the day's first start.

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
  assert.equal(firstToAnswer(start, '/mem', 'context', { tempDir: tmp, now }), true, 'the first hook answers');
  assert.equal(firstToAnswer(start, '/mem', 'context', { tempDir: tmp, now: now + 50 }), false, 'the second hook of the same start is quiet');
  assert.equal(firstToAnswer({ ...start, sessionId: 'c3d4' }, '/mem', 'context', { tempDir: tmp, now: now + 60 }), true, 'another session');
  assert.equal(firstToAnswer(start, '/mem', 'other context', { tempDir: tmp, now: now + 70 }), true, 'another checkpoint to tell');
  assert.equal(firstToAnswer(start, '/mem', 'context', { tempDir: tmp, now: now + 61_000 }), true, 'a compaction a minute on');
  assert.equal(firstToAnswer({ source: 'startup' }, '/mem', 'context', { tempDir: tmp, now }), true, 'no session id: always answered');
});

test('the first session start of a day removes the markers older than a day; the later ones leave the folder alone', async () => {
  const tmp = tempDir();
  temps.push(tmp);
  // Times are set on the files and the folder: whether a start is the day's first is read from the folder's time
  // before it writes, never from the clock.
  const yesterday = Date.UTC(2026, 10, 26, 12);
  const now = yesterday + DAY;
  const at = (file: string, ms: number): void => utimesSync(file, ms / 1000, ms / 1000);
  assert.equal(firstToAnswer({ sessionId: 's1' }, '/mem', 'context', { tempDir: tmp, now: yesterday }), true);
  const dir = path.join(tmp, readdirSync(tmp)[0]);
  const old: Record<string, number> = { [markerName('old')]: now - 2 * DAY, [markerName('older')]: now - 30 * DAY, '0123456789abcdef0123456789abcdef': now - 3 * DAY };
  for (let i = 0; i < 20; i++) old[markerName(`old ${i}`)] = now - (2 + i) * DAY;
  const kept = { [markerName('this morning')]: now - DAY / 2 };
  for (const [f, ms] of Object.entries({ ...old, ...kept })) {
    writeFileSync(path.join(dir, f), '');
    at(path.join(dir, f), ms);
  }
  // Folders left there, days old: not removed, and they stop the removal of no marker, wherever the listing puts them.
  const folders = Array.from({ length: 5 }, (_, i) => markerName(`folder ${i}`));
  for (const f of folders) {
    mkdirSync(path.join(dir, f));
    at(path.join(dir, f), now - 5 * DAY);
  }
  at(dir, yesterday);
  assert.equal(firstToAnswer({ sessionId: 's2' }, '/mem', 'context', { tempDir: tmp, now }), true);
  const left = markers(tmp);
  for (const f of Object.keys(old)) assert.ok(!left.includes(f), `${f} is removed`);
  for (const f of [...Object.keys(kept), ...folders]) assert.ok(left.includes(f), `${f} stays`);
  assert.equal(left.length, 3 + folders.length, "this morning's marker, the two starts' markers and the folders stay");
  // A later start that day (the folder changed today) does not look at the markers.
  const stale = markerName('stale');
  writeFileSync(path.join(dir, stale), '');
  at(path.join(dir, stale), now - 9 * DAY);
  at(dir, now);
  assert.equal(firstToAnswer({ sessionId: 's3' }, '/mem', 'context', { tempDir: tmp, now: now + 1000 }), true);
  assert.ok(markers(tmp).includes(stale), 'a later start that day leaves the folder as it is');
});

test('marker names: 16 hex digits, different for inputs that differ in one character', () => {
  const names = ['session\0startup\0/mem\0context', 'session\0startup\0/mem\0contexu', 'session\0resume\0/mem\0context', ''].map(markerName);
  for (const n of names) assert.match(n, /^[0-9a-f]{16}$/);
  assert.equal(new Set(names).size, names.length);
  assert.equal(markerName('same'), markerName('same'));
});
