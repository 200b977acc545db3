import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { appError } from '../errors.js';
import { IN_USE_RETRY_AFTER, type Claim, type IdempotencyKeeper } from '../domain/idempotency.js';
import { spooledPaths } from './multipart.js';
import { ErrorBody } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Accepts an `Idempotency-Key` header: a retry with the same key replays the first answer. */
    idempotent?: boolean;
  }
}

/**
 * Lower case as Node presents request headers: with a custom validator compiler (src/http/validation.ts)
 * Fastify does not lower-case header schemas, so a property `Idempotency-Key` would never be validated.
 */
const HEADER = 'idempotency-key';

/** The IETF draft's key is an opaque string; printable ASCII keeps it loggable and comparable byte for byte. */
const KeyHeader = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7E]+$',
  description:
    'Idempotency-Key (header names are case-insensitive): optional, 1 to 255 printable ASCII characters (a UUID is ' +
    'usual), scoped to the caller. The same key with the same request within 24 hours answers the first answer again ' +
    '(same status and body, header `Idempotent-Replayed: true`) without acting twice; with a different request (operation, ' +
    'path parameters or body; a file part by its bytes) 422 IDEMPOTENCY_KEY_REUSED; while the first request with the key ' +
    'is still running 409 IDEMPOTENCY_KEY_IN_USE with Retry-After. Successes and 4xx answers are kept; after a 5xx the ' +
    'key is free again. A malformed key is 400. Without the header the request is not deduplicated.',
});

const ROUTE_NOTE = ' Safe to retry with an `Idempotency-Key` header (see its description).';

/** Object keys sorted at every level, so that equal JSON bodies hash alike whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** A multipart body with each spooled file part stood in for by its name, type, size and the SHA-256 of its bytes. */
async function fingerprintBody(request: FastifyRequest): Promise<unknown> {
  const files = spooledPaths(request);
  const body = request.body;
  if (files.length === 0 || body === null || typeof body !== 'object') return body;
  const describe = async (value: unknown): Promise<unknown> => {
    if (Array.isArray(value)) return Promise.all(value.map(describe));
    const file = value as { path?: unknown; size?: unknown; filename?: unknown; mimetype?: unknown; sha256?: unknown } | null;
    if (file === null || typeof file !== 'object' || typeof file.path !== 'string' || !files.includes(file.path)) return value;
    // The spool hashed the bytes as they arrived (multipart.ts); reading the file again is for any other file.
    const sha256 = typeof file.sha256 === 'string' ? file.sha256 : await sha256OfFile(file.path);
    return { filename: file.filename, mimetype: file.mimetype, size: file.size, sha256 };
  };
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) out[name] = await describe(value);
  return out;
}

/** SHA-256 of method, route pattern, path params, query and body: what makes two requests "the same request". */
async function fingerprint(request: FastifyRequest): Promise<string> {
  const parts = {
    method: request.method,
    route: request.routeOptions.url,
    params: request.params,
    query: request.query,
    body: await fingerprintBody(request),
  };
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

/** The route's schema with the optional header, the two answers it adds and a note in the description. */
function documented(schema: FastifySchema): FastifySchema {
  const headers = (schema.headers ?? {}) as { properties?: Record<string, unknown> };
  const response = (schema.response ?? {}) as Record<string, unknown>;
  return {
    ...schema,
    description: `${schema.description ?? ''}${ROUTE_NOTE}`.trim(),
    headers: { type: 'object', ...headers, properties: { ...headers.properties, [HEADER]: KeyHeader } },
    response: { 409: ErrorBody, 422: ErrorBody, ...response },
  };
}

function withHook<T>(existing: T | T[] | undefined, hook: T): T[] {
  return [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]), hook];
}

/**
 * Idempotency-Key on the routes that declare `config: { idempotent: true }` (issue #10). The key is
 * claimed in a route-level preHandler, so after authentication, validation (a schema 400 claims
 * nothing) and every instance-level hook, just before the handler; the answer is kept in onSend.
 */
export function installIdempotency(app: FastifyInstance, service: IdempotencyKeeper): void {
  const claims = new WeakMap<FastifyRequest, Claim>();

  async function claimOrReplay(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const key = request.headers[HEADER];
    if (typeof key !== 'string') return undefined;
    const outcome = await service.begin(request.caller.id, key, await fingerprint(request));
    if (outcome.kind === 'claimed') {
      claims.set(request, outcome.claim);
    } else if (outcome.kind === 'in-use') {
      reply.header('retry-after', String(IN_USE_RETRY_AFTER));
      throw appError('IDEMPOTENCY_KEY_IN_USE');
    } else {
      const { answer } = outcome;
      if (answer.contentType) reply.header('content-type', answer.contentType);
      // Sent from the hook, so the handler does not run.
      return reply.code(answer.statusCode).header('idempotent-replayed', 'true').send(answer.body);
    }
    return undefined;
  }

  async function remember(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    const status = reply.statusCode;
    // 5xx: our failure, the client may retry. 429: a limit, not an answer of the handler.
    const keep = status < 500 && status !== 429 && (typeof payload === 'string' || Buffer.isBuffer(payload));
    try {
      if (keep) {
        const contentType = reply.getHeader('content-type');
        await service.finish(claim, { statusCode: status, contentType: typeof contentType === 'string' ? contentType : null, body: String(payload) });
      } else {
        await service.release(claim);
      }
    } catch (err) {
      // The handler has acted and its answer still goes out; the key stays claimed (409) until it counts as abandoned.
      request.log.error({ err }, 'could not record the Idempotency-Key answer');
    }
    return payload;
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.idempotent) return;
    route.schema = documented(route.schema ?? {});
    route.preHandler = withHook(route.preHandler, claimOrReplay);
    route.onSend = withHook(route.onSend, remember);
  });
}
