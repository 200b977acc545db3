import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppConfig } from '../config.js';
import { appError } from '../errors.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import type { AuthService } from '../services/auth-service.js';
import { UserSchema, WorkspaceItem } from './workspace-schemas.js';

const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ minLength: 8, maxLength: 200 });

const AuthResult = Type.Object({ user: UserSchema, token: Type.String(), workspaces: Type.Array(WorkspaceItem) });

export const authRoutes: FastifyPluginAsyncTypebox<{ auth: AuthService; config: AppConfig }> = async (app, { auth, config }) => {
  // Login is limited per client address and per account; the store is in-process
  // (several API processes each keep their own count).
  const ipRateLimit = () =>
    app.rateLimit({
      max: config.loginRateLimit,
      timeWindow: config.loginRateWindowMs,
      keyGenerator: (req) => `ip:${req.ip}`,
      errorResponseBuilder: () => appError('RATE_LIMITED', 'Too many login attempts, try again later'),
    });
  // A `rateLimit` handler runs at most once per request (the plugin marks the request),
  // so a second one on the same route is silently skipped: the per-account limit is
  // counted with `createRateLimit`, which has no such guard.
  const accountLimiter = app.createRateLimit({
    max: config.loginRateLimit,
    timeWindow: config.loginRateWindowMs,
    keyGenerator: (req) => `account:${String((req.body as { email?: unknown })?.email).toLowerCase()}`,
  });
  const accountRateLimit = async (request: FastifyRequest): Promise<void> => {
    const result = await accountLimiter(request);
    // `isAllowed` only reports the allow list; `isExceeded` is the limit.
    if (!result.isAllowed && result.isExceeded) throw appError('RATE_LIMITED', 'Too many login attempts, try again later');
  };

  app.post(
    '/auth/register',
    {
      config: { public: true },
      preHandler: ipRateLimit(),
      schema: {
        tags: ['auth'],
        summary: 'Create an account',
        description:
          'Open while the instance has no user (the first becomes instance admin) or when DAM_ALLOW_REGISTRATION=true. ' +
          'Every new user gets a personal workspace in which they are admin.',
        body: Type.Object({ email: Email, password: Password, name: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 201: AuthResult, 403: ErrorBody, 409: ErrorBody },
      },
    },
    async (request, reply) => {
      const result = await auth.register(request.body);
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/auth/login',
    {
      config: { public: true },
      preHandler: [ipRateLimit(), accountRateLimit],
      schema: {
        tags: ['auth'],
        summary: 'Sign in with e-mail and password',
        body: Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: AuthResult, 401: ErrorBody, 429: ErrorBody },
      },
    },
    (request) => auth.login(request.body.email, request.body.password),
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        tags: ['auth'],
        summary: 'Revoke the current session; its token is refused from now on',
        response: { 200: Envelope(Type.Object({ logged_out: Type.Literal(true) })) },
      },
    },
    async (request) => {
      await auth.logout(request.caller);
      return ok({ logged_out: true as const });
    },
  );

  app.get(
    '/auth/me',
    {
      schema: {
        tags: ['auth'],
        summary: 'The current user and their workspaces',
        response: { 200: Type.Object({ user: UserSchema, workspaces: Type.Array(WorkspaceItem) }) },
      },
    },
    (request) => auth.me(request.caller),
  );
};
