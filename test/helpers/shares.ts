import type { LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import type { TestApp } from './app.js';
import type { Account, Envelope } from './factories.js';
import { multipart, type AssetJson, type FilePart } from './versions.js';

/** Helpers of the shared-link suites (test/shared-links*.test.ts). */

export interface ShareJson {
  id: number;
  workspace_id: number;
  key: string;
  url: string;
  target: 'assets' | 'folder' | 'collection' | 'version';
  asset_ids: number[];
  folder_id: number | null;
  collection_id: number | null;
  version_id: number | null;
  expires_at: number | null;
  has_password: boolean;
  allow_download: boolean;
  max_downloads: number | null;
  download_count: number;
  view_count: number;
  last_accessed_at: number | null;
  description: string | null;
  status: 'active' | 'expired' | 'revoked';
  created_by: { id: number | null; name: string };
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
}

export interface ShareItemJson {
  id: number;
  display_file_name: string;
  file_type: string;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  version: string;
  folder_path: string[];
  thumbnail_url: string;
  preview_url: string | null;
  /** issue #15: a video's playable MP4, once ready. */
  video_url: string | null;
  download_url: string | null;
}

export interface PublicShareJson {
  name: string | null;
  description: string | null;
  target: string;
  expires_at: number | null;
  allow_download: boolean;
  downloads_left: number | null;
  zip_url: string | null;
  items: ShareItemJson[];
  page: number;
  per_page: number;
  total: number;
}

export interface AccessEntryJson {
  id: number;
  action: string;
  asset_id: number | null;
  address: string;
  user_agent: string | null;
  created_at: number;
}

export function createShareRequest(t: TestApp, who: Account, body: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/shared', token: who.token, payload: { workspaceId: who.workspaceId, ...body } });
}

/** POST /shared; throws unless 201. `workspaceId` defaults to the caller's personal workspace. */
export async function createShare(t: TestApp, who: Account, body: Record<string, unknown>): Promise<ShareJson> {
  const res = await createShareRequest(t, who, body);
  if (res.statusCode !== 201) throw new Error(`POST /shared answered ${res.statusCode} ${res.body}`);
  return res.json<Envelope<ShareJson>>().data;
}

/** A request to a public share route, with a share-access token as the X-Share-Token header when given. */
export function publicRequest(
  t: TestApp,
  url: string,
  opts: { shareToken?: string; headers?: Record<string, string>; method?: 'GET' | 'HEAD' | 'POST'; payload?: object } = {},
): Promise<LightMyRequestResponse> {
  const headers = { 'user-agent': 'share-test/1.0', ...opts.headers, ...(opts.shareToken ? { 'x-share-token': opts.shareToken } : {}) };
  return t.request({ method: opts.method ?? 'GET', url, headers, payload: opts.payload });
}

export async function viewShare(t: TestApp, key: string, query = '', shareToken?: string): Promise<PublicShareJson> {
  const res = await publicRequest(t, `/shared/public/${key}${query}`, { shareToken });
  if (res.statusCode !== 200) throw new Error(`GET /shared/public answered ${res.statusCode} ${res.body}`);
  return res.json<Envelope<PublicShareJson>>().data;
}

export async function unlock(t: TestApp, key: string, password: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return publicRequest(t, `/shared/public/${key}/unlock`, { method: 'POST', payload: { password }, headers });
}

export async function accessLog(t: TestApp, who: Account, id: number): Promise<AccessEntryJson[]> {
  const res = await t.request({ method: 'GET', url: `/shared/${id}/access-log?per_page=250`, token: who.token });
  if (res.statusCode !== 200) throw new Error(`access log answered ${res.statusCode} ${res.body}`);
  return res.json<Envelope<{ items: AccessEntryJson[] }>>().data.items;
}

/** A small JPEG (thumbnails and previews are made from it). */
export function jpeg(width = 64, height = 48, background = '#c33'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background } }).jpeg().toBuffer();
}

/** POST /api/upload-asset into the workspace (and folder); throws unless 201. */
export async function uploadInto(
  t: TestApp,
  who: Account,
  file: FilePart,
  opts: { workspaceId?: number; folderId?: number } = {},
): Promise<AssetJson> {
  const fields: Record<string, string | FilePart> = { workspaceId: String(opts.workspaceId ?? who.workspaceId), file };
  if (opts.folderId !== undefined) fields.folder_id = String(opts.folderId);
  const body = await multipart(fields);
  const res = await t.request({ method: 'POST', url: '/api/upload-asset', token: who.token, ...body });
  if (res.statusCode !== 201) throw new Error(`upload-asset answered ${res.statusCode} ${res.body}`);
  return res.json<{ data: AssetJson }>().data;
}

export const textFile = (name: string, content = `content of ${name}`): FilePart => ({ bytes: Buffer.from(content), name, type: 'text/plain' });
