import { execFile } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient as generateHeyApi } from '@hey-api/openapi-ts';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';

/**
 * Clients generated from the served OpenAPI document by two independent generators, each with a small driver
 * that uploads a file through the generated upload functions (test/generated-clients.test.ts, issue #38 item 1).
 * Generation is offline: both generators get the document as an object, never a URL.
 */

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const TSC = path.join(REPO, 'node_modules', '.bin', 'tsc');

/** What the test hands a driver, and what the driver answers (typed in the driver by the generated types). */
export interface UploadInput {
  baseUrl: string;
  token: string;
  workspaceId: number;
  folderId: number;
  file: File;
}
export interface VersionInput {
  baseUrl: string;
  token: string;
  assetId: number;
  file: File;
}
export interface Driver {
  uploadAsset(input: UploadInput): Promise<{ status: number; asset: { id: number; file_name: string; file_size: number; folder_id: number | null } }>;
  createAssetVersion(input: VersionInput): Promise<{ status: number; version: { id: number; version: string; file_name: string; file_size: number } }>;
}

export const GENERATORS = ['openapi-fetch', 'hey-api'] as const;
export type Generator = (typeof GENERATORS)[number];

/** The compiler options of a strict NodeNext consumer; skipLibCheck covers node_modules' .d.ts only (the generated code is .ts). */
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    // DOM: the fetch client's types name BodyInit, which @types/node does not declare.
    lib: ['ES2023', 'DOM'],
    types: ['node'],
    skipLibCheck: true,
  },
  include: ['**/*.ts'],
};

/** `format: binary` as Blob: openapi-typescript's documented transform for file uploads (its default type is string). */
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));

/** openapi-typescript 7 types for openapi-fetch 0.17, as a .ts file so that tsc checks it despite skipLibCheck. */
async function generateOpenapiTypescript(document: unknown, dir: string): Promise<void> {
  const ast = await openapiTS(document as OpenAPI3, {
    silent: true,
    transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
  });
  await writeFile(path.join(dir, 'schema.ts'), astToString(ast));
  await writeFile(path.join(dir, 'driver.ts'), OPENAPI_FETCH_DRIVER);
}

/** @hey-api/openapi-ts 0.95 with its fetch client bundled into the output (types, SDK functions, client). */
async function generateHeyApiClient(document: unknown, dir: string, tsconfig: string): Promise<void> {
  await generateHeyApi({
    input: document as Record<string, unknown>,
    // The consumer's tsconfig (NodeNext) makes the generated imports end in .js.
    output: { path: path.join(dir, 'client'), tsConfigPath: tsconfig },
    plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
    logs: { level: 'silent', file: false },
  });
  await writeFile(path.join(dir, 'driver.ts'), HEY_API_DRIVER);
}

/**
 * Generates both clients and their drivers into `root` (<root>/<generator>/driver.ts), a module package whose
 * node_modules is the repo's (openapi-fetch and @types/node resolve from there).
 */
export async function generateClients(document: unknown, root: string): Promise<void> {
  const tsconfig = path.join(root, 'tsconfig.json');
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'generated-clients', private: true, type: 'module' }));
  await writeFile(tsconfig, JSON.stringify(TSCONFIG, null, 2));
  await symlink(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'), 'dir');
  await Promise.all(GENERATORS.map((g) => mkdir(path.join(root, g))));
  await generateOpenapiTypescript(document, path.join(root, 'openapi-fetch'));
  await generateHeyApiClient(document, path.join(root, 'hey-api'), tsconfig);
}

/** `tsc --strict --noEmit` over everything generated (and the drivers): the compiler's output, empty when clean. */
export async function compileStrict(root: string): Promise<{ ok: boolean; output: string }> {
  try {
    await promisify(execFile)(TSC, ['-p', path.join(root, 'tsconfig.json'), '--strict', '--noEmit', '--pretty', 'false'], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    return { ok: true, output: '' };
  } catch (err) {
    const { stdout, stderr, message } = err as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${stdout ?? ''}${stderr ?? ''}` || message };
  }
}

/** openapi-fetch sends JSON unless given a bodySerializer; a FormData body gets its multipart Content-Type from fetch. */
const OPENAPI_FETCH_DRIVER = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

function formData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined) continue;
    form.append(name, value instanceof Blob ? value : typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

export async function uploadAsset(input: { baseUrl: string; token: string; workspaceId: number; folderId: number; file: File }) {
  const client = createClient<paths>({ baseUrl: input.baseUrl, headers: { authorization: \`Bearer \${input.token}\` } });
  const { data, error, response } = await client.POST('/api/upload-asset', {
    body: { file: input.file, workspaceId: input.workspaceId, folder_id: input.folderId },
    bodySerializer: formData,
  });
  if (!data) throw new Error(\`upload-asset answered \${response.status}: \${JSON.stringify(error)}\`);
  const asset = data.data;
  return { status: response.status, asset: { id: asset.id, file_name: asset.file_name, file_size: asset.file_size, folder_id: asset.folder_id } };
}

export async function createAssetVersion(input: { baseUrl: string; token: string; assetId: number; file: File }) {
  const client = createClient<paths>({ baseUrl: input.baseUrl, headers: { authorization: \`Bearer \${input.token}\` } });
  const { data, error, response } = await client.POST('/dam/assets/{id}/versions', {
    params: { path: { id: input.assetId } },
    body: { file: input.file },
    bodySerializer: formData,
  });
  if (!data) throw new Error(\`versions answered \${response.status}: \${JSON.stringify(error)}\`);
  return { status: response.status, version: { id: data.id, version: data.version, file_name: data.file_name, file_size: data.file_size } };
}
`;

/** The generated SDK functions with the bundled fetch client; the token goes through the document's bearer scheme. */
const HEY_API_DRIVER = `import { createClient } from './client/client/index.js';
import { createAssetVersion as createVersion, uploadAsset as upload } from './client/index.js';

export async function uploadAsset(input: { baseUrl: string; token: string; workspaceId: number; folderId: number; file: File }) {
  const client = createClient({ baseUrl: input.baseUrl, auth: input.token });
  const { data, error, response } = await upload({ client, body: { file: input.file, workspaceId: input.workspaceId, folder_id: input.folderId } });
  if (!data) throw new Error(\`upload-asset answered \${response.status}: \${JSON.stringify(error)}\`);
  const asset = data.data;
  return { status: response.status, asset: { id: asset.id, file_name: asset.file_name, file_size: asset.file_size, folder_id: asset.folder_id } };
}

export async function createAssetVersion(input: { baseUrl: string; token: string; assetId: number; file: File }) {
  const client = createClient({ baseUrl: input.baseUrl, auth: input.token });
  const { data, error, response } = await createVersion({ client, path: { id: input.assetId }, body: { file: input.file } });
  if (!data) throw new Error(\`versions answered \${response.status}: \${JSON.stringify(error)}\`);
  return { status: response.status, version: { id: data.id, version: data.version, file_name: data.file_name, file_size: data.file_size } };
}
`;
