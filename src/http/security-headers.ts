import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { AppConfig, StorageConfig } from '../config.js';
import { tileImageSource } from '../domain/map-tiles.js';

/** A bucket name that S3 clients put in the host name (virtual-hosted style). */
const DNS_BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Where a browser PUTs presigned parts on S3 (seed 4.3): the endpoint's origin (path-style
 * addressing) and the bucket's own host under it (virtual-hosted style, which the AWS SDK
 * uses whenever the bucket name allows). Both are allowed: which one a URL uses depends on
 * DAM_S3_FORCE_PATH_STYLE and the bucket name, and both are the operator's store.
 */
export function s3BrowserOrigins(storage: StorageConfig): string[] {
  if (storage.kind !== 's3') return [];
  const endpoint = new URL(storage.endpoint ?? `https://s3.${storage.region}.amazonaws.com`);
  const origins = [endpoint.origin];
  if (DNS_BUCKET.test(storage.bucket)) origins.push(`${endpoint.protocol}//${storage.bucket}.${endpoint.host}`);
  return origins;
}

/**
 * The Content-Security-Policy of every answer, written for the web client (web/, a Vite build):
 * scripts and styles only from files of our origin (no inline code; Vue's `:style` bindings
 * go through the CSSOM, which CSP does not restrict), images and media from our origin, the
 * public URL (signed media URLs are built on it) and blob: (the client shows fetched files
 * as object URLs), data: images, and the map view's tiles from DAM_MAP_TILE_URL's origin only (issue #27); fetches to our origin, the public URL (the local store's
 * part PUTs) and the S3 bucket (S3 part PUTs). Google sign-in is a navigation, which CSP
 * does not govern. No framing at all. upgrade-insecure-requests only behind https: on a plain
 * http instance (a LAN box) it would send every request to a port that does not answer.
 */
export function webClientCsp(config: AppConfig): Record<string, string[]> {
  const self = ["'self'", new URL(config.publicUrl).origin];
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'base-uri': ["'self'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': ["'self'"],
    'img-src': [...self, 'blob:', 'data:', tileImageSource(config.map.tileUrl)],
    'media-src': [...self, 'blob:'],
    'font-src': ["'self'", 'data:'],
    'connect-src': [...self, ...s3BrowserOrigins(config.storage)],
    'object-src': ["'none'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'self'"],
  };
  if (config.publicUrl.startsWith('https://')) directives['upgrade-insecure-requests'] = [];
  return directives;
}

/**
 * The API docs (/docs, @fastify/swagger-ui, passed as its `staticCSP`): the web client's policy
 * plus inline styles, as Swagger UI inserts a <style> element (its scripts are files of ours).
 */
export function docsCsp(config: AppConfig): Record<string, string[]> {
  const directives = webClientCsp(config);
  return { ...directives, 'style-src': ["'self'", "'unsafe-inline'"] };
}

/**
 * The headers helmet would set, worked out once. @fastify/helmet runs helmet afresh on every
 * request (parsing the CSP directives and building each middleware), a tenth of the cost of a
 * small answer (issue #18); the headers depend on the configuration only, so they are computed
 * at start and copied onto each reply.
 */
export function helmetHeaders(options: Readonly<HelmetOptions>): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const res = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()];
    },
  };
  let finished = false;
  helmet(options)({} as IncomingMessage, res as unknown as ServerResponse, (err?: unknown) => {
    if (err instanceof Error) throw err;
    if (err) throw new Error('helmet refused its options');
    finished = true;
  });
  // Every directive here is a fixed string: helmet runs synchronously. A function directive would not.
  if (!finished) throw new Error('helmet did not finish synchronously: a directive depends on the request');
  return Object.freeze(headers);
}

/**
 * Security headers on every answer (helmet's, computed once), set before the auth hook so
 * that 401s carry them too. A route may set a stricter header of its own (the signed media
 * URLs answer `default-src 'none'; sandbox`): Fastify's headers win over helmet's.
 * - Referrer-Policy: no-referrer everywhere, as the client's pages already say: URLs here
 *   carry credentials (signed media and part URLs, /social-login?access_token=), and no
 *   feature needs a Referer, same-origin included.
 * - X-Frame-Options: DENY with CSP frame-ancestors 'none': nothing of ours is framed.
 * - Cross-Origin-Resource-Policy: cross-origin: the API is open to any origin (seed 1 CORS)
 *   and signed media URLs are meant for <img>/<video> on other sites; same-origin would block those.
 * - Cross-Origin-Embedder-Policy: off (it would stop the client embedding anything without CORP).
 * - Strict-Transport-Security: only when DAM_PUBLIC_URL is https (a year; no includeSubDomains
 *   or preload: the parent domain's policy is the operator's to choose).
 *
 * Two sets (issue #18: the full set was ~800 bytes on every answer, a tenth of the CPU of a small one):
 * - API answers (JSON, files, redirects) load nothing, so their CSP forbids everything
 *   (`default-src 'none'; frame-ancestors 'none'`, stricter than the client's), and they go without the
 *   headers that only a rendered document reads (Cross-Origin-Opener-Policy, Origin-Agent-Cluster,
 *   X-DNS-Prefetch-Control, X-Download-Options, X-XSS-Protection), as OWASP's REST security sheet advises.
 * - The web client's pages and files (`page`, applied by routes/web-client.ts) get the whole set:
 *   its CSP (webClientCsp) and Cross-Origin-Opener-Policy: same-origin (Google sign-in is a full-page
 *   redirect, no popup).
 */
export interface SecurityHeaders {
  readonly api: Readonly<Record<string, string>>;
  readonly page: Readonly<Record<string, string>>;
}

export function securityHeaders(config: AppConfig): SecurityHeaders {
  const common = {
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    crossOriginEmbedderPolicy: false,
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: config.publicUrl.startsWith('https://') ? { maxAge: 365 * 24 * 3600, includeSubDomains: false } : false,
    xFrameOptions: { action: 'deny' },
  } as const;
  const api = helmetHeaders({
    ...common,
    contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xXssProtection: false,
  });
  const page = helmetHeaders({
    ...common,
    contentSecurityPolicy: { useDefaults: false, directives: webClientCsp(config) },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
  });
  return { api, page };
}

/** The API's fixed headers (`api` and the open CORS policy's) on every answer; the web client's routes add `page` over them. */
export function registerFixedHeaders(app: FastifyInstance, headers: Readonly<Record<string, string>>): void {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
