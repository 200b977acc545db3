import { fetchBlob, requestData, withQuery } from './http';
import type { BodyOf, DataOf } from './schema';
import type { Asset, AssetDetail, BulkRequest, Collection, CollectionDetail, Folder, Page } from './types';

/** Only the fields given change; the embedded fields (issue #12) are written back into the file. */
export type AssetPatch = BodyOf<'/dam/assets/{id}', 'patch'>;
export type FolderPatch = BodyOf<'/dam/folders/{id}', 'patch'>;
export type CollectionPatch = BodyOf<'/dam/collections/{id}', 'patch'>;

/** seed 2.3: keys are {workspaceId}/digital_assets/{assetId}. */
export const assetKey = (workspaceId: number, assetId: number) => `${workspaceId}/digital_assets/${assetId}`;

/** Reads every page of a list (folders and collections of a workspace are few). */
async function all<T>(path: string, query: Record<string, string | number>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page += 1) {
    const res = await requestData<Page<T>>('GET', path, { query: { ...query, page, per_page: 250 } });
    items.push(...res.items);
    if (items.length >= res.total || res.items.length === 0) return items;
  }
}

export const catalogApi = {
  asset: (id: number) => requestData<AssetDetail>('GET', `/dam/assets/${id}`),
  updateAsset: (id: number, patch: AssetPatch) => requestData<DataOf<'/dam/assets/{id}', 'patch'>>('PATCH', `/dam/assets/${id}`, { body: patch }),
  deleteAsset: (id: number) => requestData<DataOf<'/dam/assets/{id}', 'delete'>>('DELETE', `/dam/assets/${id}`),
  /** One action on many assets of a workspace, one transaction, a result per id in the order given (issue #11). */
  bulk: (body: BulkRequest) => requestData<DataOf<'/dam/assets/bulk', 'post'>>('POST', '/dam/assets/bulk', { body }),
  /** The stored file of an asset, with the session token. */
  assetFile: (asset: Pick<Asset, 'id' | 'workspace_id'>, signal?: AbortSignal) =>
    fetchBlob(withQuery('/storage/download', { key: assetKey(asset.workspace_id, asset.id), workspaceId: asset.workspace_id }), signal),

  folders: (workspaceId: number) => all<Folder>('/dam/folders', { workspaceId }),
  folder: (id: number) => requestData<DataOf<'/dam/folders/{id}', 'get'>>('GET', `/dam/folders/${id}`),
  createFolder: (workspaceId: number, name: string, parentId: number | null) =>
    requestData<DataOf<'/dam/folders', 'post'>>('POST', '/dam/folders', {
      body: { workspace_id: workspaceId, name, parent_id: parentId } satisfies BodyOf<'/dam/folders', 'post'>,
    }),
  updateFolder: (id: number, patch: FolderPatch) => requestData<DataOf<'/dam/folders/{id}', 'patch'>>('PATCH', `/dam/folders/${id}`, { body: patch }),
  deleteFolder: (id: number, recursive = false) =>
    requestData<DataOf<'/dam/folders/{id}', 'delete'>>('DELETE', `/dam/folders/${id}`, { query: { recursive: recursive || undefined } }),

  collections: (workspaceId: number) => all<Collection>('/dam/collections', { workspaceId }),
  collection: (id: number) => requestData<CollectionDetail>('GET', `/dam/collections/${id}`),
  createCollection: (workspaceId: number, name: string) =>
    requestData<DataOf<'/dam/collections', 'post'>>('POST', '/dam/collections', {
      body: { workspace_id: workspaceId, name } satisfies BodyOf<'/dam/collections', 'post'>,
    }),
  updateCollection: (id: number, patch: CollectionPatch) =>
    requestData<DataOf<'/dam/collections/{id}', 'patch'>>('PATCH', `/dam/collections/${id}`, { body: patch }),
  deleteCollection: (id: number) => requestData<DataOf<'/dam/collections/{id}', 'delete'>>('DELETE', `/dam/collections/${id}`),
  addToCollection: (id: number, assetIds: number[]) =>
    requestData<DataOf<'/dam/collections/{id}/assets', 'post'>>('POST', `/dam/collections/${id}/assets`, { body: { asset_ids: assetIds } }),
  removeFromCollection: (id: number, assetIds: number[]) =>
    requestData<DataOf<'/dam/collections/{id}/assets', 'delete'>>('DELETE', `/dam/collections/${id}/assets`, { body: { asset_ids: assetIds } }),
};
