import { requestData } from './http';
import type { BodyOf, DataOf } from './schema';
import type { TrashEmptied, TrashKind } from './types';

/** Which trashed items to bring back, by kind. */
export type RestoreRequest = Partial<Record<TrashKind, number[]>>;

/** Issue #11: a workspace's trash (what DELETE moved there). */
export const trashApi = {
  list: (workspaceId: number, page = 1, perPage = 100) =>
    requestData<DataOf<'/dam/trash', 'get'>>('GET', '/dam/trash', { query: { workspaceId, page, per_page: perPage } }),
  restore: (workspaceId: number, ids: RestoreRequest) =>
    requestData<DataOf<'/dam/trash/restore', 'post'>>('POST', '/dam/trash/restore', {
      body: {
        workspaceId,
        // The server wants each list non-empty when present.
        asset_ids: ids.asset?.length ? ids.asset : undefined,
        folder_ids: ids.folder?.length ? ids.folder : undefined,
        collection_ids: ids.collection?.length ? ids.collection : undefined,
      } satisfies BodyOf<'/dam/trash/restore', 'post'>,
    }),
  /** Admins only: deletes everything in the trash for good. */
  empty: (workspaceId: number) => requestData<TrashEmptied>('DELETE', '/dam/trash', { query: { workspaceId } }),
};

export type TrashApi = typeof trashApi;
