import type { FastifyInstance } from 'fastify';
import { appError } from '../errors.js';

/**
 * How deep a JSON request body may nest. No body of the API nests more than a few levels (free-form
 * `metadata` allows 16, src/http/json-limits.ts); the headroom is for clients that wrap their values.
 */
export const MAX_BODY_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const COLON = 0x3a;

/**
 * Whether `text` opens more than `max` arrays or objects inside each other, found by one pass over the
 * characters without building anything (issue #28: `[` 500,000 times cost about a second of CPU in
 * JSON.parse before anything else could refuse it). Strings are skipped, escapes included; the text
 * need not be valid JSON (JSON.parse judges that afterwards). When it does, the answer names the
 * top-level property the deep value is in (`field`), or null for a deep body that is not an object.
 */
export function tooDeep(text: string, max: number): { field: string | null } | null {
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  let lastString: string | null = null;
  let field: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        // Only strings directly in the top-level object can be its keys; their text is kept short.
        lastString = depth === 1 ? text.slice(stringStart + 1, Math.min(i, stringStart + 101)) : null;
      }
    } else if (c === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (c === COLON && depth === 1) field = lastString;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return { field: /^\s*\{/.test(text.slice(0, 64)) ? field : null };
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return null;
}

/** Refuses a body nested deeper than MAX_BODY_DEPTH: 400 naming the property it happens in. */
export function assertShallow(text: string): void {
  const deep = tooDeep(text, MAX_BODY_DEPTH);
  if (!deep) return;
  const where = deep.field === null ? 'The JSON body' : `body.${deep.field}`;
  throw appError('VALIDATION_ERROR', `${where} nests arrays or objects more than ${MAX_BODY_DEPTH} levels deep`, { field: deep.field ?? 'body' });
}

/**
 * The app's JSON parser: the nesting check, then Fastify's own parser (prototype-poisoning checks,
 * empty bodies, its error messages). Routes that parse their own bodies (the Stripe webhook) call
 * assertShallow themselves.
 */
export function installJsonParser(app: FastifyInstance): void {
  const fastifyParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    try {
      assertShallow(text);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    void fastifyParser(request, text, done);
  });
}

/**
 * The body limit of routes whose bodies are a few short fields (sign-in, registration, password and
 * share-password forms, the social-login token): 8 KiB, where the app's default is 1 MiB (issue #28).
 */
export const SMALL_BODY_LIMIT = 8 * 1024;
