import { sessionOrigin } from './session-origin.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SIGN_IN_LIMIT, type SignInLimits } from '../http/rate-limits.js';
import { Envelope, ErrorBody, HeadersTooLarge, ok } from '../http/schemas.js';
import type { SocialAuthService } from '../services/social-auth-service.js';
import { UserSchema, WorkspaceItem } from '../contracts/workspaces.js';
import { SMALL_BODY_LIMIT } from '../http/json-body.js';

const Provider = Type.Literal('google', { description: 'The identity provider; one is supported' });
const AuthResult = Type.Object({ user: UserSchema, token: Type.String(), workspaces: Type.Array(WorkspaceItem) });
const SocialConfig = Type.Object({
  provider: Provider,
  client_id: Type.Union([Type.String(), Type.Null()], { description: 'null: social login is not configured' }),
  authorize_url: Type.Union([Type.String(), Type.Null()], {
    description:
      "The provider's sign-in URL (OAuth 2.0 implicit flow) with client_id, redirect_uri ({DAM_PUBLIC_URL}/social-login), " +
      'response_type=token and scope; the client appends its own `state`. null: not configured.',
  }),
  registration_open: Type.Boolean({ description: 'New accounts may be created (register, or a first social sign-in)' }),
});

/** seed 4.4: the social-login callback, and what a client needs to start the provider's sign-in. */
export const socialAuthRoutes: FastifyPluginAsyncTypebox<{ social: SocialAuthService; limits: SignInLimits }> = async (
  app,
  { social, limits },
) => {
  const tags = ['auth'];

  app.get(
    '/auth/social/config',
    {
      config: { public: true },
      schema: {
        tags,
        summary: 'How to start social sign-in, and whether registration is open',
        description:
          'What the sign-in page needs before any account exists: the provider, its client id and sign-in URL (both null when ' +
          'DAM_SOCIAL_GOOGLE_CLIENT_ID is not set), and whether new accounts may be made (registration mode open or domains, ' +
          'or no account exists yet). No token needed.',
        response: { 200: Envelope(SocialConfig), 431: HeadersTooLarge },
      },
    },
    async () => ok(await social.config()),
  );

  app.post(
    '/auth/social/callback',
    {
      config: { public: true },
      // One count per address with login and registration (src/http/rate-limits.ts).
      // Issue #28: a small body, refused with 413 before it is read in full.
      bodyLimit: SMALL_BODY_LIMIT,
      onRequest: limits.address,
      onResponse: limits.settle,
      schema: {
        tags,
        summary: "Exchange an identity provider's access token for a session",
        description:
          'The token is checked with the provider (Google tokeninfo: unexpired, issued to DAM_SOCIAL_GOOGLE_CLIENT_ID; then ' +
          'userinfo). The user is found by the provider account; else a verified e-mail of an existing account links to it; ' +
          'else a user is created with a personal workspace (only while registration is open, as for /auth/register). ' +
          'A provider token is accepted once: again, 401. Invalid, expired or wrong-audience token: 401 ' +
          'SOCIAL_TOKEN_INVALID. Unverified e-mail: 403. Provider unreachable: 502 PROVIDER_ERROR. ' +
          SIGN_IN_LIMIT,
        body: Type.Object({
          // Issue #28: single use is keyed on the exact string, so " tok" or "tok\n" must not pass as new tokens.
          access_token: Type.String({
            minLength: 1,
            maxLength: 4096,
            pattern: '^[A-Za-z0-9._~+/=-]+$',
            description: 'An OAuth 2.0 access token (RFC 6750 b64token alphabet: letters, digits and -._~+/=; no spaces)',
            examples: ['ya29.a0AfH6SMBx'],
          }),
          provider: Provider,
        }),
        response: { 200: AuthResult, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody, 502: ErrorBody },
      },
    },
    (request) => social.callback(request.body, sessionOrigin(request)),
  );
};
