import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { secretsOf, type SecretInput } from '../storage/signing-secrets.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A 32-byte key for one purpose, derived from the instance secret (HKDF-SHA256, RFC 5869): one secret, unrelated keys. */
export function derivedKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'dam-drives', `dam:drives:${purpose}:${VERSION}`, 32));
}

/** The sealed text was altered, sealed for another context, or under another key. */
export class SealBroken extends Error {
  override readonly name = 'SealBroken';
}

/**
 * AES-256-GCM with a key derived from the instance secret (DAM_JWT_SECRET) for one purpose: provider
 * tokens at rest, PKCE verifiers, listing cursors. Sealed text is `v1.<base64url(iv | ciphertext | tag)>`
 * with a fresh 96-bit IV each time. `context` is authenticated but not stored (GCM's additional data):
 * a token sealed for one connection's column does not open in another row or column, so a database
 * writer cannot swap ciphertexts between users.
 */
export class TokenCipher {
  private readonly key: Buffer;
  /** The current key, then those of DAM_JWT_SECRET_PREVIOUS: text sealed before a rotation still opens, and is sealed anew under the current key when next written. */
  private readonly keys: Buffer[];

  constructor(secret: SecretInput, purpose: string) {
    this.keys = secretsOf(secret).all.map((s) => derivedKey(s, purpose));
    this.key = this.keys[0]!;
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  open(sealed: string, context: string): string {
    const dot = sealed.indexOf('.');
    if (dot < 0 || sealed.slice(0, dot) !== VERSION) throw new SealBroken('Unknown sealed-text format');
    const raw = Buffer.from(sealed.slice(dot + 1), 'base64url');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new SealBroken('Sealed text too short');
    for (const key of this.keys) {
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        // The next key (a rotation's previous secret), if any.
      }
    }
    throw new SealBroken('Sealed text does not authenticate');
  }
}
