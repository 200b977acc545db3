import { Readable } from 'node:stream';

/**
 * An object's body as it streams from the store (issue #37), watched so that it either ends whole or fails:
 * - a store that stops sending in the middle of a body is cut after `idleMs` without a byte. The clock only runs
 *   while the reader is waiting for bytes: a reader that is behind (a slow client, backpressure) pauses it, so a
 *   slow download is never cut for being slow. (The SDK's request timeout ends when the answer's headers arrive,
 *   and a socket idle timeout would also count the time our own reader keeps the socket paused.)
 * - a body that ends before `expected` bytes (a connection closed early without an error) fails rather than ends;
 * - whatever the failure, it is thrown as `fail(cause)` (a StoreError, so the request answers 503 when nothing
 *   was sent yet), and a download already under way is cut (Fastify destroys the connection), so the client sees a
 *   failed transfer, never a short file that looks whole.
 * Destroying the guard (the reader went away) destroys the source and fails nothing.
 */
export class GuardedBody extends Readable {
  private timer: NodeJS.Timeout | undefined;
  private received = 0;
  private sourceEnded = false;

  constructor(
    private readonly source: Readable,
    private readonly options: { idleMs: number; expected: number | undefined; fail: (cause: Error) => Error },
  ) {
    super();
    source.pause();
    source.on('data', (chunk: Buffer) => this.onChunk(chunk));
    source.once('end', () => this.onEnd());
    source.once('error', (err: Error) => this.failWith(err));
    // A source that closes without 'end' or 'error' (destroyed under us) ended early.
    source.once('close', () => {
      if (!this.sourceEnded) this.failWith(new Error('the connection closed before the body ended'));
    });
  }

  override _read(): void {
    this.arm();
    this.source.resume();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.disarm();
    this.source.destroy();
    callback(err);
  }

  private onChunk(chunk: Buffer): void {
    this.disarm();
    this.received += chunk.length;
    if (this.push(chunk)) this.arm();
    // The reader is behind: stop reading (and the clock) until it asks again (_read).
    else this.source.pause();
  }

  private onEnd(): void {
    this.sourceEnded = true;
    this.disarm();
    const { expected } = this.options;
    if (expected !== undefined && this.received !== expected) {
      this.failWith(new Error(`the body ended after ${this.received} of ${expected} bytes`));
      return;
    }
    this.push(null);
  }

  private failWith(cause: Error): void {
    if (this.destroyed) return;
    this.destroy(this.options.fail(cause));
  }

  private arm(): void {
    if (this.timer || this.destroyed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.failWith(Object.assign(new Error(`no byte of the body for ${this.options.idleMs} ms`), { name: 'TimeoutError', code: 'ETIMEDOUT' }));
    }, this.options.idleMs);
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
