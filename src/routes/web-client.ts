import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** web/dist of this checkout: from src/routes/ under vitest and from dist/routes/ in production alike. */
export const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'web', 'dist');

const NOT_BUILT =
  '<!doctype html><meta charset="utf-8"><title>DAM</title>' +
  '<p>The web client is not built. Run <code>npm run build</code> (or <code>npm start</code>, which builds it).</p>';

/**
 * First path segments of the client's pages (web/src/router.ts): index.html whatever the Accept header.
 * `s`: the public page of a shared link, /s/{key} (issue #14).
 */
const CLIENT_ROUTES = new Set(['', 'login', 'register', 'social-login', 'library', 'asset', 'settings', 's', 'invite', 'forgot-password', 'reset-password']);

function firstSegment(url: string): string {
  return url.replace(/^\/+/, '').split(/[/?]/, 1)[0] ?? '';
}

function safeDecode(pathname: string): string | undefined {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
}

/**
 * Serves the web client (web/dist) at `/` with an SPA fallback: a GET of one
 * of the client's pages (/library, /social-login?access_token=..., ...) answers
 * index.html, and so does any other path without a file extension that a
 * browser navigates to (Accept: text/html), so the client shows its own
 * "not found" page. Other clients get the API's JSON 404 there.
 *
 * The fallback never shadows the API: every route registered on the app adds
 * its first path segment (auth, dam, storage, docs, openapi.json, ...) to a
 * reserved set, and an unmatched GET under a reserved segment gets the API's
 * JSON 404. Must be called before the API routes are registered, so that the
 * onRoute hook sees them all.
 */
export async function registerWebClient(
  app: FastifyInstance,
  options: { webDir?: string; pageHeaders?: Readonly<Record<string, string>> } = {},
): Promise<void> {
  const root = options.webDir ?? DEFAULT_WEB_DIR;
  const reserved = new Set<string>();
  app.addHook('onRoute', (route) => {
    const segment = firstSegment(route.url);
    if (segment !== '' && !segment.startsWith('*') && !segment.startsWith(':')) reserved.add(segment);
  });

  await app.register(async (scope) => {
    const built = existsSync(path.join(root, 'index.html'));
    if (built) await scope.register(fastifyStatic, { root, serve: false, cacheControl: false });

    const serve = async (request: FastifyRequest, reply: FastifyReply) => {
      const pathname = request.url.split('?', 1)[0] ?? '/';
      if (reserved.has(firstSegment(pathname))) return reply.callNotFound();
      // The client's own Content-Security-Policy and the headers of rendered documents (http/security-headers.ts).
      if (options.pageHeaders) reply.headers(options.pageHeaders);
      const last = pathname.slice(pathname.lastIndexOf('/') + 1);
      if (last.includes('.')) {
        const file = safeDecode(pathname)?.replace(/^\/+/, '');
        if (!built || !file || file.split(/[\\/]/).includes('..')) return reply.callNotFound();
        // Vite puts content-hashed files under assets/: they never change under their name.
        const immutable = pathname.startsWith('/assets/');
        reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        return reply.sendFile(file);
      }
      const segment = firstSegment(pathname);
      if (!CLIENT_ROUTES.has(segment) && !String(request.headers.accept ?? '').includes('text/html')) return reply.callNotFound();
      // The client's pages may carry a provider token in the URL (/social-login): never send it on as a Referer.
      reply.header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache');
      // A shared link's page is meant for the people given its key, not for search engines.
      if (segment === 's' || segment === 'invite' || segment === 'reset-password') reply.header('x-robots-tag', 'noindex, nofollow');
      if (!built) return reply.status(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      return reply.sendFile('index.html');
    };

    const routeOptions = { config: { public: true }, schema: { hide: true } };
    scope.get('/', routeOptions, serve);
    scope.get('/*', routeOptions, serve);
  });
}
