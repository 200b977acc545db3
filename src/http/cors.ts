import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appError } from '../errors.js';
import type { CorsRule } from '../storage/object-store.js';

/**
 * Beyond seed 1's ETag, the answer headers a browser client must read (issue #38): a download's file name
 * (Content-Disposition), a range's place and size (Content-Range, Content-Length, Accept-Ranges), a 429's or
 * 503's wait (Retry-After), an idempotent replay (Idempotent-Replayed) and a shared link's download grant
 * (X-Download-Grant, issue #28: what a resumed download sends back). Content-Length is CORS-safelisted
 * in the Fetch standard of today, but not in older browsers, so it is named too.
 */
export const EXPOSED_HEADERS = Object.freeze(['ETag', 'Content-Disposition', 'Content-Range', 'Content-Length', 'Accept-Ranges', 'Retry-After', 'Idempotent-Replayed', 'X-Download-Grant']);

/**
 * seed 1: any origin, any request header, ETag (and the headers above) exposed. The open policy's answer headers are constants, so they
 * are set with the security headers in one hook (and by the /healthz fast path), and its preflight is one route.
 * No @fastify/cors, on purpose (issue #18): however it is configured, its hook copies its whole options object
 * and builds the route options twice for every request, about 2 us, a sixteenth of a small authenticated read
 * (perf, one CPU); for a policy of two fixed headers and one preflight answer that is the whole cost of CORS.
 */
export const OPEN_CORS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
});

const PREFLIGHT_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const PREFLIGHT_MAX_AGE = String(24 * 3600);

/**
 * `OPTIONS *`: the preflight of the open policy, 204 with every method, the requested headers reflected (hence
 * `Vary: Access-Control-Request-Headers`) and a day's max age. An OPTIONS without Origin and
 * Access-Control-Request-Method is no preflight: 400 naming the missing header. Public: a browser sends no
 * credentials with a preflight. A route's own OPTIONS (the local part route's) wins over this one.
 */
export function registerOpenPreflight(app: FastifyInstance): void {
  app.options('*', { config: { public: true }, schema: { hide: true } }, (req, reply) => {
    for (const name of ['origin', 'access-control-request-method'] as const) {
      if (typeof req.headers[name] !== 'string') throw appError('MISSING_PARAMETER', `A CORS preflight needs the header ${name}`, { header: name });
    }
    reply
      .header('access-control-allow-methods', PREFLIGHT_METHODS)
      .header('access-control-max-age', PREFLIGHT_MAX_AGE)
      .header('vary', 'Access-Control-Request-Headers');
    const requested = req.headers['access-control-request-headers'];
    if (requested !== undefined) reply.header('access-control-allow-headers', requested);
    return reply.code(204).header('content-length', '0').send();
  });
}

const RULES_TTL_MS = 10_000;

function originMatches(pattern: string, origin: string): boolean {
  if (pattern === '*') return true;
  // S3 allows one '*' wildcard inside an origin, e.g. https://*.example.com.
  const [head, tail, ...rest] = pattern.split('*');
  if (tail === undefined || rest.length) return pattern === origin;
  return origin.startsWith(head ?? '') && origin.endsWith(tail) && origin.length >= (head ?? '').length + tail.length;
}

/** The first rule that allows this origin and method, as S3 evaluates bucket CORS. */
export function ruleFor(rules: CorsRule[], origin: string | undefined, method: string): CorsRule | undefined {
  if (!origin) return undefined;
  return rules.find((r) => r.AllowedMethods.includes(method) && r.AllowedOrigins.some((p) => originMatches(p, origin)));
}

/**
 * The local store's part-upload route answers CORS by the bucket rules kept by updateBucketConfig, as S3
 * applies its bucket CORS to presigned PUTs: `actual` (a hook of the PUT) replaces the open policy's headers,
 * and `preflight` is its own OPTIONS route: an origin and method that no rule allows get no CORS header, and
 * their preflight is a 404 (as S3 refuses one with a 403: no CORS header either way).
 * The rules are cached for 10 s, so every API process picks up a change soon.
 */
export class BucketCors {
  private cached: { rules: CorsRule[]; at: number } | undefined;

  constructor(private readonly load: () => Promise<CorsRule[]>) {}

  /** Forget cached rules (after updateBucketConfig in this process). */
  invalidate(): void {
    this.cached = undefined;
  }

  /** onRequest hook of the part PUT: the allowing rule's origin and exposed headers. */
  readonly actual = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    for (const name of Object.keys(OPEN_CORS_HEADERS)) reply.removeHeader(name);
    reply.header('vary', 'Origin');
    const rule = ruleFor(await this.rules(), req.headers.origin, req.method);
    if (rule) this.allowOrigin(reply, rule, req.headers.origin as string);
  };

  /** Handler of the part route's OPTIONS: 204 with the allowing rule's methods, headers and max age; 404 when none allows. */
  readonly preflight = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.header('vary', 'Origin');
    const requested = req.headers['access-control-request-method'];
    const rule = typeof requested === 'string' ? ruleFor(await this.rules(), req.headers.origin, requested.toUpperCase()) : undefined;
    if (!rule) return reply.callNotFound();
    this.allowOrigin(reply, rule, req.headers.origin as string);
    reply.header('access-control-allow-methods', rule.AllowedMethods.join(', '));
    if (!rule.AllowedHeaders || rule.AllowedHeaders.includes('*')) {
      reply.header('vary', 'Origin, Access-Control-Request-Headers');
      const headers = req.headers['access-control-request-headers'];
      if (headers !== undefined) reply.header('access-control-allow-headers', headers);
    } else {
      reply.header('access-control-allow-headers', rule.AllowedHeaders.join(', '));
    }
    if (rule.MaxAgeSeconds !== undefined) reply.header('access-control-max-age', String(rule.MaxAgeSeconds));
    return reply.code(204).header('content-length', '0').send();
  };

  private allowOrigin(reply: FastifyReply, rule: CorsRule, origin: string): void {
    reply.header('access-control-allow-origin', rule.AllowedOrigins.includes('*') ? '*' : origin);
    if (rule.ExposeHeaders?.length) reply.header('access-control-expose-headers', rule.ExposeHeaders.join(', '));
  }

  private async rules(): Promise<CorsRule[]> {
    if (!this.cached || Date.now() - this.cached.at > RULES_TTL_MS) this.cached = { rules: await this.load(), at: Date.now() };
    return this.cached.rules;
  }
}
