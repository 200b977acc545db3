import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AppConfig } from '../config.js';
import { docsCsp } from './security-headers.js';

/** OpenAPI 3.1 built from the route schemas; served at /openapi.json, interactive docs at /docs. */
export async function registerOpenApi(app: FastifyInstance, config: AppConfig): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'DAM service',
        version: '0.1.0',
        description:
          'Self-hostable digital asset management. Errors answer `{error, code}` with a message naming the problem; ' +
          'an unexpected failure answers 500 `{error, stack}` (stack only when NODE_ENV=development). ' +
          'A resource of a workspace the caller is not a member of answers 404, never 403. ' +
          'Every operation that needs a token counts against a per-user rate limit (DAM_USER_RATE_LIMIT requests per ' +
          'DAM_USER_RATE_WINDOW seconds, default 1200 per 60): over it, 429 RATE_LIMITED with Retry-After (seconds) and a ' +
          'message naming the limit. Sign-in routes are limited per client address instead (see /auth/login). ' +
          'CORS is open: every answer allows any origin (`Access-Control-Allow-Origin: *`) and exposes ETag; a preflight ' +
          '(OPTIONS with Origin and Access-Control-Request-Method) answers 204 with every method, the requested headers ' +
          'and a max age of a day, and an OPTIONS without those two headers answers 400 naming the missing one. The ' +
          "local store's part-upload URLs follow the bucket's CORS rules instead (POST /storage/updateBucketConfig).",
      },
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
      security: [{ bearerAuth: [] }],
    },
  });
  // The interactive docs are public, like the document they render.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, public: true };
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' }, staticCSP: docsCsp(config) });
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, () => app.swagger());
}
