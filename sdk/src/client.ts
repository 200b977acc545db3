import createClient, { type Client } from 'openapi-fetch';
import { retryUnavailable } from './retry.js';
import type { paths } from './schema.js';

/** A fetch function as openapi-fetch calls it; the helpers use it for part uploads too (tests inject failures through it). */
export type FetchFn = (input: Request) => Promise<Response>;

export interface DamClientOptions {
  /** Where the API is, e.g. https://dam.example.com (no trailing path). */
  baseUrl: string;
  /** The bearer token of POST /auth/login, or a function reading the current one (called on every request). */
  token?: string | (() => string | undefined);
  /** Defaults to the global fetch. */
  fetch?: FetchFn;
  /**
   * Attempts in all of a GET or HEAD of `api` answered 503 with Retry-After (the database restarting, the store
   * stalling): each waits the Retry-After (at most 30 s) first. Default 3; 1 turns it off.
   */
  unavailableAttempts?: number;
}

/** The typed openapi-fetch client of the whole API, plus what the helpers need. */
export interface DamClient {
  /** client.GET('/dam/assets/{id}', {params: {path: {id}}}) etc., typed from the OpenAPI document. */
  api: Client<paths>;
  baseUrl: string;
  fetch: FetchFn;
}

/** A client that sends `Authorization: Bearer <token>` on every API request (never on presigned part URLs). */
export function createDamClient(options: DamClientOptions): DamClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchFn: FetchFn = options.fetch ?? ((request) => globalThis.fetch(request));
  // Part PUTs (`fetch`) have their own retries (withRetries); the API's reads wait out a 503 that says when to come back.
  const api = createClient<paths>({ baseUrl, fetch: retryUnavailable(fetchFn, options.unavailableAttempts ?? 3) });
  api.use({
    onRequest({ request }) {
      const token = typeof options.token === 'function' ? options.token() : options.token;
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
  });
  return { api, baseUrl, fetch: fetchFn };
}
