import { createDamClient, type DamClient } from '../../../sdk/src/client';
import { DamApiError } from '../../../sdk/src/errors';
import { ApiError, currentToken, notifyUnauthorized } from './http';

/**
 * The SDK's typed client (openapi-fetch over the generated OpenAPI types) for this page's API, with the session's
 * token; used where the SDK's helpers do the work (uploads) and for calls typed end to end (check-duplicates).
 * Made on first use: unit tests inject their own client and never touch the page's.
 */
let client: DamClient | null = null;

export function damClient(): DamClient {
  if (!client) {
    client = createDamClient({ baseUrl: globalThis.location.origin, token: currentToken });
    client.api.use({
      onResponse({ request, response }) {
        if (response.status === 401 && request.headers.has('authorization')) notifyUnauthorized();
        return undefined;
      },
    });
  }
  return client;
}

/**
 * An SDK failure as the rest of the client knows failures (ApiError): the server's own message (not the SDK's
 * "what: status" prefix), its code, field and details (a 402's limit, used, requested); a network failure is status 0.
 */
export function toClientError(err: unknown, networkMessage = 'The server could not be reached. Check your connection.'): unknown {
  if (err instanceof DamApiError) {
    const { error, field } = err.body;
    return new ApiError(typeof error === 'string' ? error : err.message, err.status, err.code, typeof field === 'string' ? field : undefined, err.body);
  }
  if (err instanceof TypeError) return new ApiError(networkMessage, 0);
  return err;
}
