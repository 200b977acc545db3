import { requestData } from './http';
import type { BodyOf, DataOf, ItemOf } from './schema';

/** Shapes of the shared-link API (issue #14, /shared), read from the API's schemas. */

export type Share = DataOf<'/shared/{id}', 'get'>;
export type ShareTargetKind = Share['target'];
export type ShareStatus = Share['status'];
export type SharePage = DataOf<'/shared', 'get'>;

type CreateBody = BodyOf<'/shared', 'post'>;
type TargetKey = 'asset_ids' | 'folder_id' | 'collection_id' | 'version_id';
/**
 * Exactly one target of a new link. Narrowed here: the schema can only say that each target is optional (the
 * server answers 400 to none or two), so the union of one-key objects is built from its fields.
 */
export type ShareTarget = { [K in TargetKey]: Required<Pick<CreateBody, K>> & Partial<Record<Exclude<TargetKey, K>, never>> }[TargetKey];
/** expires_at omitted on create: 30 days from now; null: never (workspace admins only). */
export type ShareCreateRequest = Omit<CreateBody, TargetKey> & ShareTarget;
/** At least one setting; only those sent change; password null removes it. */
export type SharePatch = BodyOf<'/shared/{id}', 'patch'>;

export type AccessLogPage = DataOf<'/shared/{id}/access-log', 'get'>;
export type AccessEntry = ItemOf<AccessLogPage['items']>;
export type AccessAction = AccessEntry['action'];

/** Issue #14: the managing side of shared links (managers and admins of the workspace). */
export const sharesApi = {
  create: (body: ShareCreateRequest) => requestData<DataOf<'/shared', 'post'>>('POST', '/shared', { body }),
  list: (workspaceId: number, page = 1, perPage = 20, status?: ShareStatus) =>
    requestData<SharePage>('GET', '/shared', { query: { workspaceId, page, per_page: perPage, status } }),
  get: (id: number) => requestData<Share>('GET', `/shared/${id}`),
  update: (id: number, patch: SharePatch) => requestData<DataOf<'/shared/{id}', 'patch'>>('PATCH', `/shared/${id}`, { body: patch }),
  /** Revokes at once; the link stays listed as revoked. */
  revoke: (id: number) => requestData<DataOf<'/shared/{id}', 'delete'>>('DELETE', `/shared/${id}`),
  accessLog: (id: number, page = 1, perPage = 20) =>
    requestData<AccessLogPage>('GET', `/shared/${id}/access-log`, { query: { page, per_page: perPage } }),
};
export type SharesApi = typeof sharesApi;

/** A link as its public page shows it, one page of its items. */
export type PublicShare = DataOf<'/shared/public/{key}', 'get'>;
/** One item: signed, expiring URLs; download_url null when downloads are not allowed (add ?st= for a password-protected link). */
export type ShareItem = ItemOf<PublicShare['items']>;
export type ShareUnlock = DataOf<'/shared/public/{key}/unlock', 'post'>;
