import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config.js';
import { appError } from '../errors.js';
import { addressKey } from '../domain/client-address.js';
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
  'Failed sign-in attempts are limited per client address (an IPv6 address counts by its /64): DAM_LOGIN_RATE_LIMIT per ' +
  'DAM_LOGIN_RATE_WINDOW, ONE count shared by login, registration, the social-login callback, password and invitation ' +
  'forms; successful attempts do not count. All attempts, successful or not, are limited to ten times as many. Over either, ' +
  '429 RATE_LIMITED with Retry-After, before the body is read.';

/**
 * Answers that mean a failed attempt: a wrong password (401, or 400 for a wrong current password), an unknown
 * or spent token (404, 410), a refused e-mail (403, 409), and malformed or oversized attempts. Successes,
 * 429s and server failures are refunded.
 */
const FAILED = new Set([400, 401, 403, 404, 409, 410, 413, 422]);

/** The longest a sign-in of an account under attack is held back. */
const MAX_ACCOUNT_DELAY_MS = 5000;

export interface SignInLimits {
  /**
   * onRequest (before the body is read, issue #28): counts the attempt against its address, among all attempts
   * (10 x DAM_LOGIN_RATE_LIMIT) and as a presumed failure (DAM_LOGIN_RATE_LIMIT); refuses with 429 over either.
   */
  address: LimitCheck;
  /** onResponse: an attempt that did not fail is taken back from the failures it was presumed to be. */
  settle: LimitCheck;
  /**
   * preHandler of login: failures per account (its e-mail, from any address) never refuse, which would let anyone
   * who knows an e-mail keep its owner out; past DAM_LOGIN_RATE_LIMIT they slow each further attempt on the
   * account down, doubling from 250 ms up to 5 s (issue #28).
   */
  account: LimitCheck;
  /** preHandler of a password-reset request: every request per mailbox counts (each may send an e-mail). */
  mailbox: LimitCheck;
}

const count = (store: CountingStore, key: string, windowMs: number, max: number) =>
  new Promise<{ current: number; ttl: number }>((resolve, reject) =>
    store.incr(key, (err, result) => (err || !result ? reject(err ?? new Error('no count')) : resolve(result)), windowMs, max),
  );

declare module 'fastify' {
  interface FastifyRequest {
    /** The sign-in counters this request was presumed to fail under (rate-limits.ts). */
    signInFailureKeys?: string[];
  }
}

/**
 * The sign-in limits (issue #28). Failures are counted when an attempt begins and refunded when it ends
 * without failing, so that parallel guesses cannot all pass before any is counted, while an office behind one
 * NAT, signing in successfully all morning, is never locked out. Created once per app and handed to every
 * route that checks a secret, so that blocking an address on one blocks it on the others.
 */
export function signInLimits(app: FastifyInstance, config: AppConfig, store: CountingStore): SignInLimits {
  const max = config.loginRateLimit;
  const windowMs = config.loginRateWindowMs;
  const presume = (request: FastifyRequest, key: string) => {
    (request.signInFailureKeys ??= []).push(key);
  };
  const mailboxLimiter = app.createRateLimit({
    max,
    timeWindow: windowMs,
    keyGenerator: (req) => `mailbox:${String((req.body as { email?: unknown })?.email).toLowerCase()}`,
  });
  return {
    address: async (request, reply) => {
      const network = addressKey(request.ip);
      const all = await count(store, `ip-all:${network}`, windowMs, max * 10);
      if (all.current > max * 10) throw overLimit(reply, 'Too many sign-in attempts from this address', max * 10, windowMs, all.ttl);
      const failures = await count(store, `ip-fail:${network}`, windowMs, max);
      presume(request, `ip-fail:${network}`);
      if (failures.current > max) throw overLimit(reply, 'Too many failed sign-in attempts from this address', max, windowMs, failures.ttl);
    },
    settle: async (request, reply) => {
      if (FAILED.has(reply.statusCode) || !request.signInFailureKeys) return;
      await Promise.all(request.signInFailureKeys.map((key) => store.refund(key)));
    },
    account: async (request) => {
      const email = String((request.body as { email?: unknown })?.email).toLowerCase();
      const failures = await count(store, `account-fail:${email}`, windowMs, max);
      presume(request, `account-fail:${email}`);
      if (failures.current <= max) return;
      const delay = Math.min(MAX_ACCOUNT_DELAY_MS, 250 * 2 ** Math.min(10, failures.current - max - 1));
      await new Promise((resolve) => setTimeout(resolve, delay));
    },
    mailbox: limitCheck(mailboxLimiter, 'Too many password-reset requests for this e-mail'),
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
