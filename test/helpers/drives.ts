import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { AppConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/dialects/types.js';
import { startTestApp, testConfig, type TestApp } from './app.js';
import type { FakeAccount } from './fake-oauth.js';
import type { FakeGoogleDrive } from './fake-gdrive.js';
import type { Account } from './factories.js';

/** Helpers of the external-drive suites (test/drives-*.test.ts). */

export const GDRIVE = 'drive-ext-1';

export interface DriveItemJson {
  id: string;
  name: string;
  is_folder: boolean;
  mime_type: string | null;
  size: number | null;
  modified_at: string | null;
  thumbnail_url: string | null;
  export: { mime_type: string; extension: string } | null;
  unsupported: string | null;
}

export interface ImportJson {
  id: number;
  provider: string;
  workspace_id: number;
  folder_id: number | null;
  recursive: boolean;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  planned: boolean;
  total_files: number;
  folders: number;
  processed_files: number;
  pending: number;
  imported: number;
  skipped: number;
  failed: number;
  progress: number;
  bytes: number;
  error: string | null;
  items: {
    items: {
      file_id: string;
      kind: 'file' | 'folder';
      name: string;
      path: string;
      size: number | null;
      status: string;
      reason: string | null;
      message: string | null;
      asset_id: number | null;
      folder_id: number | null;
      bytes: number;
    }[];
    page: number;
    per_page: number;
    total: number;
  };
}

/** An app with Google Drive pointed at the fake; every log line goes to `logs`, every answer (body, Location, Set-Cookie) to `answers`. */
export async function startDriveApp(
  fake: FakeGoogleDrive,
  options: { dialect: DialectName; config?: Partial<AppConfig>; logs?: string[]; answers?: string[] },
): Promise<TestApp> {
  const t = await startTestApp({
    dialect: options.dialect,
    logStream: options.logs ? { write: (line) => options.logs!.push(line) } : undefined,
    config: {
      drives: { google: fake.config, dropbox: null, onedrive: null },
      logLevel: options.logs ? 'debug' : 'silent',
      // Jobs run when a test drains them.
      jobs: { ...testConfig().jobs, concurrency: 0 },
      sessionTtl: 30 * 86_400,
      ...options.config,
    },
  });
  const request = t.request;
  t.request = async (opts) => {
    const res = await request(opts);
    options.answers?.push(res.body, String(res.headers.location ?? ''), String(res.headers['set-cookie'] ?? ''));
    return res;
  };
  return t;
}

/** The `name=value` part of the binding cookie an auth answer set. */
export function bindingCookie(res: LightMyRequestResponse): string {
  const header = [res.headers['set-cookie'] ?? []].flat().join('\n');
  const match = /dam_drive_binding=[^;]*/.exec(header);
  if (!match) throw new Error(`no binding cookie in ${header}`);
  return match[0];
}

export async function startAuth(t: TestApp, who: Account, query = 'return_to=/library/drives'): Promise<{ url: URL; cookie: string }> {
  const res = await t.request({ method: 'GET', url: `/${GDRIVE}/auth?${query}`, token: who.token });
  expect(res.statusCode, res.body).toBe(200);
  return { url: new URL(res.json<{ data: { url: string } }>().data.url), cookie: bindingCookie(res) };
}

/** The browser at the provider's authorize page: where it is sent back to (our callback, as path + query). */
export async function authorize(url: URL): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  return `${back.pathname}${back.search}`;
}

/** The whole connect flow for `who` as `account`; answers the callback's Location. */
export async function connect(t: TestApp, fake: FakeGoogleDrive, who: Account, account?: FakeAccount): Promise<string> {
  if (account) fake.oauth.account = account;
  const { url, cookie } = await startAuth(t, who);
  const callback = await authorize(url);
  const res = await t.request({ method: 'GET', url: callback, headers: { cookie } });
  expect(res.statusCode, res.body).toBe(302);
  return String(res.headers.location);
}

export async function listFiles(t: TestApp, who: Account, query = ''): Promise<{ folder: string | null; items: DriveItemJson[]; next_cursor: string | null }> {
  const res = await t.request({ method: 'GET', url: `/${GDRIVE}/files${query ? `?${query}` : ''}`, token: who.token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: { folder: string | null; items: DriveItemJson[]; next_cursor: string | null } }>().data;
}

export async function startImport(t: TestApp, who: Account, body: Record<string, unknown>): Promise<ImportJson> {
  const res = await t.request({ method: 'POST', url: `/${GDRIVE}/import`, token: who.token, payload: body });
  expect(res.statusCode, res.body).toBe(202);
  return res.json<{ data: ImportJson }>().data;
}

export async function importStatus(t: TestApp, who: Account, id: number, query = 'per_page=250'): Promise<ImportJson> {
  const res = await t.request({ method: 'GET', url: `/drives/imports/${id}?${query}`, token: who.token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: ImportJson }>().data;
}
