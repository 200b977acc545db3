import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config.js';
import { appError } from '../errors.js';
import { ErrorBody } from './schemas.js';
import type { CountingStore } from './rate-limit-store.js';

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;
/** Counts the request; over the limit throws 429 RATE_LIMITED (after setting Retry-After). */
export type LimitCheck = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * One counter of @fastify/rate-limit (an in-process store of its own) as a check.
 * `createRateLimit` is used rather than `rateLimit` handlers: a handler runs at most once
 * per request (the plugin marks the request), so a second limit on a route would be skipped.
 */
export function limitCheck(limiter: Limiter, what: string): LimitCheck {
  return async (request, reply) => {
    const result = await limiter(request);
    // `isAllowed` only reports the allow list (none here); `isExceeded` is the limit.
    if (result.isAllowed || !result.isExceeded) return;
    throw overLimit(reply, what, result.max, result.timeWindow, result.ttl);
  };
}

/** The 429 of a counter over its limit, with Retry-After set on the reply. */
function overLimit(reply: FastifyReply, what: string, max: number, windowMs: number, ttlMs: number): Error {
  const retry = Math.ceil(ttlMs / 1000);
  reply.header('retry-after', String(retry));
  return appError('RATE_LIMITED', `${what}: the limit is ${max} per ${Math.round(windowMs / 1000)} s; retry in ${retry} s`);
}

/** OpenAPI text of the sign-in routes. */
export const SIGN_IN_LIMIT =
  'Sign-in attempts are limited per client address (DAM_LOGIN_RATE_LIMIT per DAM_LOGIN_RATE_WINDOW) with ONE count ' +
  'shared by login, registration and the social-login callback: over it, 429 RATE_LIMITED with Retry-After.';

export interface SignInLimits {
  /** Per client address, ONE count shared by login, registration and the social-login callback. */
  address: LimitCheck;
  /** Per account: the e-mail of a login body, whatever the address. */
  account: LimitCheck;
}

/**
 * The sign-in limits (DAM_LOGIN_RATE_LIMIT per DAM_LOGIN_RATE_WINDOW). Created once per app and
 * handed to the auth and social-auth routes, so that blocking an address on one entry point
 * blocks it on the others (a limiter per route would count each route apart).
 */
export function signInLimits(app: FastifyInstance, config: AppConfig): SignInLimits {
  const options = { max: config.loginRateLimit, timeWindow: config.loginRateWindowMs };
  return {
    address: limitCheck(app.createRateLimit({ ...options, keyGenerator: (req) => `ip:${req.ip}` }), 'Too many sign-in attempts from this address'),
    account: limitCheck(
      app.createRateLimit({ ...options, keyGenerator: (req) => `account:${String((req.body as { email?: unknown })?.email).toLowerCase()}` }),
      'Too many sign-in attempts for this account',
    ),
  };
}

/**
 * DAM_USER_RATE_LIMIT requests per DAM_USER_RATE_WINDOW per authenticated user, on every route
 * not marked `config.public`. An onRequest hook installed after the auth hook (hooks run in
 * the order they are added), so `request.caller` is known and a refused request is answered
 * before its body is read. Public routes are not counted: the presigned part PUTs
 * (/storage/parts/...) are bounded by their signature instead, one URL per part, each minted
 * by get-upload-url, which this limit counts. Authenticated operations document the 429.
 */
export function installUserRateLimit(app: FastifyInstance, config: AppConfig, store: CountingStore): void {
  const max = config.userRateLimit;
  const window = config.userRateWindowMs;

  app.addHook('onRoute', (route) => {
    const schema = route.schema;
    if (route.config?.public || !schema?.response || schema.hide) return;
    const response = schema.response as Record<string, unknown>;
    if (!('429' in response)) route.schema = { ...schema, response: { ...response, 429: ErrorBody } };
  });

  // Counted straight in the store, callback style: the plugin's limiter wrapper cost every authenticated
  // request a few promises for a count the memory store answers at once (issue #18).
  app.addHook('onRequest', (request, reply, done) => {
    // Public routes, and signed-URL requests of routes that also take a token, have no caller to count.
    if (request.is404 || request.routeOptions.config.public || !request.caller) return done();
    store.incr(
      `user:${request.caller.id}`,
      (error, result) => {
        if (error || !result) return done(error ?? undefined);
        done(result.current > max ? overLimit(reply, 'Too many requests for this user', max, window, result.ttl) : undefined);
      },
      window,
      max,
    );
  });
}
