import { fetchBlob, requestData, withQuery } from './http';
import type { Asset, AssetDetail, BulkRequest, Collection, CollectionDetail, EditableEmbeddedField, Folder, ItemResult, Page } from './types';

export type AssetPatch = Partial<Pick<Asset, 'display_file_name' | 'tags' | 'visibility' | 'folder_id' | 'metadata'>> &
  Partial<Record<EditableEmbeddedField, string | null>>;
export type FolderPatch = Partial<Pick<Folder, 'name' | 'parent_id' | 'visibility' | 'tags'>>;

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
  updateAsset: (id: number, patch: AssetPatch) => requestData<AssetDetail>('PATCH', `/dam/assets/${id}`, { body: patch }),
  deleteAsset: (id: number) => requestData<{ id: number }>('DELETE', `/dam/assets/${id}`),
  /** One action on many assets of a workspace, one transaction, a result per id in the order given (issue #11). */
  bulk: (body: BulkRequest) => requestData<{ results: ItemResult[] }>('POST', '/dam/assets/bulk', { body }),
  /** The stored file of an asset, with the session token. */
  assetFile: (asset: Pick<Asset, 'id' | 'workspace_id'>, signal?: AbortSignal) =>
    fetchBlob(withQuery('/storage/download', { key: assetKey(asset.workspace_id, asset.id), workspaceId: asset.workspace_id }), signal),

  folders: (workspaceId: number) => all<Folder>('/dam/folders', { workspaceId }),
  folder: (id: number) => requestData<Folder>('GET', `/dam/folders/${id}`),
  createFolder: (workspaceId: number, name: string, parentId: number | null) =>
    requestData<Folder>('POST', '/dam/folders', { body: { workspace_id: workspaceId, name, parent_id: parentId } }),
  updateFolder: (id: number, patch: FolderPatch) => requestData<Folder>('PATCH', `/dam/folders/${id}`, { body: patch }),
  deleteFolder: (id: number, recursive = false) =>
    requestData<{ id: number }>('DELETE', `/dam/folders/${id}`, { query: { recursive: recursive || undefined } }),

  collections: (workspaceId: number) => all<Collection>('/dam/collections', { workspaceId }),
  collection: (id: number) => requestData<CollectionDetail>('GET', `/dam/collections/${id}`),
  createCollection: (workspaceId: number, name: string) =>
    requestData<CollectionDetail>('POST', '/dam/collections', { body: { workspace_id: workspaceId, name } }),
  updateCollection: (id: number, patch: { name?: string; description?: string }) =>
    requestData<CollectionDetail>('PATCH', `/dam/collections/${id}`, { body: patch }),
  deleteCollection: (id: number) => requestData<{ id: number }>('DELETE', `/dam/collections/${id}`),
  addToCollection: (id: number, assetIds: number[]) =>
    requestData<CollectionDetail>('POST', `/dam/collections/${id}/assets`, { body: { asset_ids: assetIds } }),
  removeFromCollection: (id: number, assetIds: number[]) =>
    requestData<CollectionDetail>('DELETE', `/dam/collections/${id}/assets`, { body: { asset_ids: assetIds } }),
};
