import http from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import { HEADERS_TIMEOUT_MS } from './body-deadlines.js';

const BODY = JSON.stringify({ status: 'ok' });

/**
 * The HTTP server, with `GET /healthz` answered before Fastify routes the request (issue #18).
 * Liveness probes arrive every few seconds on every process, and many times a second behind
 * load balancers; an answer that proves the event loop turns needs none of the API's hooks
 * (session, rate limits, metrics, access log), so it costs what a bare Node server's answer
 * costs. It carries the API's fixed headers (`apiHeaders`: security headers, open CORS), and
 * the Fastify route of the same path stays registered: it documents the endpoint in the OpenAPI
 * document and answers `inject()` and every other form (`HEAD`, a query string).
 * The server's timeouts are set as Fastify sets them on a server it makes itself, and a headers timeout.
 */
export function fastHealthServer(apiHeaders: Readonly<Record<string, string>>): FastifyServerFactory {
  const head: Record<string, string> = {
    ...apiHeaders,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(BODY)),
  };
  return (handler, opts) => {
    const server = http.createServer((opts.http ?? {}) as http.ServerOptions, (req, res) => {
      if (req.url === '/healthz' && req.method === 'GET') {
        res.writeHead(200, head);
        res.end(BODY);
        return;
      }
      handler(req, res);
    });
    server.keepAliveTimeout = opts.keepAliveTimeout as number;
    // Issue #28: headers must arrive within HEADERS_TIMEOUT_MS; bodies are timed per route (./body-deadlines.ts),
    // since a whole-request limit (Node's requestTimeout, left at Fastify's 0) would also cut long uploads.
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = opts.requestTimeout as number;
    server.setTimeout(opts.connectionTimeout as number);
    const maxRequests = opts.maxRequestsPerSocket as number | null | undefined;
    if (maxRequests && maxRequests > 0) server.maxRequestsPerSocket = maxRequests;
    return server;
  };
}
