import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The body is a file streamed to storage (part and file uploads): it may take as long as it needs
     * while bytes keep coming, and is cut only after DAM_UPLOAD_IDLE_TIMEOUT without any.
     */
    streamingBody?: boolean;
  }
}

export interface BodyDeadlines {
  /** Milliseconds a request may take to send a whole (non-file) body: DAM_BODY_TIMEOUT. */
  bodyMs: number;
  /** Milliseconds a file upload may go without sending a byte: DAM_UPLOAD_IDLE_TIMEOUT. */
  uploadIdleMs: number;
}

/** Milliseconds the headers may take to arrive; Node's own check closes the connection with 408. */
export const HEADERS_TIMEOUT_MS = 30_000;

/**
 * Issue #28: a client sending a body one byte every 10 s held its connection (and its parser's memory)
 * for as long as it liked. Node's `requestTimeout` bounds the whole request, which would also cut a
 * large upload on a slow line; so the server leaves it off and this hook bounds each body instead:
 * - an ordinary body must be complete within `bodyMs` of the request's start;
 * - a file upload (`config.streamingBody`) must not go `uploadIdleMs` without a byte.
 * Over either, the connection gets a bare 408 and is closed. The socket's byte count is polled rather
 * than the request's `data` events listened to, which would start the body flowing before its parser
 * is attached. Only the body is timed: the work after it (a long merge, a ZIP) is not cut.
 */
export function installBodyDeadlines(app: FastifyInstance, deadlines: BodyDeadlines): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const socket = raw.socket as typeof raw.socket | null;
    const length = raw.headers['content-length'];
    const hasBody = raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    // Only a real connection can trickle (an injected request has its whole body, and no socket to close).
    if (!(socket instanceof Socket) || !hasBody || raw.complete) return done();
    const streaming = request.routeOptions.config.streamingBody === true;
    const started = Date.now();
    let lastBytes = socket.bytesRead;
    let lastByteAt = started;
    const tick = Math.max(50, Math.min(1000, (streaming ? deadlines.uploadIdleMs : deadlines.bodyMs) / 4));
    const timer = setInterval(() => {
      if (raw.complete || socket.destroyed) return stop();
      const now = Date.now();
      if (socket.bytesRead !== lastBytes) {
        lastBytes = socket.bytesRead;
        lastByteAt = now;
      }
      const late = streaming ? now - lastByteAt > deadlines.uploadIdleMs : now - started > deadlines.bodyMs;
      if (!late) return;
      stop();
      request.log.warn({ streaming, elapsedMs: now - started }, 'request body too slow: connection closed');
      // Answered already (a refusal before the body was read): a 408 now would be read as the answer to the client's
      // next request on this connection.
      if (reply.raw.headersSent) {
        socket.destroy();
        return;
      }
      socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroySoon();
    }, tick);
    timer.unref();
    function stop(): void {
      clearInterval(timer);
      raw.off('end', stop);
      raw.off('close', stop);
    }
    raw.once('end', stop);
    raw.once('close', stop);
    done();
  });
}
