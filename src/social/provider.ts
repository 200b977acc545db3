/**
 * An identity provider as social login sees it: it turns an access token the
 * browser got from the provider into a verified identity, or says why not.
 */
export interface ProviderIdentity {
  /** The provider's stable id of the account (OpenID Connect `sub`). */
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** Unix seconds when the access token expires (used tokens are remembered until then). */
  expiresAt: number;
}

export interface IdentityProvider {
  readonly name: string;
  /** Throws TokenRejected (the token is no good) or ProviderUnavailable (we could not find out). */
  verify(accessToken: string, now: number): Promise<ProviderIdentity>;
}

/** The provider says the token is invalid or expired, or it was issued to another client. */
export class TokenRejected extends Error {
  override readonly name = 'TokenRejected';
}

/** The provider could not be reached, timed out or answered something we cannot read. */
export class ProviderUnavailable extends Error {
  override readonly name = 'ProviderUnavailable';
}
