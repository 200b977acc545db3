import * as oauth from 'oauth4webapi';
import { DriveGrantRefused, DriveProviderError, type DriveTokens } from './types.js';

/** Each call to a token or revocation endpoint may take this long. */
const TIMEOUT_MS = 15_000;

export interface OAuthEndpoints {
  /** The authorization server's issuer: compared with the callback's `iss` parameter when it has one (RFC 9207). */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** RFC 7009 revocation endpoint, when the provider has one. */
  revocationEndpoint?: string;
  clientId: string;
  /** Sent in the body (client_secret_post); unset: a public client, PKCE only. */
  clientSecret: string | undefined;
  /** Space-separated in the authorization request. */
  scopes: string[];
  /** Provider-specific parameters of the authorization request (offline access, consent prompt). */
  authorizeParams: Record<string, string>;
  /** Parameters sent with every token request, code and refresh grants alike (Microsoft wants `scope` on refreshes). Optional. */
  tokenParams?: Record<string, string>;
  /** Display name for messages. */
  providerName: string;
}

/**
 * The authorization-code flow with PKCE (RFC 6749, RFC 7636) that every drive provider shares, through
 * oauth4webapi: the authorization URL, the code exchange, the refresh grant and RFC 7009 revocation.
 * A provider folder builds one of these from its endpoints; what differs between providers (scopes,
 * offline-access parameters, a non-standard revocation) stays in the folder.
 *
 * oauth4webapi refuses plain-http endpoints unless told; they are allowed exactly when the configured
 * URL is http (tests point the providers at fakes on 127.0.0.1; production URLs are https).
 */

/** Token-endpoint errors that are about the user's grant, not the instance's client (RFC 6749 5.2). */
const USER_GRANT_ERRORS = new Set(['invalid_grant', 'invalid_scope']);
export class OAuthClient {
  private readonly as: oauth.AuthorizationServer;
  private readonly client: oauth.Client;
  private readonly auth: oauth.ClientAuth;

  constructor(private readonly endpoints: OAuthEndpoints) {
    this.as = {
      issuer: endpoints.issuer,
      authorization_endpoint: endpoints.authorizationEndpoint,
      token_endpoint: endpoints.tokenEndpoint,
      ...(endpoints.revocationEndpoint ? { revocation_endpoint: endpoints.revocationEndpoint } : {}),
    };
    this.client = { client_id: endpoints.clientId };
    this.auth = endpoints.clientSecret ? oauth.ClientSecretPost(endpoints.clientSecret) : oauth.None();
  }

  static newCodeVerifier(): string {
    return oauth.generateRandomCodeVerifier();
  }

  static codeChallenge(verifier: string): Promise<string> {
    return oauth.calculatePKCECodeChallenge(verifier);
  }

  authorizationUrl(params: { state: string; codeChallenge: string; redirectUri: string }): string {
    const url = new URL(this.endpoints.authorizationEndpoint);
    url.search = new URLSearchParams({
      client_id: this.endpoints.clientId,
      redirect_uri: params.redirectUri,
      response_type: 'code',
      scope: this.endpoints.scopes.join(' '),
      state: params.state,
      code_challenge: params.codeChallenge,
      code_challenge_method: 'S256',
      ...this.endpoints.authorizeParams,
    }).toString();
    return url.toString();
  }

  async exchangeCode(params: { code: string; iss: string | undefined; codeVerifier: string; redirectUri: string }): Promise<DriveTokens> {
    const callback = new URLSearchParams({ code: params.code, ...(params.iss ? { iss: params.iss } : {}) });
    return this.tokenCall('The authorization code was refused', async () => {
      // The state was checked by the caller (a signed, single-use token), so oauth4webapi skips its own check.
      const validated = oauth.validateAuthResponse(this.as, this.client, callback, oauth.skipStateCheck);
      const response = await oauth.authorizationCodeGrantRequest(this.as, this.client, this.auth, validated, params.redirectUri, params.codeVerifier, this.tokenOptions());
      return oauth.processAuthorizationCodeResponse(this.as, this.client, response);
    });
  }

  async refresh(refreshToken: string): Promise<DriveTokens> {
    const tokens = await this.tokenCall('The refresh token was refused', async () => {
      const response = await oauth.refreshTokenGrantRequest(this.as, this.client, this.auth, refreshToken, this.tokenOptions());
      return oauth.processRefreshTokenResponse(this.as, this.client, response);
    });
    // Providers that do not rotate refresh tokens answer none: the one we have stays valid.
    return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
  }

  /** RFC 7009. */
  async revoke(token: string): Promise<void> {
    if (!this.as.revocation_endpoint) return;
    try {
      const response = await oauth.revocationRequest(this.as, this.client, this.auth, token, this.options());
      await oauth.processRevocationResponse(response);
    } catch (err) {
      throw this.failure(err, 'Revoking the token failed');
    }
  }

  private tokenOptions(): ReturnType<OAuthClient['options']> & { additionalParameters?: Record<string, string> } {
    return { ...this.options(), ...(this.endpoints.tokenParams ? { additionalParameters: this.endpoints.tokenParams } : {}) };
  }

  private options(): { signal: AbortSignal; [oauth.allowInsecureRequests]?: boolean } {
    const insecure = [this.endpoints.tokenEndpoint, this.endpoints.revocationEndpoint].some((u) => u?.startsWith('http:'));
    return { signal: AbortSignal.timeout(TIMEOUT_MS), ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}) };
  }

  private async tokenCall(refused: string, call: () => Promise<oauth.TokenEndpointResponse>): Promise<DriveTokens> {
    let response: oauth.TokenEndpointResponse;
    try {
      response = await call();
    } catch (err) {
      throw this.failure(err, refused);
    }
    return {
      accessToken: response.access_token,
      refreshToken: response.refresh_token ?? null,
      expiresIn: typeof response.expires_in === 'number' ? response.expires_in : null,
      scopes: typeof response.scope === 'string' ? response.scope.split(' ').filter(Boolean) : this.endpoints.scopes,
    };
  }

  /**
   * RFC 6749 5.2: `invalid_grant` (and `invalid_scope`: the user granted less) means this user's grant is no good:
   * DriveGrantRefused, and the user re-authorises. Every other error answer (invalid_client when the instance's
   * client secret expired or was rotated, unauthorized_client, invalid_request, ...) is the instance's
   * configuration, which no user can fix by reconnecting: a provider error (502) that leaves the connections as
   * they are. Anything else (unreachable, 5xx, not JSON) is the provider's trouble.
   */
  private failure(err: unknown, refused: string): Error {
    const name = this.endpoints.providerName;
    if (err instanceof oauth.ResponseBodyError) {
      const detail = [err.error, err.error_description].filter(Boolean).join(': ');
      if (USER_GRANT_ERRORS.has(err.error)) return new DriveGrantRefused(`${refused} by ${name} (${detail})`);
      if (err.status === 400 || err.status === 401) {
        return new DriveProviderError(`${name} refused this instance's OAuth client, check its client id and secret (${detail})`, err.status);
      }
      return new DriveProviderError(`${name} answered ${err.status} (${detail})`, err.status);
    }
    if (err instanceof oauth.OperationProcessingError) return new DriveProviderError(`${name}: ${err.message}`, null);
    const message = err instanceof Error ? err.message : String(err);
    return new DriveProviderError(`${name} could not be reached: ${message}`, null);
  }
}
