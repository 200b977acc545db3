/** An answer of the API that is not a success: its HTTP status, the catalogue's code and the message naming the problem. */
export class DamApiError extends Error {
  override name = 'DamApiError';
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    /** The error body as the server sent it: `error` (its message alone), `code`, and details such as a 402's limit, used, requested. */
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** The error body every failing route answers: `{error, code}` (src/errors.ts on the server). */
export async function apiError(response: Response, what: string, body?: unknown): Promise<DamApiError> {
  let parsed = body;
  if (parsed === undefined) parsed = await response.json().catch(() => undefined);
  const { error, code } = (parsed ?? {}) as { error?: unknown; code?: unknown };
  const message = typeof error === 'string' ? error : response.statusText || 'no message';
  const fields = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  return new DamApiError(response.status, typeof code === 'string' ? code : undefined, `${what}: ${response.status} ${message}`, fields);
}
