/**
 * What the token of an invitation or password link (services/link-tokens.ts: 32 random bytes in base64url) looks
 * like in a URL; anything else is refused before a lookup.
 */
export const LINK_TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';
