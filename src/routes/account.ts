import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SignInLimits } from '../http/rate-limits.js';
import { Envelope, ErrorBody, HeadersTooLarge, ok } from '../http/schemas.js';
import type { AccountService } from '../services/account-service.js';
import { readRegistrationPolicy } from '../services/registration-policy.js';
import type { AppContext } from '../context.js';
import { AuthResult } from '../contracts/auth.js';
import { sessionOrigin } from './session-origin.js';
import { AuthOptions, Email, LinkToken, NewPassword, Session } from '../contracts/teams.js';
import { SMALL_BODY_LIMIT } from '../http/json-body.js';

const tags = ['auth'];

/** The user's own sign-in (issue #27, docs/features/teams.md "Own account"): password, sessions, forgotten passwords. */
export const accountRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountService; limits: SignInLimits; ctx: AppContext; mailEnabled: () => boolean }> = async (
  app,
  { accounts, limits, ctx, mailEnabled },
) => {
  app.get(
    '/auth/options',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'How accounts are made here, and whether a forgotten password can be reset by e-mail',
        description:
          'The registration mode an instance admin set (and its domains), and whether POST /auth/password-reset works ' +
          '(DAM_SMTP_URL is set): what the sign-in and registration pages offer. No token needed.',
        response: { 200: Envelope(AuthOptions), 431: HeadersTooLarge },
      },
    },
    async () => {
      const policy = await readRegistrationPolicy(ctx);
      return ok({ registration: policy.mode, registration_domains: policy.domains, password_reset: mailEnabled() });
    },
  );

  app.post(
    '/auth/password',
    {
      config: { passwordChangeExempt: true },
      // Issue #28: a small body, refused with 413 before it is read in full.
      bodyLimit: SMALL_BODY_LIMIT,
      onRequest: limits.address,
      onResponse: limits.settle,
      schema: {
        tags,
        summary: 'Change the password; every other session ends',
        description:
          '`current_password` is required when the account has one (400 naming it when missing or wrong); an account that signs in with ' +
          'Google only sets its first password without it. Clears a temporary password\'s must_change_password. Counted with the sign-in limit per address.',
        body: Type.Object({ current_password: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), new_password: NewPassword }, { additionalProperties: false }),
        response: { 200: Envelope(Type.Object({ changed: Type.Literal(true), ended_sessions: Type.Integer() })), 400: ErrorBody, 429: ErrorBody },
      },
    },
    async (req) => ok(await accounts.changePassword(req.caller, req.body)),
  );

  app.get(
    '/auth/sessions',
    {
      schema: {
        tags,
        summary: 'The signed-in sessions of the account, newest first',
        description:
          'Sessions neither ended nor expired (at most 1,000), newest first; `current` marks the session of this request. ' +
          'ip and device are those of the sign-in.',
        response: { 200: Envelope(Type.Array(Session)) },
      },
    },
    async (req) => ok(await accounts.sessions(req.caller)),
  );

  app.delete(
    '/auth/sessions/:sessionId',
    {
      schema: {
        tags,
        summary: 'End one session of the account (the current one: a logout)',
        description:
          'Its token is refused from then on. A session of another account, or one already ended, is 404 (the same answer ' +
          'as an unknown id).',
        params: Type.Object({ sessionId: Type.String({ format: 'uuid', maxLength: 36, description: 'A session id of GET /auth/sessions' }) }),
        response: { 200: Envelope(Type.Object({ id: Type.String() })), 404: ErrorBody },
      },
    },
    async (req) => {
      await accounts.endSession(req.caller, req.params.sessionId);
      return ok({ id: req.params.sessionId });
    },
  );

  app.post(
    '/auth/sessions/end-others',
    {
      schema: {
        tags,
        summary: 'End every session of the account but this one',
        description: "Their tokens are refused from then on; this request's session goes on. `ended`: how many sessions ended.",
        response: { 200: Envelope(Type.Object({ ended: Type.Integer() })) },
      },
    },
    async (req) => ok({ ended: await accounts.endOtherSessions(req.caller) }),
  );

  app.post(
    '/auth/password-reset',
    {
      config: { public: true },
      // Issue #28: a small body, refused with 413 before it is read in full.
      bodyLimit: SMALL_BODY_LIMIT,
      // Every request counts (it answers the same whether or not a mail was sent): no settle.
      onRequest: limits.address,
      preHandler: limits.mailbox,
      schema: {
        tags,
        summary: 'E-mail a single-use link that resets a forgotten password',
        description:
          'Always 202 whether or not the e-mail has an account (the mail, if any, is sent after the answer). The link is valid an hour; ' +
          'earlier links of the account stop working. Needs DAM_SMTP_URL: without it 404 PASSWORD_RESET_UNAVAILABLE (an admin makes a link ' +
          'instead). Counted with the sign-in limits per address and per e-mail.',
        body: Type.Object({ email: Email }),
        response: { 202: Envelope(Type.Object({ accepted: Type.Literal(true) })), 400: ErrorBody, 404: ErrorBody, 429: ErrorBody },
      },
    },
    async (req, reply) => {
      accounts.requestReset(req.body.email);
      return reply.status(202).send(ok({ accepted: true as const }));
    },
  );

  app.get(
    '/auth/password-reset',
    {
      config: { public: true },
      onRequest: limits.address,
      onResponse: limits.settle,
      schema: {
        tags,
        summary: 'What a password link is for: the account\'s e-mail, reset or first setup, and its expiry',
        description: '410 LINK_INVALID when the link is unknown, used or expired.',
        querystring: Type.Object({ token: LinkToken }),
        response: {
          200: Envelope(Type.Object({ email: Type.String(), purpose: Type.Union([Type.Literal('reset'), Type.Literal('setup')]), expires_at: Type.Integer() })),
          400: ErrorBody,
          410: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (req) => ok(await accounts.describeLink(req.query.token)),
  );

  app.post(
    '/auth/password-reset/confirm',
    {
      config: { public: true },
      // Issue #28: a small body, refused with 413 before it is read in full.
      bodyLimit: SMALL_BODY_LIMIT,
      onRequest: limits.address,
      onResponse: limits.settle,
      schema: {
        tags,
        summary: 'Set the password through a link, end every session of the account, and sign in',
        description: 'The link is used up. 410 LINK_INVALID when it is unknown, used or expired.',
        body: Type.Object({ token: LinkToken, password: NewPassword }),
        response: { 200: AuthResult, 400: ErrorBody, 410: ErrorBody, 429: ErrorBody },
      },
    },
    async (req) => accounts.confirmReset(req.body.token, req.body.password, sessionOrigin(req)),
  );
};
