import type { FastifyRequest } from 'fastify';

/** At most this much of a refused body is read and dropped; past it the connection is closed instead. */
const DISCARD_MAX_BYTES = 32 * 1024 * 1024;
/** At most this long; past it the connection is closed instead. */
const DISCARD_MAX_MS = 15_000;

/**
 * A body refused half-way through (the disk full under its upload, issue #37; a malformed multipart body): the rest is
 * read and dropped, as nginx's lingering close does. Closing the connection at once would reset it under a client that
 * is still sending, which then sees a broken connection instead of the answer (fetch: EPIPE); keeping it without
 * reading would leave the unread rest in front of the client's next request on it (Node drains only a body nobody has
 * started to read). A rest longer than DISCARD_MAX_BYTES, or still coming after DISCARD_MAX_MS, closes the connection.
 */
export function discardRestOfBody(request: FastifyRequest): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed) return;
  // Whatever parsed the body (busboy) stops receiving it.
  raw.unpipe();
  let dropped = 0;
  const done = () => {
    clearTimeout(timer);
    raw.off('data', count);
    raw.off('end', done);
    raw.off('close', done);
  };
  const close = () => {
    done();
    raw.socket?.destroy();
  };
  const count = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DISCARD_MAX_BYTES) close();
  };
  const timer = setTimeout(close, DISCARD_MAX_MS);
  timer.unref();
  raw.on('data', count);
  raw.once('end', done);
  raw.once('close', done);
  raw.resume();
}
