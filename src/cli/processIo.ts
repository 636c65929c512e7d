// How the CLI's process talks to its caller: output written straight to its descriptors, and a question asked on its
// terminal.
import { fstatSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';

/**
 * Writes to a file descriptor with `writeSync`, so that a command's output does not load Node's stream and socket
 * modules (process.stdout on a pipe, what agents and hooks give, costs ~4 ms to set up). A descriptor that cannot
 * take it all at once (EAGAIN: a non-blocking pipe it shares with its parent) gets the rest and everything after
 * through `fallback` (the process's stream), in order. A reader gone (EPIPE: `checkpoint list | head`) ends the
 * output quietly. A character device (a terminal, the null device) is written through `fallback` from the start.
 */
export function fdWriter(fd: number, fallback: () => NodeJS.WritableStream): { write(text: string): void; flushed(done: () => void): void } {
  let stream: NodeJS.WritableStream | undefined;
  let gone = false;
  let checked = false;
  // The stream's own errors (its reader gone later) end the output as quietly.
  const useStream = (): NodeJS.WritableStream => {
    stream = fallback();
    stream.on('error', () => {
      gone = true;
    });
    return stream;
  };
  return {
    write(text) {
      if (gone) return;
      // A terminal keeps Node's own handling (on Windows, the console's Unicode). Not node:tty's isatty, which loads
      // the stream modules this avoids: any character device is written through the stream.
      if (!checked) {
        checked = true;
        if (!writesDirectly(fd)) useStream();
      }
      if (stream) {
        stream.write(text);
        return;
      }
      // The text as is (Node encodes it outside the JavaScript heap: a listing's megabyte is not copied there); the
      // rest of a partial write as bytes.
      let bytes: Buffer | undefined;
      let at = 0;
      try {
        at = writeSync(fd, text);
        if (at < Buffer.byteLength(text)) {
          bytes = Buffer.from(text);
          while (at < bytes.length) at += writeSync(fd, bytes, at);
        }
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EPIPE' || code === 'ECONNRESET') gone = true;
        else if (code === 'EAGAIN') useStream().write((bytes ?? Buffer.from(text)).subarray(at));
        else throw err;
      }
    },
    flushed(done) {
      if (stream) stream.write('', done);
      else done();
    },
  };
}

/** Whether `fd` is open and written straight: a pipe, a socket or a file; not a character device (a terminal). */
function writesDirectly(fd: number): boolean {
  try {
    return !fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/** Whether `fd` is open on a terminal. */
export function isTerminal(fd: number): boolean {
  return isatty(fd);
}

/**
 * Asks on the terminal: the question on stderr, the answer read from stdin; '' at the end of input (Ctrl-D). Ctrl-C
 * ends the process (exit 130): nothing has been done while a question waits.
 */
export function askTerminal(question: string): Promise<string> {
  const readline = require('node:readline') as typeof import('node:readline');
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    let answered = false;
    rl.on('SIGINT', () => {
      process.stderr.write('\n');
      process.exit(130);
    });
    rl.on('close', () => {
      if (!answered) resolve('');
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(answer);
    });
  });
}
