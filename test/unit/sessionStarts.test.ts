import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { lastSessionStart, recordSessionStart, SESSION_START_FILE } from '../../src/core/sessionStarts';
import { tempDirs } from '../support/fixtures';

const temp = tempDirs();

test('a session start is recorded in an existing memory folder, the last one read back; none is made for it', async () => {
  const root = temp();
  const mem = path.join(root, 'memory');
  await recordSessionStart(mem, { source: 'startup', told: true });
  assert.equal(existsSync(mem), false, 'a memory folder that does not exist is not made');
  assert.equal(await lastSessionStart(mem), undefined);
  mkdirSync(mem);
  await recordSessionStart(mem, { source: 'startup', told: true, at: new Date('2026-11-20T10:00:00Z') });
  await recordSessionStart(mem, { source: 'fork', told: false, at: new Date('2026-11-20T11:00:00Z') });
  assert.deepEqual(await lastSessionStart(mem), { at: '2026-11-20T11:00:00.000Z', source: 'fork', told: false });
  assert.deepEqual(readdirSync(mem), [SESSION_START_FILE], 'no temp file left');
  // A source that is not a word Claude Code sends, or none, is "unknown".
  await recordSessionStart(mem, { source: 'x\n{"evil":1}', told: false });
  assert.equal((await lastSessionStart(mem))?.source, 'unknown');
  for (const text of ['not json', '{"at":"yesterday"}', 'null']) {
    writeFileSync(path.join(mem, SESSION_START_FILE), text);
    assert.equal(await lastSessionStart(mem), undefined, text);
  }
});
