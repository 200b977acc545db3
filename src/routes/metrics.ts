import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { Type } from 'typebox';
import { appError } from '../errors.js';
import type { AppMetrics } from '../http/metrics.js';

function isLoopback(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'loopback';
}

/** Compared as SHA-256 digests: equal lengths for timingSafeEqual, and no timing hint of the token's length. */
function sameToken(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Headers a reverse proxy adds on behalf of a client: their presence means the request came through one. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-real-ip', 'via'];

/**
 * Who may scrape: with DAM_METRICS_TOKEN, whoever sends it as a Bearer token (401 otherwise);
 * without it, loopback clients only (403 otherwise). Loopback means the connection's address and
 * no forwarding header at all (issue #28): a reverse proxy on the same machine connects from
 * loopback on behalf of outside clients, whatever DAM_TRUST_PROXY says about believing it.
 */
function authorize(request: FastifyRequest, token: string | undefined): void {
  if (token) {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    if (!match?.[1] || !sameToken(match[1], token)) throw appError('UNAUTHORIZED', 'GET /metrics needs Authorization: Bearer <DAM_METRICS_TOKEN>');
    return;
  }
  if (!isLoopback(request.raw.socket?.remoteAddress ?? request.ip) || !isLoopback(request.ip)) {
    throw appError('FORBIDDEN', 'GET /metrics answers loopback clients only while DAM_METRICS_TOKEN is not set');
  }
  const forwarded = FORWARDING_HEADERS.find((h) => request.headers[h] !== undefined);
  if (forwarded) {
    throw appError('FORBIDDEN', `GET /metrics came through a proxy (${forwarded} header): set DAM_METRICS_TOKEN to scrape from elsewhere than loopback`);
  }
}

/**
 * GET /metrics, the Prometheus text format (issue #18). Left out of the OpenAPI document: it is
 * for the operator's scraper, not an API client, and takes its own token, not a session.
 */
export const metricsRoutes: FastifyPluginAsyncTypebox<{ metrics: AppMetrics; token: string | undefined }> = async (app, { metrics, token }) => {
  app.get(
    '/metrics',
    {
      // A scrape every few seconds is not worth an access line; refusals and failures are still logged.
      logLevel: 'warn',
      config: { public: true },
      schema: { hide: true, response: { 200: Type.String({ maxLength: 16 * 1024 * 1024, description: 'Prometheus text exposition format' }) } },
    },
    async (request, reply) => {
      authorize(request, token);
      const { contentType, body } = await metrics.render();
      return reply.header('content-type', contentType).header('cache-control', 'no-store').send(body);
    },
  );
};
