import type { DamClient } from '../../../sdk/src/client';
import { apiError } from '../../../sdk/src/errors';

/**
 * Issue #19: which of the files about to be uploaded the library already has, by SHA-256 (the hash the server
 * records of every stored file). Hashing is Web Crypto's `digest`, which takes the whole file in memory: files up to
 * MAX_HASHED_BYTES are hashed, one at a time, larger ones are uploaded without the check (no WebAssembly hasher: the
 * page's CSP allows no wasm, and Web Crypto is as fast as it gets for the sizes people drop). Web Crypto exists only
 * in secure contexts (https, localhost): over plain http every file is uploaded unchecked.
 */
export const MAX_HASHED_BYTES = 256 * 1024 * 1024;
/** The most hashes one check-duplicates request takes. */
const BATCH = 1000;

/** The file's SHA-256 in lowercase hex, or null when it is not hashed (too large, or no Web Crypto). */
export async function sha256Hex(file: Blob): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle || file.size > MAX_HASHED_BYTES) return null;
  const digest = await subtle.digest('SHA-256', await file.arrayBuffer());
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The hashes the workspace's library already has, each with its oldest asset; one request per 1,000 hashes. */
export async function findDuplicates(client: DamClient, workspaceId: number, hashes: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  const unique = [...new Set(hashes)];
  for (let i = 0; i < unique.length; i += BATCH) {
    const { data, error, response } = await client.api.POST('/dam/assets/check-duplicates', { body: { workspaceId, hashes: unique.slice(i, i + BATCH) } });
    if (!data) throw await apiError(response, 'check-duplicates', error);
    for (const d of data.data.duplicates) {
      const first = d.asset_ids[0];
      if (first !== undefined) found.set(d.sha256, first);
    }
  }
  return found;
}
