import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * A fault-injecting HTTP proxy in front of an S3-compatible store (s3rver in the tests), for `npm run test:faults`
 * (issue #37). The service and the test's clients (presigned part URLs) talk to the proxy as if it were the store;
 * `set(mode)` changes what it does to the requests that follow (and to bodies already flowing):
 *
 * - `pass`: forwards everything unchanged.
 * - `error500`: answers every request 500 `InternalError`, as S3 does, with its XML error body (nothing forwarded).
 * - `slowDown`: answers every request 503 `SlowDown` ("Please reduce your request rate."), S3's throttling answer.
 * - `reset`: forwards, but cuts a share (`resetShare`) of the answers that have a body in the middle of it: after
 *   `resetAfterBytes` bytes, or half the body when it is smaller, the connection is reset (TCP RST).
 * - `stall`: a store that stops answering: new requests are held without an answer (their connections stay open),
 *   bodies already flowing stop where they are. When the mode changes, the held connections are reset (whoever was
 *   waiting gave up long ago) and stopped bodies flow on.
 * - `loss`: packet loss as the application sees it. Kernel-level loss (`tc qdisc add dev lo root netem loss 5%`)
 *   needs the sch_netem module, which CI machines do not always have ("Specified qdisc kind is unknown"), so it is
 *   emulated here, at the level TCP hands to the application: TCP retransmits lost segments, so loss shows up as
 *   delays, not missing bytes. Losses that fast retransmit repairs within a round trip (well under a millisecond on
 *   loopback) are invisible; the ones that cost something are tail losses, which wait for the retransmission
 *   timeout (at least 200 ms on Linux, doubling on each retry). So `lossShare` (5 %) of the units the application
 *   sees (a request's or an answer's head, a body chunk of up to 64 KiB) are held 200 ms to 1 s, in order (the
 *   chunks behind them wait too), and now and then (`lossResetShare` of the units) a connection whose
 *   retransmissions all failed is reset.
 *
 * Every mode applies to both directions of the proxy: request bodies (parts a client PUTs) as well as answers.
 */
export type FaultMode = 'pass' | 'error500' | 'slowDown' | 'reset' | 'stall' | 'loss';

export interface FaultProxyOptions {
  /** Bytes of an answer's body sent before a reset (`reset`); default 64 KiB. */
  resetAfterBytes?: number;
  /** Share of the answers with a body that `reset` cuts; default 0.5. */
  resetShare?: number;
  /** Share of heads and chunks `loss` delays; default 0.05. */
  lossShare?: number;
  /** Share of heads and chunks on which `loss` resets the connection; default 0.002. */
  lossResetShare?: number;
  /** A source of randomness in [0, 1), for reproducible runs; default Math.random. */
  random?: () => number;
}

export interface FaultProxy {
  /** `http://127.0.0.1:port`: the endpoint to give the service and clients instead of the store's. */
  readonly endpoint: string;
  readonly mode: FaultMode;
  set(mode: FaultMode): void;
  /** Requests seen, and those a fault changed (answered, held, cut or delayed), since the last `set`. */
  readonly counts: { requests: number; faulted: number };
  close(): Promise<void>;
}

const XML_ERRORS = {
  error500: { status: 500, code: 'InternalError', message: 'We encountered an internal error. Please try again.' },
  slowDown: { status: 503, code: 'SlowDown', message: 'Please reduce your request rate.' },
} as const;

function errorXml(code: string, message: string, resource: string): string {
  const id = Math.random().toString(16).slice(2, 18).toUpperCase();
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><Resource>${resource}</Resource><RequestId>${id}</RequestId></Error>`;
}

/** Resets a socket (RST, as a store or a middlebox that gives up), or closes it where RST is not available. */
function reset(socket: Socket | null | undefined): void {
  if (!socket || socket.destroyed) return;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

export async function startFaultProxy(upstream: string, options: FaultProxyOptions = {}): Promise<FaultProxy> {
  const target = new URL(upstream);
  const random = options.random ?? Math.random;
  const resetAfterBytes = options.resetAfterBytes ?? 64 * 1024;
  const resetShare = options.resetShare ?? 0.5;
  const lossShare = options.lossShare ?? 0.05;
  const lossResetShare = options.lossResetShare ?? 0.002;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let mode: FaultMode = 'pass';
  const counts = { requests: 0, faulted: 0 };
  /** Requests `stall` holds, reset when it ends. */
  const held = new Set<http.ServerResponse>();
  /** Wakes the bodies `stall` stopped. */
  let unstall: Array<() => void> = [];
  const sockets = new Set<Socket>();

  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const stalled = () => new Promise<void>((resolve) => unstall.push(resolve));

  /** What `loss` does to one unit (a head or a chunk): usually nothing, sometimes a retransmission's wait or a reset. */
  const lose = async (sockets: Array<Socket | null | undefined>, faulted: () => void): Promise<boolean> => {
    if (mode !== 'loss') return true;
    const r = random();
    if (r < lossResetShare) {
      faulted();
      for (const s of sockets) reset(s);
      return false;
    }
    if (r < lossResetShare + lossShare) {
      faulted();
      await sleep(200 + Math.floor(random() * 800));
    }
    return true;
  };

  /**
   * The pipe of one body, one direction: stops while `stall` lasts, delays or resets under `loss`, and (for an answer
   * chosen to be reset) resets after `cutAt` bytes.
   */
  const shaper = (ends: () => Array<Socket | null | undefined>, faulted: () => void, cutAt?: number) => {
    let passed = 0;
    return new Transform({
      transform(chunk: Buffer, _enc, callback: TransformCallback) {
        void (async () => {
          while (mode === 'stall') {
            faulted();
            await stalled();
          }
          if (!(await lose(ends(), faulted))) return callback();
          if (cutAt !== undefined && passed >= cutAt) return callback();
          if (cutAt !== undefined && passed + chunk.length >= cutAt) {
            const head = chunk.subarray(0, Math.max(0, cutAt - passed));
            passed = cutAt;
            faulted();
            this.push(head);
            // Let the head go out, then reset both ends.
            setTimeout(() => {
              for (const s of ends()) reset(s);
            }, 20);
            return callback();
          }
          passed += chunk.length;
          callback(null, chunk);
        })();
      },
    });
  };

  const server = http.createServer((req, res) => void handle(req, res));

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    counts.requests += 1;
    let faultedThis = false;
    const faulted = () => {
      if (!faultedThis) counts.faulted += 1;
      faultedThis = true;
    };
    const current = mode;
    if (current === 'error500' || current === 'slowDown') {
      faulted();
      const { status, code, message } = XML_ERRORS[current];
      req.resume();
      req.once('end', () => {
        const body = errorXml(code, message, req.url ?? '/');
        res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body), 'x-amz-request-id': 'FAULTPROXY' });
        res.end(body);
      });
      return;
    }
    if (current === 'stall') {
      faulted();
      held.add(res);
      res.once('close', () => held.delete(res));
      return;
    }
    if (!(await lose([req.socket], faulted))) return;

    const headers = { ...req.headers };
    // The proxy answered 100-continue itself (Node's server does); the store gets the body at once.
    delete headers.expect;
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent });
    const ends = () => [req.socket, up.socket];
    up.on('error', () => reset(req.socket));
    req.on('error', () => up.destroy());
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(shaper(ends, faulted)).pipe(up);

    up.on('response', (answer) => {
      void (async () => {
        while (mode === 'stall') {
          faulted();
          await stalled();
        }
        if (!(await lose(ends(), faulted))) return;
        const length = Number(answer.headers['content-length'] ?? NaN);
        const hasBody = req.method !== 'HEAD' && answer.statusCode !== 204 && answer.statusCode !== 304 && length > 0;
        const cut = mode === 'reset' && hasBody && random() < resetShare ? Math.max(1, Math.min(resetAfterBytes, Math.floor(length / 2))) : undefined;
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
        answer.on('error', () => reset(req.socket));
        answer.pipe(shaper(ends, faulted, cut)).pipe(res);
      })();
    });
  }
  server.keepAliveTimeout = 30_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    get counts() {
      return counts;
    },
    set(next: FaultMode) {
      const was = mode;
      mode = next;
      counts.requests = 0;
      counts.faulted = 0;
      if (was === 'stall' && next !== 'stall') {
        for (const res of held) reset(res.socket);
        held.clear();
        const wake = unstall;
        unstall = [];
        for (const w of wake) w();
      }
    },
    close: async () => {
      mode = 'pass';
      for (const w of unstall) w();
      for (const s of sockets) s.destroy();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
