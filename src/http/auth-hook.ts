import type { FastifyInstance } from 'fastify';
import { appError } from '../errors.js';
import type { Caller } from '../domain/caller.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated user; set on every route not marked `config.public`. */
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** Exempt from the bearer token (health, docs, auth entry points, presigned URLs). */
    public?: boolean;
    /**
     * A bearer token OR a signed URL: a request with a `signature` query parameter is let through
     * without a token (and without `request.caller`); the route checks the signature (image proxy).
     */
    signedUrl?: boolean;
    /** Answered to a caller who must change a temporary password first (issue #27); every other route is refused. */
    passwordChangeExempt?: boolean;
  }
}

function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/**
 * seed 5.1: `Authorization: Bearer <token>` is required everywhere except the
 * routes that declare `config: { public: true }`. Unknown routes fall through
 * to the 404 handler untouched. Public routes also get `security: []` in the
 * OpenAPI document, so the document and the behaviour cannot drift apart.
 */
/** What the hook needs of the auth service (services/auth-service.ts): a bearer token to its caller, or an error. */
export interface Authenticator {
  authenticate(token: string): Promise<Caller>;
}

export function installAuthHook(app: FastifyInstance, auth: Authenticator): void {
  app.decorateRequest('caller', null as unknown as Caller);

  app.addHook('onRoute', (route) => {
    if (route.config?.public) route.schema = { ...route.schema, security: [] };
    // OpenAPI: either the bearer token or nothing (the signature is a query parameter of the operation).
    else if (route.config?.signedUrl) route.schema = { ...route.schema, security: [{ bearerAuth: [] }, {}] };
  });

  app.addHook('onRequest', async (request) => {
    if (request.is404 || request.routeOptions.config.public) return;
    if (request.routeOptions.config.signedUrl && (request.query as { signature?: unknown }).signature !== undefined) return;
    const token = bearerToken(request.headers.authorization);
    if (!token) throw appError('UNAUTHORIZED', 'Missing header Authorization: Bearer <token>');
    request.caller = await auth.authenticate(token);
    if (request.caller.mustChangePassword && !request.routeOptions.config.passwordChangeExempt) throw appError('PASSWORD_CHANGE_REQUIRED');
  });
}
