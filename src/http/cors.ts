import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CorsRule } from '../storage/object-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `false`: @fastify/cors leaves this route alone (the local part route applies the bucket rules itself). */
    cors?: false;
  }
}

/**
 * seed 1: any origin, any request header (reflected), ETag exposed: @fastify/cors is registered with these
 * fixed options, which it prepares once (issue #18: per-request options cost every answer a fresh options
 * object, a `Vary: Origin` header and a callback turn, about a tenth of a small authenticated read).
 */
// allowedHeaders is left out on purpose: @fastify/cors reflects the preflight's headers only when the option is absent.
export const OPEN_CORS: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  exposedHeaders: ['ETag'],
  maxAge: 86_400,
};

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
 * applies its bucket CORS to presigned PUTs. That route opts out of @fastify/cors (`config.cors: false`)
 * and runs `actual` (the PUT) and `preflight` (its OPTIONS route) instead: an origin and method that no
 * rule allows get no CORS header, and their preflight is a 404, as @fastify/cors answers a refused one.
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
