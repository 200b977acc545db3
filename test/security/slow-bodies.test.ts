import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, openSockets, startSecurityServer, type SecurityServer } from './server.js';

/** DAM_BODY_TIMEOUT of this server, seconds: small, so a trickling client is cut within the test's time. */
const BODY_TIMEOUT_S = 2;
const SOCKETS = 20;

interface Trickle {
  /** Milliseconds from the connection to its close by the server; undefined while open. */
  closedAfterMs: number | undefined;
  answer: string;
  stop: () => void;
}

/**
 * One slow client: the headers of a POST with `Content-Length: length`, then one byte of the body
 * every `everyMs`, for as long as the server keeps the connection.
 */
function trickle(port: number, target: string, length: number, everyMs: number): Promise<Trickle> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    const state: Trickle = { closedAfterMs: undefined, answer: '', stop: () => socket.destroy() };
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d: Buffer) => (state.answer += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      state.closedAfterMs ??= Date.now() - started;
    });
    socket.once('connect', () => {
      socket.write(`POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`);
      timer = setInterval(() => socket.write(' '), everyMs);
      resolve(state);
    });
    socket.once('error', reject);
  });
}

/** Issue #28, slow bodies: connections that send a body one byte at a time are closed, and their sockets freed. */
describe('slow bodies against the built server', () => {
  let server: SecurityServer;
  beforeAll(async () => {
    server = await startSecurityServer({
      DAM_BODY_TIMEOUT: String(BODY_TIMEOUT_S),
      DAM_UPLOAD_IDLE_TIMEOUT: String(BODY_TIMEOUT_S),
      // Every one of the connections is a sign-in attempt: none is refused by the address limit before its body is timed.
      DAM_LOGIN_RATE_LIMIT: '1000',
    });
  });
  afterAll(() => server?.stop());

  // [route, Content-Length, whether the server must wait for the body at all]
  const cases: [string, number, boolean][] = [
    // Over the sign-in routes' 8 KiB body limit: refused with 413 from the header alone, and closed.
    ['/auth/login', 100_000, false],
    // Within it: the body is waited for, until DAM_BODY_TIMEOUT.
    ['/auth/login', 8_000, true],
    // The Stripe webhook reads up to 1 MiB, without a bearer.
    ['/payments/webhook', 100_000, true],
  ];

  it.each(cases)(`closes ${SOCKETS} connections trickling a body to %s (Content-Length %i) within DAM_BODY_TIMEOUT, and frees their sockets`, async (target, length, held) => {
    const baseline = openSockets(server.pid);
    const clients = await Promise.all(Array.from({ length: SOCKETS }, () => trickle(server.port, target, length, 500)));
    try {
      // The server holds them at first: the measure sees them.
      if (held) expect(await eventually(() => openSockets(server.pid) >= baseline + SOCKETS, 1500)).toBe(true);
      // The deadline plus its polling tick (a quarter of it, at most 1 s) and some slack for a loaded machine.
      const limitMs = BODY_TIMEOUT_S * 1000 + 1500;
      expect(await eventually(() => clients.every((c) => c.closedAfterMs !== undefined), limitMs + 500)).toBe(true);
      for (const c of clients) {
        expect(c.closedAfterMs).toBeLessThanOrEqual(limitMs);
        // Held: a 408 after the deadline, though a byte came every 500 ms. Not held: 413 at once.
        expect(c.answer).toMatch(held ? /^HTTP\/1\.1 408 / : /^HTTP\/1\.1 413 /);
        if (held) expect(c.closedAfterMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_S * 1000);
      }
      expect(await eventually(() => openSockets(server.pid) <= baseline, 2000), `sockets: ${openSockets(server.pid)}, baseline ${baseline}`).toBe(true);
    } finally {
      for (const c of clients) c.stop();
    }
  });
});
