import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { AppConfig, DrivesConfig } from '../../src/config.js';
import type { DialectName } from '../../src/db/dialects/types.js';
import type { DriveProviderId } from '../../src/drives/types.js';
import { startTestApp, testConfig, type TestApp } from './app.js';
import type { FakeAccount, FakeOAuth } from './fake-oauth.js';
import type { Account } from './factories.js';

/** Helpers of the external-drive suites (test/drives-*.test.ts), for any provider: `driveHelpers(id)` binds them to one. */

export const GDRIVE = 'drive-ext-1';
export const DROPBOX = 'drive-ext-2';
export const ONEDRIVE = 'drive-ext-3';

/** Where each provider's settings sit in the app's `drives` config. */
const CONFIG_KEYS = { [GDRIVE]: 'google', [DROPBOX]: 'dropbox', [ONEDRIVE]: 'onedrive' } as const satisfies Record<DriveProviderId, keyof DrivesConfig>;
type ConfigKey<P extends DriveProviderId> = (typeof CONFIG_KEYS)[P];

/** What the suites need of a provider's fake (test/helpers/fake-*.ts): the app config pointing at it, and its OAuth server. */
export interface DriveFake<P extends DriveProviderId = DriveProviderId> {
  readonly config: NonNullable<DrivesConfig[ConfigKey<P>]>;
  readonly oauth: FakeOAuth;
}

/** What the import suites build trees with: every fake adds folders and files by parent id. */
export interface DriveTreeFake {
  addFolder(name: string, parent?: string): string;
  addFile(name: string, content: Buffer | string, options?: { parent?: string }): string;
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

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

export interface DriveListJson {
  folder: string | null;
  items: DriveItemJson[];
  next_cursor: string | null;
}

export interface DriveProviderJson {
  id: string;
  name: string;
  search: boolean;
  connection: Record<string, unknown> | null;
}

/** The `name=value` part of the binding cookie an auth answer set. */
export function bindingCookie(res: LightMyRequestResponse): string {
  const header = [res.headers['set-cookie'] ?? []].flat().join('\n');
  const match = /dam_drive_binding=[^;]*/.exec(header);
  if (!match) throw new Error(`no binding cookie in ${header}`);
  return match[0];
}

/** The browser at the provider's authorize page: where it is sent back to (our callback, as path + query). */
export async function authorize(url: URL): Promise<string> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get('location')!);
  return `${back.pathname}${back.search}`;
}

/** A callback path (from `authorize`) with the last two characters of its signed state changed. */
export function tamperState(callback: string): string {
  const back = new URL(callback, 'http://x');
  const state = back.searchParams.get('state')!;
  back.searchParams.set('state', `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`);
  return `${back.pathname}${back.search}`;
}

