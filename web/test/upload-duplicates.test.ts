import { describe, expect, it, vi } from 'vitest';
import { createDamClient } from '../../sdk/src/client';
import { findDuplicates, MAX_HASHED_BYTES, sha256Hex } from '../src/upload/duplicates';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('duplicates before upload (issue #19)', () => {
  it('hashes a file to the SHA-256 the server records, and leaves files above the bound unhashed', async () => {
    // FIPS 180-2's example: SHA-256 of "abc".
    expect(await sha256Hex(new Blob(['abc']))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const huge = { size: MAX_HASHED_BYTES + 1, arrayBuffer: vi.fn() } as unknown as Blob;
    expect(await sha256Hex(huge)).toBeNull();
    expect(huge.arrayBuffer).not.toHaveBeenCalled();
  });

  it('asks check-duplicates once per 1,000 distinct hashes and answers each found hash with its oldest asset', async () => {
    const asked: string[][] = [];
    const fetch = vi.fn(async (request: Request) => {
      const body = (await request.json()) as { workspaceId: number; hashes: string[] };
      expect(new URL(request.url).pathname).toBe('/dam/assets/check-duplicates');
      expect(body.workspaceId).toBe(4);
      asked.push(body.hashes);
      const duplicates = body.hashes.filter((h) => h.endsWith('0')).map((sha256) => ({ sha256, asset_ids: [Number.parseInt(sha256.slice(-4), 16), 99_999] }));
      return json(200, { success: true, data: { duplicates } });
    });
    const client = createDamClient({ baseUrl: 'http://dam.test', fetch });
    const hashes = Array.from({ length: 1500 }, (_, i) => i.toString(16).padStart(64, '0'));
    const found = await findDuplicates(client, 4, [...hashes, hashes[0]!]);
    expect(asked.map((a) => a.length)).toEqual([1000, 500]);
    expect(found.get(hashes[16]!)).toBe(16);
    expect(found.has(hashes[1]!)).toBe(false);
  });

  it('a refused check is an error (the queue then uploads every file)', async () => {
    const client = createDamClient({ baseUrl: 'http://dam.test', fetch: async () => json(404, { error: 'Workspace not found', code: 'NOT_FOUND' }) });
    await expect(findDuplicates(client, 4, ['a'.repeat(64)])).rejects.toThrow(/check-duplicates: 404 Workspace not found/);
  });
});
