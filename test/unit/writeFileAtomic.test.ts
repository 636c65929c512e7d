import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { TEMP_PREFIX, writeFileAtomic } from '../../src/core/files';
import { tempDirs } from '../support/fixtures';

const temp = tempDirs();
const temps = (dir: string): string[] => readdirSync(dir).filter((f) => f.startsWith(TEMP_PREFIX));

test('an atomic write replaces the file, keeps its mode and leaves no temp file', { skip: process.platform === 'win32' && 'POSIX modes' }, async () => {
  const dir = temp();
  const file = path.join(dir, 'MEMORY.md');
  writeFileSync(file, 'old\n');
  chmodSync(file, 0o600);
  await writeFileAtomic(file, 'new\n');
  assert.equal(readFileSync(file, 'utf8'), 'new\n');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  await writeFileAtomic(path.join(dir, 'fresh.md'), Buffer.from('bytes\n'));
  assert.equal(readFileSync(path.join(dir, 'fresh.md'), 'utf8'), 'bytes\n');
  assert.deepEqual(temps(dir), []);
});

test('an atomic write never goes through a symbolic link: refused, the link\'s target unchanged, no temp file left', { skip: process.platform === 'win32' && 'symbolic links need privileges' }, async () => {
  const dir = temp();
  const outside = path.join(temp(), 'target.md');
  writeFileSync(outside, 'outside\n');
  symlinkSync(outside, path.join(dir, 'MEMORY.md'));
  await assert.rejects(writeFileAtomic(path.join(dir, 'MEMORY.md'), 'hijacked\n'), /symbolic link/);
  assert.equal(readFileSync(outside, 'utf8'), 'outside\n');
  assert.deepEqual(temps(dir), []);
});

test('an atomic write into a folder that does not exist fails and creates nothing', async () => {
  const dir = path.join(temp(), 'missing');
  await assert.rejects(writeFileAtomic(path.join(dir, 'MEMORY.md'), 'x\n'), /ENOENT/);
  assert.equal(existsSync(dir), false);
});
