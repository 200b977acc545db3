import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SIGN_IN_LIMIT, type SignInLimits } from '../http/rate-limits.js';
import { Envelope, ErrorBody, PlainName, ok } from '../http/schemas.js';
import type { AuthService } from '../services/auth-service.js';
import { AuthResult } from '../contracts/auth.js';
import { sessionOrigin } from './session-origin.js';
import { Email, NewPassword as Password } from '../contracts/teams.js';
import { WorkspaceItem } from '../contracts/workspaces.js';
import { SMALL_BODY_LIMIT } from '../http/json-body.js';
import { AccountLocale } from '../contracts/locales.js';

/** The seed 2.4 user plus the account's own fields (issue #13). */
const AccountUser = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  name: Type.String(),
  phone: Type.Union([Type.String(), Type.Null()], { description: 'E.164 (e.g. +442079460958), or null when none is set' }),
  is_instance_admin: Type.Boolean({ description: 'May use /admin (issue #27)' }),
  must_change_password: Type.Boolean({ description: 'An admin set a temporary password: most requests answer 403 PASSWORD_CHANGE_REQUIRED until POST /auth/password' }),
  has_password: Type.Boolean({ description: 'false for an account that signs in with Google only: POST /auth/password then needs no current password' }),
  locale: AccountLocale,
});
const Me = Type.Object({ user: AccountUser, workspaces: Type.Array(WorkspaceItem) });

export const authRoutes: FastifyPluginAsyncTypebox<{ auth: AuthService; limits: SignInLimits }> = async (app, { auth, limits }) => {
  app.post(
    '/auth/register',
    {
      config: { public: true },
      // Issue #28: a small body, refused with 413 before it is read in full.
      bodyLimit: SMALL_BODY_LIMIT,
      // One count of failures per address with login and the social callback, before the body is read (src/http/rate-limits.ts).
      onRequest: limits.address,
      onResponse: limits.settle,
      schema: {
        tags: ['auth'],
        summary: 'Create an account',
        description:
          'Open while the instance has no user (the first becomes instance admin), then as the registration mode says ' +
          '(GET /auth/options): `open` to anyone, `domains` to e-mails of the listed domains; in `invite` and `closed` accounts come ' +
          'from invitations and instance admins (403 REGISTRATION_CLOSED, whose message says what to do). Until an admin sets the mode ' +
          'it is `open` with DAM_ALLOW_REGISTRATION=true, else `invite`. ' +
          'Every new user gets a personal workspace in which they are admin. ' +
          SIGN_IN_LIMIT,
        body: Type.Object({ email: Email, password: Password, name: PlainName(200) }),
        response: { 201: AuthResult, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody },
      },
    },
    async (request, reply) => {
      const result = await auth.register(request.body, sessionOrigin(request));
      return reply.status(201).send(result);
    },
  );

  app.post(
    '/auth/login',
    {
      config: { public: true },
      // Issue #28: a small body, refused with 413 before it is read in full.
      bodyLimit: SMALL_BODY_LIMIT,
      onRequest: limits.address,
      preHandler: limits.account,
      onResponse: limits.settle,
      schema: {
        tags: ['auth'],
        summary: 'Sign in with e-mail and password',
        description:
          `${SIGN_IN_LIMIT} Login also counts per account (its e-mail), whatever the address. ` +
          'A disabled account is answered 403 ACCOUNT_DISABLED (only after a right password).',
        body: Type.Object({ email: Email, password: Type.String({ minLength: 1, maxLength: 200 }) }),
        response: { 200: AuthResult, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
      },
    },
    (request) => auth.login(request.body.email, request.body.password, sessionOrigin(request)),
  );

  app.post(
    '/auth/logout',
    {
      config: { passwordChangeExempt: true },
      schema: {
        tags: ['auth'],
        summary: 'Revoke the current session; its token is refused from now on',
        description: "Ends the session of this request's token only; the account's other sessions go on (POST /auth/sessions/end-others ends them).",
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
      config: { passwordChangeExempt: true },
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
        summary: 'Change the current user\'s name, phone number or language',
        description:
          'Only the fields sent change. `phone` is validated like POST /phone-number/validate, without a country: ' +
          'write it with + and the country code (the web client sends the E.164 form it got from the validation). ' +
          'It is stored and answered in E.164; null removes it. A number that is not valid, or that has an extension ' +
          '(E.164 cannot hold one), is a 400 naming body.phone with a `reason` (TOO_SHORT, INVALID_COUNTRY, ..., HAS_EXTENSION). ' +
          '`locale` is the web client\'s language (en, de, fr, es; issue #29), null to follow the browser again; another value is a 400 ' +
          'VALIDATION_ERROR naming body.locale. Server messages stay in English whatever it is. ' +
          'Answers like GET /auth/me.',
        body: Type.Object({
          name: Type.Optional(PlainName(200)),
          phone: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'A phone number with its country code, or null' })),
          locale: Type.Optional(AccountLocale),
        }, { additionalProperties: false }),
        response: { 200: Me, 400: ErrorBody },
      },
    },
    (request) => auth.updateMe(request.caller, request.body),
  );
};
