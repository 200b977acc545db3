import { FAULT_ANSWERS } from '../faults/classify.js';

/*
 * Issue #37: any operation may meet a fault of the machine rather than of the request, answered with its own code and
 * Retry-After (src/faults/classify.ts, src/http/error-handler.ts): 503 DATABASE_UNAVAILABLE, 503 STORAGE_UNAVAILABLE
 * and 507 INSUFFICIENT_STORAGE. They are documented here, once for the whole document (transformObject), as shared
 * responses every operation refers to, rather than in each route's schema.
 */

/** Operations that touch neither the database nor the store: probes, and answers made of config and code only. */
const NEITHER = new Set([
  'get /healthz',
  // Its own 503 names the failing check.
  'get /readyz',
  'get /api/browser-os',
  'get /media/icons/{file}',
  'get /.well-known/apple-app-site-association',
  'get /ios-association',
  'get /.well-known/assetlinks.json',
]);

/** Tags whose operations read or write the object store or the upload spool (uploads, downloads, versions, ZIPs). */
const STORE_TAGS = new Set(['storage', 'versions', 'zip']);

/** Other operations that read or write the store: downloads of shared links, sending a file to a drive. */
const STORE_OPERATIONS = [/^get \/shared\/public\/\{key\}\/(assets\/\{assetId\}\/download|zip)$/, /^post \/drive-ext-\d+\/upload$/];

const errorContent = {
  'application/json': {
    schema: {
      type: 'object',
      required: ['error', 'code'],
      properties: { error: { type: 'string' }, code: { type: 'string' } },
      additionalProperties: true,
    },
  },
};

const retryAfter = { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } };
const seconds = (fault: keyof typeof FAULT_ANSWERS) => FAULT_ANSWERS[fault].retryAfter;

const DATABASE =
  `\`DATABASE_UNAVAILABLE\`: the database is restarting, failing over or unreachable (Retry-After: ${seconds('database_unavailable')} s). ` +
  'Retry after Retry-After; repeat a POST with the same Idempotency-Key, so that it takes effect once even if the database failed ' +
  'just as it committed.';
const STORE =
  `\`STORAGE_UNAVAILABLE\`: the object store failed (5xx, SlowDown) or did not answer in time (Retry-After: ${seconds('storage_unavailable')} s). ` +
  'No object is half written and no upload is reported complete unless the store said so. Retry after Retry-After.';

/** The shared parts: one 503 for the database alone, one for the database or the store, the 507, the header. */
const COMPONENTS = {
  headers: {
    RetryAfter: {
      description: 'Seconds to wait before trying again',
      schema: { type: 'integer', minimum: 0 },
    },
  },
  responses: {
    DatabaseUnavailable: { description: DATABASE, headers: retryAfter, content: errorContent },
    ServiceUnavailable: { description: `${DATABASE} Or ${STORE}`, headers: retryAfter, content: errorContent },
    InsufficientStorage: {
      description:
        `\`INSUFFICIENT_STORAGE\`: the disk is full (Retry-After: ${seconds('disk_full')} s): the upload spool, the local store or, on ` +
        "SQLite, the database's disk. Nothing was stored: no partial object, no version, the quota charge released. Retry once space " +
        'is freed; the operator sees it on GET /readyz and GET /metrics (dam_disk_free_bytes).',
      headers: retryAfter,
      content: errorContent,
    },
  },
};

type Operation = { tags?: string[]; responses?: Record<string, unknown> };

function touchesStore(key: string, op: Operation): boolean {
  return (op.tags ?? []).some((t) => STORE_TAGS.has(t)) || STORE_OPERATIONS.some((re) => re.test(key));
}

/**
 * Adds the fault answers to every operation but those in NEITHER: 503 (the database, and for the operations that use
 * the store the store too) and 507 for those that write (any write on SQLite writes its disk) or use the store. An
 * operation that documents a 503 or 507 of its own (the S3-style part upload) keeps it.
 */
export function addFaultAnswers<D>(document: D): D {
  const doc = document as { paths?: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>> };
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(operations)) {
      const key = `${method} ${path}`;
      if (NEITHER.has(key) || !op.responses) continue;
      const store = touchesStore(key, op);
      op.responses['503'] ??= { $ref: `#/components/responses/${store ? 'ServiceUnavailable' : 'DatabaseUnavailable'}` };
      if (store || method !== 'get') op.responses['507'] ??= { $ref: '#/components/responses/InsufficientStorage' };
    }
  }
  doc.components ??= {};
  for (const [kind, entries] of Object.entries(COMPONENTS)) doc.components[kind] = { ...doc.components[kind], ...entries };
  return document;
}
