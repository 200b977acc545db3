import { createHash } from 'node:crypto';

/**
 * The shapes of S3's multipart parts and bucket CORS rules, as every object store and the uploads repository
 * (the local store's part and CORS tables) speak them.
 */
/** seed 2.3: the rule set of the bucket CORS configuration, in S3's own shape. */
export interface CorsRule {
  AllowedMethods: string[];
  AllowedOrigins: string[];
  AllowedHeaders?: string[];
  ExposeHeaders?: string[];
  MaxAgeSeconds?: number;
}

export interface StoredPart {
  PartNumber: number;
  ETag: string;
  Size: number;
}

/**
 * The ETag S3 gives an object joined from `parts` (their ETags, in order): the MD5 of their MD5 digests, then "-" and
 * their count. Undefined when a part's ETag is not an MD5 (SSE-KMS, some S3-compatible stores), so it cannot be known.
 * Issue #37: a completion whose answer was lost is reported done only if the object there is this one.
 */
export function multipartEtag(parts: readonly { ETag: string }[]): string | undefined {
  const digests = parts.map((p) => p.ETag.replace(/"/g, ''));
  if (digests.length === 0 || !digests.every((d) => /^[0-9a-f]{32}$/i.test(d))) return undefined;
  const md5 = createHash('md5').update(Buffer.concat(digests.map((d) => Buffer.from(d, 'hex')))).digest('hex');
  return `${md5}-${parts.length}`;
}
