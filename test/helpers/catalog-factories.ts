import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { DB } from '../../src/db/database.js';
import { insertAsset, type NewAssetValues } from '../../src/repositories/assets.js';
import type { AssetView } from '../../src/contracts/catalog.js';
import { toAssetView } from '../../src/services/catalog-service.js';
import type { TestApp } from './app.js';
import { addMember, registerUser, type Account, type Envelope } from './factories.js';

let counter = 0;

/** Creates an asset directly in the database (uploads are another feature), as the upload feature will. */
export async function makeAsset(db: DB, workspaceId: number, overrides: Partial<NewAssetValues> = {}): Promise<AssetView> {
  counter += 1;
  const record = await insertAsset(db, {
    workspace_id: workspaceId,
    file_name: `photo-${counter}.jpg`,
    mime_type: 'image/jpeg',
    file_size: 1000 + counter,
    width: 1200,
    height: 800,
    created_by: 'factory',
    created_at: Math.floor(Date.now() / 1000),
    ...overrides,
    uploaded_by: overrides.uploaded_by ?? null,
  });
  return toAssetView(record);
}

/** POST with a JSON body through the API; throws unless the status is the expected one. Returns `data`. */
export async function postData<T>(t: TestApp, who: Account, url: string, payload: object, expected = 201): Promise<T> {
  const res = await t.request({ method: 'POST', url, token: who.token, payload });
  if (res.statusCode !== expected) throw new Error(`POST ${url} answered ${res.statusCode} ${res.body}`);
  return res.json<Envelope<T>>().data;
}

export interface FolderJson {
  id: number;
  workspace_id: number;
  parent_id: number | null;
  name: string;
  visibility: number;
  tags: string[];
  created_at: number;
  modified_at: number;
}

export interface CollectionJson {
  id: number;
  workspace_id: number;
  name: string;
  description: string;
  visibility: number;
  tags: string[];
  asset_count: number;
  asset_ids: number[];
  created_at: number;
  modified_at: number;
}

export function makeFolder(t: TestApp, who: Account, workspaceId: number, body: Record<string, unknown> = {}): Promise<FolderJson> {
  counter += 1;
  return postData<FolderJson>(t, who, '/dam/folders', { workspace_id: workspaceId, name: `Folder ${counter}`, ...body });
}

export function makeCollection(t: TestApp, who: Account, workspaceId: number, body: Record<string, unknown> = {}): Promise<CollectionJson> {
  counter += 1;
  return postData<CollectionJson>(t, who, '/dam/collections', { workspace_id: workspaceId, name: `Collection ${counter}`, ...body });
}

export interface Team {
  /** Admin of workspace `ws` (their personal workspace). */
  owner: Account;
  manager: Account;
  viewer: Account;
  /** Admin of `otherWs`, member of nothing else. */
  outsider: Account;
  ws: number;
  otherWs: number;
}

/** Workspace A with an admin, a manager and a viewer; workspace B owned by an outsider. */
export async function makeTeam(t: TestApp): Promise<Team> {
  const [owner, manager, viewer, outsider] = await Promise.all([registerUser(t), registerUser(t), registerUser(t), registerUser(t)]);
  await addMember(t, owner, owner.workspaceId, manager, 'manager');
  await addMember(t, owner, owner.workspaceId, viewer, 'viewer');
  return { owner, manager, viewer, outsider, ws: owner.workspaceId, otherWs: outsider.workspaceId };
}

/** Asserts an error answer: status, stable code and, when given, the field it names. */
export function expectError(res: LightMyRequestResponse, status: number, code: string, field?: string): void {
  expect(res.statusCode, res.body).toBe(status);
  const body = res.json<{ error: string; code: string; field?: string }>();
  expect(body.code).toBe(code);
  expect(body.error.length).toBeGreaterThan(0);
  if (field !== undefined) {
    expect(body.field).toBe(field);
    expect(body.error).toContain(field);
  }
}
