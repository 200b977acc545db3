import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { DriveProviderError } from '../types.js';
import { dropboxFailure } from './errors.js';

/** RPC calls and uploads of one chunk may take this long; a download only until its headers arrive. */
const RPC_TIMEOUT_MS = 30_000;
const UPLOAD_TIMEOUT_MS = 120_000;
const HEADERS_TIMEOUT_MS = 30_000;

/**
 * The `Dropbox-API-Arg` header: the argument as JSON with every character past ASCII escaped as \uXXXX, since a
 * header carries bytes, not UTF-8 (Dropbox's "HTTP header Dropbox-API-Arg" notes; the same escaping as the
 * official SDKs). The `Dropbox-API-Result` answer header is escaped the same way and reads back with JSON.parse.
 */
export function headerJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

async function readJson<T>(res: Response): Promise<T> {
  const text = await res.text();
  try {
    // Routes without a result answer `null`.
    return (text ? JSON.parse(text) : null) as T;
  } catch {
    throw new DriveProviderError(`Dropbox answered ${res.status} with a body that is not JSON`, res.status);
  }
}

/**
 * Dropbox API v2 over fetch, in its three request styles (HTTP documentation, "Formats"):
 * - RPC on the API host (`{api}/2/<route>`): the argument as a JSON body, the result as JSON;
 * - download on the content host (`{content}/2/<route>`): the argument in `Dropbox-API-Arg`, the result in the
 *   `Dropbox-API-Result` header and the bytes as the body, handed on as a stream;
 * - upload on the content host: the argument in `Dropbox-API-Arg`, the bytes as an application/octet-stream body,
 *   the result as JSON.
 * Failures become the core's errors (errors.ts); nothing here retries.
 */
export class DropboxHttp {
  constructor(
    private readonly apiUrl: string,
    private readonly contentUrl: string,
  ) {}

  /** `arg` undefined: a route without argument (no body at all, as Dropbox wants for users/get_current_account, auth/token/revoke). */
  async rpc<T>(token: string, route: string, arg?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (arg !== undefined) headers['content-type'] = 'application/json';
    const res = await this.send(`${this.apiUrl}/2/${route}`, {
      method: 'POST',
      headers,
      ...(arg !== undefined ? { body: JSON.stringify(arg) } : {}),
      signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
    });
    if (!res.ok) throw dropboxFailure(res.status, await res.text(), res.headers.get('retry-after'));
    return readJson<T>(res);
  }

  /** The body is left unread: the caller streams it. Only the wait for the headers is timed. */
  async download<T>(token: string, route: string, arg: unknown): Promise<{ result: T; body: Readable; headers: Headers }> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new Error('no answer within 30 s')), HEADERS_TIMEOUT_MS);
    let res: Response;
    try {
      res = await this.send(`${this.contentUrl}/2/${route}`, {
        method: 'POST',
        // No Content-Type: Dropbox refuses one on download-style routes (other than text/plain).
        headers: { authorization: `Bearer ${token}`, 'dropbox-api-arg': headerJson(arg) },
        signal: abort.signal,
      });
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) throw dropboxFailure(res.status, await res.text(), res.headers.get('retry-after'));
    let result: T;
    try {
      result = JSON.parse(res.headers.get('dropbox-api-result') ?? '') as T;
    } catch {
      await res.body?.cancel();
      throw new DriveProviderError(`Dropbox answered ${route} without a readable Dropbox-API-Result header`, res.status);
    }
    const body = res.body ? Readable.fromWeb(res.body as WebReadableStream<Uint8Array>) : Readable.from([]);
    return { result, body, headers: res.headers };
  }

  /** One request of at most one chunk: the bytes are in memory already, so a failed request can be sent again. */
  async upload<T>(token: string, route: string, arg: unknown, bytes: Buffer): Promise<T> {
    const res = await this.send(`${this.contentUrl}/2/${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'dropbox-api-arg': headerJson(arg) },
      body: bytes,
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
    });
    if (!res.ok) throw dropboxFailure(res.status, await res.text(), res.headers.get('retry-after'));
    return readJson<T>(res);
  }

  private async send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, redirect: 'error' });
    } catch (err) {
      const cause = (err as Error).cause instanceof Error ? `: ${((err as Error).cause as Error).message}` : '';
      throw new DriveProviderError(`Dropbox could not be reached (${(err as Error).message}${cause})`, null);
    }
  }
}
