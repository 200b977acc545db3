/**
 * The one door to the API: JSON in and out, the bearer token, and errors as
 * ApiError (status 0 = the network failed, the server was never reached).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
    readonly field?: string,
    /** The error body's other properties (e.g. limit, used, resets_at of a daily limit). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get isNetwork(): boolean {
    return this.status === 0;
  }

  /** The route itself does not exist on this server (an API of a later release). */
  get isMissingRoute(): boolean {
    return this.status === 404 && this.message.startsWith('Route ');
  }
}

interface HttpHooks {
  token: () => string | null;
  /** Called when the session is refused (401 on an authenticated call). */
  onUnauthorized: () => void;
  /** Called when the server refuses every call but a password change (403 PASSWORD_CHANGE_REQUIRED, issue #27). */
  onPasswordChangeRequired: () => void;
}

const hooks: HttpHooks = { token: () => null, onUnauthorized: () => undefined, onPasswordChangeRequired: () => undefined };

export function configureHttp(next: Partial<HttpHooks>): void {
  Object.assign(hooks, next);
}

/** The session's bearer token, if signed in (the SDK client reads it on every request: ./sdk.ts). */
export function currentToken(): string | undefined {
  return hooks.token() ?? undefined;
}

/** Tells the session that the server refused its token (a 401 on an authenticated call made outside `request`). */
export function notifyUnauthorized(): void {
  hooks.onUnauthorized();
}

export function authHeader(): Record<string, string> {
  const token = hooks.token();
  return token ? { authorization: `Bearer ${token}` } : {};
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null) params.set(key, String(value));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** Send the bearer token (default true). */
  auth?: boolean;
  signal?: AbortSignal;
}

export async function toApiError(res: Response): Promise<ApiError> {
  let message = `${res.status} ${res.statusText}`.trim();
  let code: string | undefined;
  let field: string | undefined;
  let details: Record<string, unknown> = {};
  try {
    const body = (await res.json()) as { error?: unknown; code?: unknown; field?: unknown };
    if (typeof body.error === 'string') message = body.error;
    if (typeof body.code === 'string') code = body.code;
    if (typeof body.field === 'string') field = body.field;
    if (body && typeof body === 'object') details = body;
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(message, res.status, code, field, details);
}

/** Sends the request; a failure (network or status) is thrown as ApiError. */
async function send(method: string, path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.auth !== false) Object.assign(headers, authHeader());
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(withQuery(path, options.query), { method, headers, body, signal: options.signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('The server could not be reached. Check your connection.', 0);
  }
  if (!res.ok) {
    const error = await toApiError(res);
    if (res.status === 401 && options.auth !== false && headers.authorization) hooks.onUnauthorized();
    if (res.status === 403 && error.code === 'PASSWORD_CHANGE_REQUIRED' && headers.authorization) hooks.onPasswordChangeRequired();
    throw error;
  }
  return res;
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const res = await send(method, path, options);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Calls an endpoint answering {success: true, data} and returns data. */
export async function requestData<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  return (await request<{ success: true; data: T }>(method, path, options)).data;
}

/** requestData with the answer's status, where it means something (a 200 instead of a 202: the same job, asked before). */
export async function requestDataWithStatus<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ status: number; data: T }> {
  const res = await send(method, path, options);
  return { status: res.status, data: ((await res.json()) as { data: T }).data };
}

/** Fetches bytes with the bearer token (downloads, previews of private files). */
export async function fetchBlob(path: string, signal?: AbortSignal): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(path, { headers: authHeader(), signal });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError('The server could not be reached. Check your connection.', 0);
  }
  if (!res.ok) throw await toApiError(res);
  return res.blob();
}
