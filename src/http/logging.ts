import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';

/**
 * Query parameters whose values are logged (issue #28: an allow-list; any other parameter's value is
 * redacted, so a `?jwt=` or `?auth=` nobody thought of never reaches a log line). These are the API's
 * non-secret parameters (test/logging-redaction.test.ts checks every query parameter of the OpenAPI
 * document is either here or in SECRET_PARAMS) and the web client's library state (web/src/search/filters.ts).
 */
export const LOGGED_PARAMS = new Set([
  // The API's.
  'partnumber', 'uploadid', 'assetid', 'asset_id', 'asset_ids', 'before', 'collection_id', 'cursor', 'embed_metadata', 'error',
  'error_description', 'error_uri', 'expires', 'fileid', 'filename', 'filesize', 'filetype', 'filter_by', 'folder', 'folderid',
  'folder_id', 'format', 'grant', 'h', 'iss', 'key', 'limit', 'page', 'parent_id', 'path', 'per_page', 'permanent', 'q',
  'recursive', 'return_to', 'scope', 'sort_by', 'status', 'transfer_to', 'url', 'user_id', 'w', 'workspaceid', 'tag',
  // Custom fields (issue #30): include_retired is a flag; confirm is the field's key (DELETE /dam/fields/:id), no secret.
  'include_retired', 'confirm',
  // Presigned object-store URLs' harmless parts.
  'x-amz-algorithm', 'x-amz-date', 'x-amz-expires', 'x-amz-signedheaders', 'x-id',
  // The web client's pages.
  'ws', 'type', 'tags', 'orientation', 'visibility', 'since', 'taken_from', 'taken_to', 'camera', 'creator', 'sort',
  'subfolders', 'collection', 'redirect', 'expired', 'checkout', 'session_id',
]);

/** Query parameters known to be secret (tokens, signatures); redacted like every parameter not in LOGGED_PARAMS. */
export const SECRET_PARAMS = /^(access_token|token|signature|sig|x-amz-signature|x-amz-credential|x-amz-security-token|code|state|st)$/i;

/**
 * Paths whose next segment is a secret that opens something: a shared link's key (issue #14) and an invitation's
 * token (issue #27), on the web page and the public API.
 */
const SHARE_KEY_PATH = /^(\/s\/|\/shared\/public\/|\/invite\/|\/invitations\/)[^/?#]+/;

/** Query parameters that carry a whole outside URL (the image proxy's): logged without that URL's query and fragment. */
const URL_PARAMS = /^url$/i;

export function redactUrl(rawUrl: string): string {
  const url = rawUrl.replace(SHARE_KEY_PATH, '$1[redacted]');
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const [key, value] of [...params.entries()]) {
    if (SECRET_PARAMS.test(key) || !LOGGED_PARAMS.has(key.toLowerCase())) params.set(key, '[redacted]');
    else if (URL_PARAMS.test(key) && /[?#]/.test(value)) params.set(key, `${value.replace(/[?#].*$/s, '')}?[redacted]`);
  }
  return `${url.slice(0, q)}?${params.toString()}`;
}

/**
 * pino options: requests are logged by method, redacted URL and address only;
 * headers (Authorization, cookies) and bodies (passwords) are never serialised. `stream`: where lines go (default stdout).
 */
export function loggerOptions(level: string, stream?: { write(line: string): void }): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.access_token', '*.token'], censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
    },
  };
}

/**
 * One line per answer: method, redacted URL, client address, status and time ("request completed", or
 * "request errored" with the error). Fastify's default writes two, "incoming request" first, and each line
 * cost about as much CPU as a whole small answer (issue #18). Requests that never answer are still seen:
 * Fastify logs an aborted request through this controller too. Routes declared with `logLevel: 'warn'`
 * (health probes, metrics scrapes) write no access line.
 */
export class AccessLog extends LogController {
  /**
   * `completed`: also told of every answer, before its line is written (the request metrics). Fastify calls
   * requestCompleted once per answer, where it runs onResponse hooks, so an observer here sees the same answers
   * as an onResponse hook would, without the hook runner, which cost about 1 us per answer (issue #18).
   */
  constructor(private readonly completed?: (request: FastifyRequest, reply: FastifyReply) => void) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.completed?.(request, reply);
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
