import { decodeJwt } from 'jose';
import type { SessionClaims, TokenSigner } from './tokens.js';

/** Enough for every session active on one process at once; the least recently used go first beyond it. */
const MAX_ENTRIES = 10_000;

/**
 * Bearer tokens whose signature this process already checked, with their claims, until the token's
 * own `exp` (issue #18: HMAC verification through WebCrypto was a sixth of an authenticated read).
 * Only the signature check is remembered: whether the session is still valid (logged out, expired,
 * user gone) is asked of the database on every request, so a logout in any process refuses the
 * token everywhere at once. Only tokens that verified are kept (a forged token is never cached,
 * and cannot push others out faster than real traffic), keyed by the whole token string.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, { claims: SessionClaims; exp: number }>();

  constructor(
    private readonly tokens: TokenSigner,
    private readonly max = MAX_ENTRIES,
  ) {}

  async verify(token: string): Promise<SessionClaims | null> {
    // The wall clock, as jose's own `exp` check: this cache never accepts what jose would refuse.
    const now = Date.now() / 1000;
    const hit = this.entries.get(token);
    if (hit) {
      this.entries.delete(token);
      if (hit.exp > now) {
        this.entries.set(token, hit);
        return hit.claims;
      }
    }
    const claims = await this.tokens.verify(token);
    if (!claims) return null;
    const exp = decodeJwt(token).exp;
    // A token without exp is never issued here; one would be checked again every time.
    if (typeof exp !== 'number') return claims;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(token, { claims, exp });
    return claims;
  }
}
