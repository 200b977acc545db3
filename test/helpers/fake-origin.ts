import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/**
 * An outside web server on 127.0.0.1 for the image proxy and the safe fetcher:
 * - /image.png, /image.jpg: real images (40 x 30); /big.png: 2000 x 1500 (for resizing)
 * - /bomb.png: a small PNG whose header claims 20000 x 20000 pixels (the pixel limit)
 * - /image.svg: an SVG document as image/svg+xml
 * - /html-as-png: an HTML page claiming Content-Type image/png (the magic-byte check)
 * - /text: text/plain
 * - /huge: image/png, chunked (no Content-Length), 64 KiB chunks until the client hangs up
 * - /slow: headers, a few bytes, then nothing (the timeout)
 * - /redirect?to=<url>[&status=302]: a redirect to `to`
 * - /chain/<n>: n redirects in a row, then /image.png
 * - /status/<code>: that status with a small body
 * Every request's headers are recorded in `requests`.
 */
export interface FakeOrigin {
  /** http://127.0.0.1:<port> */
  readonly baseUrl: string;
  readonly port: number;
  /** `127.0.0.1:<port>`, as DAM_PROXY_ALLOW_HOSTS lists it. */
  readonly hostPort: string;
  readonly png: Buffer;
  readonly jpeg: Buffer;
  readonly requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Bytes the /huge route managed to write before the client hung up. */
  readonly hugeBytesSent: () => number;
  close(): Promise<void>;
}

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="red"/></svg>';
const HTML = '<!DOCTYPE html><html><body><script>alert(1)</script></body></html>';

export async function startFakeOrigin(): Promise<FakeOrigin> {
  const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } }).png().toBuffer();
  const jpeg = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#996633' } }).jpeg().toBuffer();
  const big = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#123456' } }).png().toBuffer();
  const bomb = withDimensions(png, 20_000, 20_000);
  const requests: FakeOrigin['requests'] = [];
  const sockets = new Set<Socket>();
  let hugeSent = 0;

  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
    res.end(body);
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://origin');
    requests.push({ path: url.pathname, headers: req.headers });
    const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    if (url.pathname === '/image.png') return send(res, 200, 'image/png', png, { 'set-cookie': 'origin=1' });
    if (url.pathname === '/image.jpg') return send(res, 200, 'image/jpeg', jpeg);
    if (url.pathname === '/big.png') return send(res, 200, 'image/png', big);
    if (url.pathname === '/bomb.png') return send(res, 200, 'image/png', bomb);
    if (url.pathname === '/image.svg') return send(res, 200, 'image/svg+xml', SVG);
    if (url.pathname === '/html-as-png') return send(res, 200, 'image/png', HTML);
    if (url.pathname === '/text') return send(res, 200, 'text/plain', 'hello');
    if (url.pathname === '/huge') {
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.concat([png, Buffer.alloc(64 * 1024 - png.length)]);
      const pump = () => {
        while (!res.destroyed && hugeSent < 256 * 1024 * 1024) {
          hugeSent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    if (url.pathname === '/slow') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(png.subarray(0, 8));
      return; // never ends
    }
    if (url.pathname === '/redirect') {
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/' });
      return res.end();
    }
    if (chain) {
      const n = Number(chain[1]);
      res.writeHead(302, { location: n > 1 ? `/chain/${n - 1}` : '/image.png' });
      return res.end();
    }
    if (status) return send(res, Number(status[1]), 'text/plain', `status ${status[1]}`);
    return send(res, 404, 'text/plain', 'not found');
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    hostPort: `127.0.0.1:${port}`,
    png,
    jpeg,
    requests,
    hugeBytesSent: () => hugeSent,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A copy of a PNG whose IHDR chunk claims other dimensions (CRC recomputed), as a decompression bomb would. */
function withDimensions(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  // Signature (8), IHDR length (4), "IHDR" (4), then width and height; the CRC covers type and data (17 bytes).
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)), 29);
  return out;
}
