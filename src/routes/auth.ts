import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SIGN_IN_LIMIT, type SignInLimits } from '../http/rate-limits.js';
import { Envelope, ErrorBody, PlainName, ok } from '../http/schemas.js';
import type { AuthService } from '../services/auth-service.js';
import { UserSchema, WorkspaceItem } from './workspace-schemas.js';

const Email = Type.String({ format: 'email', maxLength: 254 });
const Password = Type.String({ minLength: 8, maxLength: 200 });

const AuthResult = Type.Object({ user: UserSchema, token: Type.String(), workspaces: Type.Array(WorkspaceItem) });

/** The seed 2.4 user plus the account's own fields (issue #13). */
const AccountUser = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  phone: Type.Union([Type.String(), Type.Null()], { description: 'E.164 (e.g. +442079460958), or null when none is set' }),
});
const Me = Type.Object({ user: AccountUser, workspaces: Type.Array(WorkspaceItem) });

export const authRoutes: FastifyPluginAsyncTypebox<{ auth: AuthService; limits: SignInLimits }> = async (app, { auth, limits }) => {
  app.post(
    '/auth/register',
    {
      config: { public: true },
      // One count per address with login and the social callback (src/http/rate-limits.ts).
      preHandler: limits.address,
      schema: {
        tags: ['auth'],
        summary: 'Create an account',
        description:
          'Open while the instance has no user (the first becomes instance admin) or when DAM_ALLOW_REGISTRATION=true. ' +
          'Every new user gets a personal workspace in which they are admin. ' +
          SIGN_IN_LIMIT,
        body: Type.Object({ email: Email, password: Password, name: PlainName(200) }),
        response: { 201: AuthResult, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody },
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
      preHandler: [limits.address, limits.account],
      schema: {
        tags: ['auth'],
        summary: 'Sign in with e-mail and password',
        description: `${SIGN_IN_LIMIT} Login also counts per account (its e-mail), whatever the address.`,
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
        description: 'The user object carries the account\'s phone number (E.164, or null) besides id, e-mail and name.',
        response: { 200: Me },
      },
    },
    (request) => auth.me(request.caller),
  );

  app.patch(
    '/auth/me',
    {
      schema: {
        tags: ['auth'],
        summary: 'Change the current user\'s name or phone number',
        description:
          'Only the fields sent change. `phone` is validated like POST /phone-number/validate, without a country: ' +
          'write it with + and the country code (the web client sends the E.164 form it got from the validation). ' +
          'It is stored and answered in E.164; null removes it. A number that is not valid, or that has an extension ' +
          '(E.164 cannot hold one), is a 400 naming body.phone with a `reason` (TOO_SHORT, INVALID_COUNTRY, ..., HAS_EXTENSION). ' +
          'Answers like GET /auth/me.',
        body: Type.Object({
          name: Type.Optional(PlainName(200)),
          phone: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'A phone number with its country code, or null' })),
        }, { additionalProperties: false }),
        response: { 200: Me, 400: ErrorBody },
      },
    },
    (request) => auth.updateMe(request.caller, request.body),
  );
};
