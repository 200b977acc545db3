import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestApp, type TestApp } from './helpers/app.js';
import { tempDir } from './helpers/databases.js';
import { registerUser, type Account } from './helpers/factories.js';
import { compileStrict, generateClients, GENERATORS, type Driver, type Generator } from './helpers/generated-clients.js';

/**
 * Issue #38 item 1: clients generated from the running server's /openapi.json by two independent generators compile
 * with `tsc --strict` and upload a real file through their generated upload functions.
 *
 * - openapi-typescript 7.13 (types) + openapi-fetch 0.17 (runtime): `client.POST('/api/upload-asset', { body, bodySerializer })`
 *   with a FormData bodySerializer; `format: binary` typed as Blob through openapi-typescript's documented `transform`.
 * - @hey-api/openapi-ts 0.95 (the last release that runs on Node 20) with its bundled fetch client
 *   (@hey-api/client-fetch): the generated `uploadAsset` and `createAssetVersion` functions.
 *
 * orval is not tested: its current releases need Node 22, and the project (and CI) run on Node 20.
 * Generation is offline (the document is passed as an object) into a temporary directory; see
 * test/helpers/generated-clients.ts for the generator options and the drivers.
 */

const png = (width: number, height: number, background: string): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();

describe('clients generated from /openapi.json', () => {
  let t: TestApp & { baseUrl: string };
  let owner: Account;
  let folderId: number;
  let root: string;
  let compiled: { ok: boolean; output: string };

  beforeAll(async () => {
    t = await startHttpTestApp();
    owner = await registerUser(t);
    const folder = await t.request({ method: 'POST', url: '/dam/folders', token: owner.token, payload: { workspace_id: owner.workspaceId, name: 'generated' } });
    folderId = folder.json<{ data: { id: number } }>().data.id;
    const document: unknown = await (await fetch(`${t.baseUrl}/openapi.json`)).json();
    root = tempDir('dam-generated-clients-');
    await generateClients(document, root);
    compiled = await compileStrict(root);
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  /** GET with the owner's token over HTTP: the asset as the API answers it, and a file's bytes. */
  const get = (url: string) => fetch(`${t.baseUrl}${url}`, { headers: { authorization: `Bearer ${owner.token}` } });
  const bytesOf = async (url: string) => {
    const res = await get(url);
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };

  it('the operations have the operationIds the generated functions are named after', async () => {
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
    expect(document.paths['/api/upload-asset']?.post?.operationId).toBe('uploadAsset');
    expect(document.paths['/dam/assets/{id}/versions']?.post?.operationId).toBe('createAssetVersion');
  });

  it('the generated code and the drivers compile with tsc --strict', () => {
    expect(compiled.output).toBe('');
    expect(compiled.ok).toBe(true);
  });

  it.each(GENERATORS)('%s uploads a real file and a new version of it', async (generator: Generator) => {
    expect(compiled.ok, 'the generated clients do not compile (see the previous test)').toBe(true);
    const driver = (await import(pathToFileURL(path.join(root, generator, 'driver.ts')).href)) as Driver;

    const first = await png(24, 16, '#c03030');
    const upload = await driver.uploadAsset({
      baseUrl: t.baseUrl,
      token: owner.token,
      workspaceId: owner.workspaceId,
      folderId,
      file: new File([first], `${generator}.png`, { type: 'image/png' }),
    });
    expect(upload.status).toBe(201);
    expect(upload.asset).toMatchObject({ file_name: `${generator}.png`, file_size: first.length, folder_id: folderId });
    const asset = (await (await get(`/dam/assets/${upload.asset.id}`)).json()) as { data: { file_name: string; file_size: number; mime_type: string; width: number } };
    expect(asset.data).toMatchObject({ file_name: `${generator}.png`, file_size: first.length, mime_type: 'image/png', width: 24 });
    const key = `${owner.workspaceId}/digital_assets/${upload.asset.id}`;
    const stored = await bytesOf(`/storage/download?${new URLSearchParams({ key, workspaceId: String(owner.workspaceId) }).toString()}`);
    expect(Buffer.compare(stored, first)).toBe(0);

    const second = await png(40, 30, '#3030c0');
    const version = await driver.createAssetVersion({
      baseUrl: t.baseUrl,
      token: owner.token,
      assetId: upload.asset.id,
      file: new File([second], `${generator}-v2.png`, { type: 'image/png' }),
    });
    expect(version.status).toBe(201);
    expect(version.version).toMatchObject({ version: 'v2', file_name: `${generator}-v2.png`, file_size: second.length });
    expect(Buffer.compare(await bytesOf(`/dam/versions/${version.version.id}/download`), second)).toBe(0);
    const current = (await (await get(`/dam/assets/${upload.asset.id}`)).json()) as { data: { file_name: string; file_size: number; width: number } };
    expect(current.data).toMatchObject({ file_name: `${generator}-v2.png`, file_size: second.length, width: 40 });
  });
});
