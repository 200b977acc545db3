import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { appError } from '../errors.js';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AppConfig } from '../config.js';
import { docsCsp } from './security-headers.js';
import { addFaultAnswers } from './openapi-fault-answers.js';
import { addFilePartEncodings } from './openapi-file-parts.js';
import { registerOperationIds } from './operation-ids.js';

/**
 * The tags of the operations, in the order /docs offers them. The whole document is 700 KB, which swagger-ui takes
 * seconds to resolve and render (issue #27: 25 s on a slow machine); /docs therefore loads one tag's document at a
 * time (`/openapi.json?tag=<name>`), chosen in its top bar. test/http.test.ts checks that every operation's tag is here.
 */
export const DOC_TAGS: readonly { name: string; description: string }[] = [
  { name: 'auth', description: 'Sign-in, registration, invitations to accept, the own account and its sessions' },
  { name: 'workspaces', description: 'Workspaces, members and invitations' },
  { name: 'assets', description: 'Assets: list, read, edit, move' },
  { name: 'folders', description: 'Folders' },
  { name: 'collections', description: 'Curated collections' },
  { name: 'fields', description: 'Custom metadata: the fields a workspace defines and their vocabularies (issue #30)' },
  { name: 'search', description: 'Typesense-style search with filters and facets' },
  { name: 'storage', description: 'Uploads (multipart, presigned parts) and downloads' },
  { name: 'versions', description: 'Version history of assets' },
  { name: 'trash', description: 'The trash' },
  { name: 'activity', description: 'The activity log' },
  { name: 'shared links', description: 'Managing shared links' },
  { name: 'shared links (public)', description: 'What a shared link opens, without an account' },
  { name: 'zip', description: 'ZIP downloads, listing and extraction' },
  { name: 'conversions', description: 'Image, video and audio conversions' },
  { name: 'image generation', description: 'AI image generation' },
  { name: 'image-proxy', description: 'The image proxy' },
  { name: 'drives', description: 'External drives: connect, browse, import, send' },
  { name: 'drive-ext-1', description: 'Google Drive' },
  { name: 'drive-ext-2', description: 'Dropbox' },
  { name: 'drive-ext-3', description: 'OneDrive' },
  { name: 'payments', description: 'Plans and billing' },
  { name: 'admin', description: 'Instance administration: accounts, registration mode, jobs' },
  { name: 'app-links', description: 'iOS universal links and Android App Links' },
  { name: 'phone-number', description: 'Phone number validation' },
  { name: 'general', description: 'Browser and system of a client' },
  { name: 'health', description: 'Health probes' },
];

/** The document with only the operations of one tag (each answer computed once: the document does not change). */
function documentOfTag(whole: Record<string, unknown>, tag: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, methods] of Object.entries(whole.paths as Record<string, Record<string, { tags?: string[] }>>)) {
    const kept = Object.fromEntries(Object.entries(methods).filter(([, op]) => op.tags?.includes(tag)));
    if (Object.keys(kept).length > 0) paths[path] = kept;
  }
  return { ...whole, tags: DOC_TAGS.filter((t) => t.name === tag), paths };
}

/** OpenAPI 3.1 built from the route schemas; served at /openapi.json (one tag's part with ?tag=), interactive docs at /docs. */
export async function registerOpenApi(app: FastifyInstance, config: AppConfig): Promise<void> {
  // Every operation's operationId, from one table (src/http/operation-ids.ts).
  registerOperationIds(app);
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
          'When the machine rather than the request fails, the answer says which, with Retry-After (seconds): 503 ' +
          'DATABASE_UNAVAILABLE (the database is restarting or unreachable), 503 STORAGE_UNAVAILABLE (the object store failed or ' +
          'stalled), 507 INSUFFICIENT_STORAGE (the disk is full; nothing was stored); each operation lists those it may meet. ' +
          'CORS is open: every answer allows any origin (`Access-Control-Allow-Origin: *`) and exposes ETag, ' +
          'Content-Disposition, Content-Range, Content-Length, Accept-Ranges, Retry-After, Idempotent-Replayed and X-Download-Grant; a preflight ' +
          '(OPTIONS with Origin and Access-Control-Request-Method) answers 204 with every method, the requested headers ' +
          'and a max age of a day, and an OPTIONS without those two headers answers 400 naming the missing one. The ' +
          "local store's part-upload URLs follow the bucket's CORS rules instead (POST /storage/updateBucketConfig). " +
          "Request headers over Node's limit (16 KiB in all by default) answer 431 `{error, message, statusCode}` before " +
          'any operation sees the request.',
        contact: { name: 'The operator of this instance', url: config.publicUrl },
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // This instance, at the URL its clients reach it at (DAM_PUBLIC_URL).
      servers: [{ url: config.publicUrl, description: 'This instance (DAM_PUBLIC_URL)' }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      },
      security: [{ bearerAuth: [] }],
      tags: [...DOC_TAGS],
    },
    // Paths stay as routed even when DAM_PUBLIC_URL has a path (the default would strip it from paths starting with it).
    stripBasePath: false,
    // File parts of multipart bodies get their `encoding` (./openapi-file-parts.ts); every operation its fault answers
    // (503, 507 with Retry-After: ./openapi-fault-answers.ts).
    transformObject: (document) =>
      'openapiObject' in document ? addFaultAnswers(addFilePartEncodings(document.openapiObject)) : document.swaggerObject,
  });
  // The interactive docs are public, like the document they render.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, public: true };
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      docExpansion: 'list',
      defaultModelsExpandDepth: -1,
      // The first is shown first.
      urls: DOC_TAGS.map((t) => ({ name: t.name, url: `/openapi.json?tag=${encodeURIComponent(t.name)}` })),
    },
    staticCSP: docsCsp(config),
  });
  const byTag = new Map<string, Record<string, unknown>>();
  app.get(
    '/openapi.json',
    { config: { public: true }, schema: { hide: true, querystring: Type.Object({ tag: Type.Optional(Type.String({ maxLength: 100 })) }) } },
    (request) => {
      const tag = (request.query as { tag?: string }).tag;
      const whole = app.swagger() as unknown as Record<string, unknown>;
      if (tag === undefined) return whole;
      if (!DOC_TAGS.some((t) => t.name === tag)) throw appError('NOT_FOUND', `No operations are tagged ${JSON.stringify(tag)}; the tags are ${DOC_TAGS.map((t) => t.name).join(', ')}`);
      let part = byTag.get(tag);
      if (!part) byTag.set(tag, (part = documentOfTag(whole, tag)));
      return part;
    },
  );
}
