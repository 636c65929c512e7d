// How the CLI writes its output (src/cli/processIo.ts, fdWriter): straight to the descriptor (a pipe, a file), the rest through the process's stream when a non-blocking pipe is full, and nothing more, without a crash,
// once the reader is gone.
// A FIFO gives both conditions for certain: its buffer is 64 KB, and its reader can be closed before anything runs.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync } from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { fdWriter } from '../../src/cli/processIo';
import { CLI, isolatedEnv, tempDirs } from '../support/fixtures';

const temp = tempDirs();
const skip = process.platform === 'win32' ? 'FIFOs are POSIX' : false;

function fifo(): string {
  const file = path.join(temp(), 'pipe');
  execFileSync('mkfifo', [file], { timeout: 10_000 });
  return file;
}

/** Everything the FIFO holds now (its reader is non-blocking: EAGAIN is the end). */
function drain(fd: number): Buffer {
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buf);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') break;
      throw err;
    }
    if (n === 0) break;
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks);
}

/** An fdWriter on `fd` that tells whether it ever fell back to a stream. */
function watchedWriter(fd: number): { out: ReturnType<typeof fdWriter>; fellBack: () => boolean } {
  let fell = false;
  const out = fdWriter(fd, () => {
    fell = true;
    return new PassThrough();
  });
  return { out, fellBack: () => fell };
}

test('a full non-blocking pipe: what does not fit, and everything after it, goes through the stream, in order', { skip }, async () => {
  const file = fifo();
  const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(file, constants.O_WRONLY | constants.O_NONBLOCK);
  try {
    const stream = new PassThrough();
    const got: Buffer[] = [];
    stream.on('data', (c: Buffer) => got.push(c));
    const out = fdWriter(writer, () => stream);
    const big = `${'checkpoint ✓ '.repeat(20_000)}\n`;
    out.write(big);
    out.write('after\n');
    await new Promise<void>((resolve) => out.flushed(resolve));
    const inPipe = drain(reader);
    const viaStream = Buffer.concat(got);
    assert.ok(inPipe.length > 0 && viaStream.length > 0, `both ways were used: ${inPipe.length} + ${viaStream.length}`);
    // Bytes, not text: the pipe may end inside a character the stream finishes.
    assert.ok(Buffer.concat([inPipe, viaStream]).equals(Buffer.from(`${big}after\n`)));
  } finally {
    closeSync(reader);
    closeSync(writer);
  }
});

test('a reader gone: the output stops, and the command still ends as it would have (exit 0, nothing on stderr)', { skip }, () => {
  const file = fifo();
  const reader = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(file, constants.O_WRONLY);
  closeSync(reader);
  try {
    // In-process: the first write finds no reader, later ones are not tried.
    const { out, fellBack } = watchedWriter(writer);
    out.write('one\n');
    out.write('two\n');
    assert.equal(fellBack(), false);

    // The CLI as `checkpoint list | head -0` runs it.
    const home = temp();
    const mem = path.join(home, 'memory');
    const saved = spawnSync(process.execPath, [CLI, 'save', 'db-migration', '--left-off', 'backfill written', '--dir', mem], { cwd: home, env: isolatedEnv(home), encoding: 'utf8', timeout: 60_000 });
    assert.equal(saved.status, 0, saved.stderr);
    const r = spawnSync(process.execPath, [CLI, 'list', '--dir', mem], { cwd: home, env: isolatedEnv(home), stdio: ['ignore', writer, 'pipe'], encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.stderr, '');
    assert.equal(r.status, 0);
  } finally {
    closeSync(writer);
  }
});

test('a command run with its output discarded to the null device succeeds', () => {
  const home = temp();
  const mem = path.join(home, 'memory');
  for (const args of [['save', 'db-migration', '--left-off', 'backfill written', '--dir', mem], ['list', '--json', '--dir', mem]]) {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: home, env: isolatedEnv(home), stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.stderr, '', args[0]);
    assert.equal(r.status, 0, args[0]);
  }
});