export async function importStatus(t: TestApp, who: Account, id: number, query = 'per_page=250'): Promise<ImportJson> {
  const res = await t.request({ method: 'GET', url: `/drives/imports/${id}?${query}`, token: who.token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: ImportJson }>().data;
}

/** Runs the queued jobs, then answers the import's status. */
export async function settleImport(t: TestApp, who: Account, id: number): Promise<ImportJson> {
  await t.app.jobs.drain();
  return importStatus(t, who, id);
}

/** GET /drives: every configured provider, with `who`'s connection to it. */
export async function listDrives(t: TestApp, who: Account): Promise<DriveProviderJson[]> {
  const res = await t.request({ method: 'GET', url: '/drives', token: who.token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: { providers: DriveProviderJson[] } }>().data.providers;
}

/** The bytes the store holds for an asset of `ws`, through the storage download route. */
export async function storedBytes(t: TestApp, who: Account, ws: number, assetId: number): Promise<Buffer> {
  const res = await t.request({ method: 'GET', url: `/storage/download?key=${ws}/digital_assets/${assetId}&workspaceId=${ws}`, token: who.token });
  expect(res.statusCode, res.body).toBe(200);
  return res.rawPayload;
}

/**
 * Archive/ (`top` files), Archive/2023/ (`y2023`), Archive/2023/Raw/ (`raw`), Archive/2024/ (`y2024`) on the fake, each
 * file random bytes of its own length, recorded in `contents` by id: the tree the import suites import.
 */
export function addArchive(
  fake: DriveTreeFake,
  counts: { top: number; y2023: number; raw: number; y2024: number },
  contents: Map<string, Buffer>,
): string {
  const archive = fake.addFolder(`Archive ${randomBytes(3).toString('hex')}`);
  const y2023 = fake.addFolder('2023', archive);
  const raw = fake.addFolder('Raw', y2023);
  const y2024 = fake.addFolder('2024', archive);
  const add = (name: string, parent: string) => {
    const bytes = randomBytes(64 + contents.size);
    contents.set(fake.addFile(name, bytes, { parent }), bytes);
  };
  for (let i = 1; i <= counts.top; i++) add(`top ${i}.bin`, archive);
  for (let i = 1; i <= counts.y2023; i++) add(`shot ${i}.bin`, y2023);
  for (let i = 1; i <= counts.raw; i++) add(`raw ${i}.dat`, raw);
  for (let i = 1; i <= counts.y2024; i++) add(`plan ${i}.bin`, y2024);
  return archive;
}

/** No token, code or client secret the fake issued or holds is in an answer or a log line; the callback was logged. */
export function expectNoSecrets(provider: DriveProviderId, oauth: FakeOAuth, logs: string[], answers: string[]): void {
  expect(oauth.issued.length).toBeGreaterThan(20);
  const secrets = [...oauth.issued, oauth.clientSecret!];
  const logText = logs.join('\n');
  const answerText = answers.join('\n');
  expect(logText).toContain(`/${provider}/callback`);
  for (const secret of secrets) {
    expect(answerText.includes(secret), 'a token in an answer').toBe(false);
    expect(logText.includes(secret), 'a token in the log').toBe(false);
  }
}

/** The suites' requests to one provider's routes (`/{provider}/...`). */
export function driveHelpers<P extends DriveProviderId>(provider: P) {
  /** An app with only this provider configured, pointed at `fake`; every log line goes to `logs`, every answer (body, Location, Set-Cookie) to `answers`. */
  async function startDriveApp(
    fake: DriveFake<P>,
    options: { dialect: DialectName; config?: Partial<AppConfig>; logs?: string[]; answers?: string[] },
  ): Promise<TestApp> {
    const drives: DrivesConfig = { google: null, dropbox: null, onedrive: null, [CONFIG_KEYS[provider]]: fake.config };
    const t = await startTestApp({
      dialect: options.dialect,
      logStream: options.logs ? { write: (line) => options.logs!.push(line) } : undefined,
      config: {
        drives,
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

  async function startAuth(t: TestApp, who: Account, query = 'return_to=/library/drives'): Promise<{ url: URL; cookie: string }> {
    const res = await t.request({ method: 'GET', url: `/${provider}/auth?${query}`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return { url: new URL(res.json<{ data: { url: string } }>().data.url), cookie: bindingCookie(res) };
  }

  /** The whole connect flow for `who` as `account`; answers the callback's Location. */
  async function connect(t: TestApp, fake: DriveFake<P>, who: Account, account?: FakeAccount): Promise<string> {
    if (account) fake.oauth.account = account;
    const { url, cookie } = await startAuth(t, who);
    const res = await t.request({ method: 'GET', url: await authorize(url), headers: { cookie } });
    expect(res.statusCode, res.body).toBe(302);
    return String(res.headers.location);
  }

  async function listFiles(t: TestApp, who: Account, query = ''): Promise<DriveListJson> {
    const res = await t.request({ method: 'GET', url: `/${provider}/files${query ? `?${query}` : ''}`, token: who.token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<{ data: DriveListJson }>().data;
  }

  /** Every page of a listing, following next_cursor; `each` sees every page as it comes. */
  async function listAll(t: TestApp, who: Account, query: string, each?: (page: DriveListJson) => void): Promise<{ pages: number; items: DriveItemJson[] }> {
    const items: DriveItemJson[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await listFiles(t, who, `${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      each?.(page);
      items.push(...page.items);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    return { pages, items };
  }

  async function startImport(t: TestApp, who: Account, body: Record<string, unknown>): Promise<ImportJson> {
    const res = await t.request({ method: 'POST', url: `/${provider}/import`, token: who.token, payload: body });
    expect(res.statusCode, res.body).toBe(202);
    return res.json<{ data: ImportJson }>().data;
  }

  /** `who`'s stored connection to this provider, tokens sealed as stored. */
  const connectionRow = (t: TestApp, who: Account) =>
    t.database.db.selectFrom('drive_connections').selectAll().where('user_id', '=', who.user.id).where('provider', '=', provider).executeTakeFirst();

  return { startDriveApp, startAuth, connect, listFiles, listAll, startImport, connectionRow };
}
