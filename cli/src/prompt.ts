import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/**
 * Asks for one line on the terminal (stderr, so that stdout stays the command's answer). With `secret` what is
 * typed is not echoed. Without a terminal the line is read from stdin, so scripts can pipe a password in.
 */
export function ask(question: string, secret = false): Promise<string> {
  const tty = process.stdin.isTTY === true;
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: tty });
  return new Promise((resolve, reject) => {
    let answered = false;
    rl.question(question, (answer) => {
      answered = true;
      if (secret && tty) process.stderr.write('\n');
      rl.close();
      resolve(answer);
    });
    muted = secret && tty;
    rl.on('close', () => {
      if (!answered) reject(new Error('no answer: stdin closed'));
    });
  });
}
