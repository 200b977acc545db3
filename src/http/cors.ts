import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';
import type { CorsRule } from '../storage/object-store.js';

/** seed 1: any origin, any request header (reflected), ETag exposed. */
// allowedHeaders is left out on purpose: @fastify/cors reflects the preflight's headers only when the option is absent.
const DEFAULT_OPTIONS: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  exposedHeaders: ['ETag'],
  maxAge: 86_400,
};

const PART_ROUTE = '/storage/parts/';
const RULES_TTL_MS = 10_000;

function originMatches(pattern: string, origin: string): boolean {
  if (pattern === '*') return true;
  // S3 allows one '*' wildcard inside an origin, e.g. https://*.example.com.
  const [head, tail, ...rest] = pattern.split('*');
  if (tail === undefined || rest.length) return pattern === origin;
  return origin.startsWith(head ?? '') && origin.endsWith(tail) && origin.length >= (head ?? '').length + tail.length;
}

/** The first rule that allows this origin and method, as S3 evaluates bucket CORS. */
export function optionsFromRules(rules: CorsRule[], origin: string | undefined, method: string): FastifyCorsOptions {
  if (!origin) return { origin: false };
  const rule = rules.find((r) => r.AllowedMethods.includes(method) && r.AllowedOrigins.some((p) => originMatches(p, origin)));
  if (!rule) return { origin: false };
  const options: FastifyCorsOptions = {
    origin: rule.AllowedOrigins.includes('*') ? '*' : origin,
    methods: rule.AllowedMethods,
    exposedHeaders: rule.ExposeHeaders ?? [],
  };
  // allowedHeaders must be absent (not undefined) for @fastify/cors to reflect the requested headers.
  if (rule.AllowedHeaders && !rule.AllowedHeaders.includes('*')) options.allowedHeaders = rule.AllowedHeaders;
  if (rule.MaxAgeSeconds !== undefined) options.maxAge = rule.MaxAgeSeconds;
  return options;
}

/**
 * CORS options per request: the seed's open policy everywhere, except on the
 * local store's part-upload route, which applies the bucket rules kept by
 * updateBucketConfig (as S3 applies its bucket CORS to presigned PUTs).
 * The rules are cached for 10 s, so every API process picks up a change soon.
 */
export function corsDelegator(partRules: (() => Promise<CorsRule[]>) | undefined) {
  let cached: { rules: CorsRule[]; at: number } | undefined;
  const rules = async (): Promise<CorsRule[]> => {
    if (!partRules) return [];
    if (!cached || Date.now() - cached.at > RULES_TTL_MS) cached = { rules: await partRules(), at: Date.now() };
    return cached.rules;
  };
  return {
    // Callback style, answering at once off the part route: a promise-returning delegator costs every request
    // a promise and a microtask turn for options that never change (issue #18).
    delegator: (req: FastifyRequest, callback: (error: Error | null, options: FastifyCorsOptions) => void): void => {
      if (!partRules || !req.url.startsWith(PART_ROUTE)) return callback(null, DEFAULT_OPTIONS);
      const preflightMethod = req.headers['access-control-request-method'];
      const method = req.method === 'OPTIONS' && typeof preflightMethod === 'string' ? preflightMethod : req.method;
      rules().then(
        (found) => callback(null, optionsFromRules(found, req.headers.origin, method.toUpperCase())),
        (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), { origin: false }),
      );
    },
    /** Forget cached rules (after updateBucketConfig in this process). */
    invalidate: () => {
      cached = undefined;
    },
  };
}
