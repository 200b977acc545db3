import { createHash, randomBytes } from 'node:crypto';

/**
 * The secrets of invitation and password links (issue #27): 32 random bytes in base64url, which the
 * link carries, and their SHA-256, which the database keeps. A stolen database therefore opens no link.
 * SHA-256 without salt is enough: the token has 256 bits of entropy, nothing to guess from a dictionary.
 */
export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
