import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from './app.js';
import type { Account } from './factories.js';

/** Helpers of the version suites (test/versions-*.test.ts): multipart bodies built as a browser builds them. */

export interface VersionJson {
  id: number;
  version: string;
  asset_id: number;
  file_name: string;
  display_file_name: string;
  file_size: number;
  mime_type: string;
  created_at: string;
  created_by: string;
  thumbnail_url: string;
  file_url: string;
  is_current: boolean;
  metadata: Record<string, unknown>;
  preview_status: 'pending' | 'ready' | 'unavailable' | 'failed';
  page_count: number | null;
  restored_from: { id: number; version: string } | null;
  /** issue #15: null for versions that are not videos. */
  video_preview: {
    status: 'pending' | 'ready' | 'unavailable' | 'failed';
    url: string | null;
    mime_type: 'video/mp4' | null;
    source: 'transcode' | 'original' | null;
    note: string | null;
  } | null;
}

export interface AssetJson {
  id: number;
  workspace_id: number;
  file_name: string;
  display_file_name: string;
  file_type: string;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  orientation: string | null;
  page_count: number | null;
  metadata: Record<string, unknown>;
  modified_at: number;
}

export interface FilePart {
  bytes: Uint8Array;
  name: string;
  type: string;
}

/** A multipart/form-data body from fields and file parts, encoded by the platform's FormData. */
export async function multipart(fields: Record<string, string | FilePart>): Promise<{ payload: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value.bytes], { type: value.type }), value.name);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type')! } };
}

export async function postVersion(
  t: TestApp,
  who: Account,
  assetId: number,
  file: FilePart | undefined,
  extra: { field?: string; metadata?: string; fields?: Record<string, string | FilePart> } = {},
): Promise<LightMyRequestResponse> {
  const fields: Record<string, string | FilePart> = { ...extra.fields };
  if (extra.metadata !== undefined) fields.metadata = extra.metadata;
  if (file) fields[extra.field ?? 'file'] = file;
  const body = await multipart(fields);
  return t.request({ method: 'POST', url: `/dam/assets/${assetId}/versions`, token: who.token, ...body });
}

/** Uploads a version and returns it; throws unless 201. */
export async function uploadVersion(t: TestApp, who: Account, assetId: number, file: FilePart, metadata?: Record<string, unknown>): Promise<VersionJson> {
  const res = await postVersion(t, who, assetId, file, metadata ? { metadata: JSON.stringify(metadata) } : {});
  if (res.statusCode !== 201) throw new Error(`version upload answered ${res.statusCode} ${res.body}`);
  return res.json<VersionJson>();
}

/** A new asset through POST /api/upload-asset: its file is v1. */
export async function serverUpload(t: TestApp, who: Account, file: FilePart, workspaceId = who.workspaceId): Promise<AssetJson> {
  const body = await multipart({ workspaceId: String(workspaceId), file });
  const res = await t.request({ method: 'POST', url: '/api/upload-asset', token: who.token, ...body });
  if (res.statusCode !== 201) throw new Error(`upload-asset answered ${res.statusCode} ${res.body}`);
  return res.json<{ data: AssetJson }>().data;
}

export function listRequest(t: TestApp, who: Account, assetId: number): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/dam/assets/${assetId}/versions`, token: who.token });
}

export async function listVersions(t: TestApp, who: Account, assetId: number): Promise<VersionJson[]> {
  const res = await listRequest(t, who, assetId);
  if (res.statusCode !== 200) throw new Error(`GET versions answered ${res.statusCode} ${res.body}`);
  return res.json<VersionJson[]>();
}

export async function getAssetJson(t: TestApp, who: Account, id: number): Promise<AssetJson> {
  const res = await t.request({ method: 'GET', url: `/dam/assets/${id}`, token: who.token });
  if (res.statusCode !== 200) throw new Error(`GET asset answered ${res.statusCode} ${res.body}`);
  return res.json<{ data: AssetJson }>().data;
}

export const text = (content: string, name = 'notes.txt', type = 'text/plain'): FilePart => ({ bytes: Buffer.from(content), name, type });

/** Path and query of an absolute URL the API handed out, for inject. */
export const pathOf = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
