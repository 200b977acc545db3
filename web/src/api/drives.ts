import { requestData } from './http';
import type { BodyOf, DataOf, ItemOf, QueryOf } from './schema';

/**
 * External drives (issue #16): GET /drives names the providers this server has configured, each with the
 * user's connection; every provider answers the same operations under its own id (/{id}/files, ...), so
 * nothing here knows one provider from another.
 */

/** Every provider answers the same schemas under its own path; the first one's stand for all three. */
type P = '/drive-ext-1';

export type DriveProvider = ItemOf<DataOf<'/drives', 'get'>['providers']>;
export type DriveProviderId = DriveProvider['id'];
/** reauth_required: the provider refused the stored grant; every operation answers 409 DRIVE_REAUTH_REQUIRED. */
export type DriveConnection = NonNullable<DriveProvider['connection']>;

export type DriveListing = DataOf<`${P}/files`, 'get'>;
/** thumbnail_url is the provider's own link: shown only through the image proxy. */
export type DriveItem = ItemOf<DriveListing['items']>;
export type DriveListQuery = QueryOf<`${P}/files`, 'get'>;
export type DriveAuthQuery = QueryOf<`${P}/auth`, 'get'>;
export type DriveAuthLink = DataOf<`${P}/auth`, 'get'>;
export type DriveDisconnected = DataOf<`${P}/connection`, 'delete'>;

export type DriveImport = DataOf<'/drives/imports/{id}', 'get'>;
export type DriveImportPage = DataOf<'/drives/imports', 'get'>;
export type DriveImportSummary = ItemOf<DriveImportPage['items']>;
export type DriveImportItem = ItemOf<DriveImport['items']['items']>;
export type ImportStatus = DriveImportSummary['status'];
export type ImportItemStatus = DriveImportItem['status'];
export type ImportStatusQuery = QueryOf<'/drives/imports/{id}', 'get'>;

export type ImportRequest = BodyOf<`${P}/import`, 'post'>;
export type UploadRequest = BodyOf<`${P}/upload`, 'post'>;

/** Most items one import takes (the server's limit). */
export const MAX_IMPORT_ITEMS = 1000;

export const drivesApi = {
  list: () => requestData<DataOf<'/drives', 'get'>>('GET', '/drives'),
  /** The provider's authorization URL; the answer also sets the cookie that binds the callback to this browser. */
  auth: (id: DriveProviderId, query: DriveAuthQuery = {}) =>
    requestData<DriveAuthLink>('GET', `/${id}/auth`, { query }),
  files: (id: DriveProviderId, query: DriveListQuery = {}, signal?: AbortSignal) =>
    requestData<DriveListing>('GET', `/${id}/files`, { query: { ...query }, signal }),
  disconnect: (id: DriveProviderId) => requestData<DriveDisconnected>('DELETE', `/${id}/connection`),
  upload: (id: DriveProviderId, body: UploadRequest) => requestData<DataOf<`${P}/upload`, 'post'>>('POST', `/${id}/upload`, { body }),
  startImport: (id: DriveProviderId, body: ImportRequest) => requestData<DataOf<`${P}/import`, 'post'>>('POST', `/${id}/import`, { body }),
  importStatus: (importId: number, query: ImportStatusQuery = {}, signal?: AbortSignal) =>
    requestData<DriveImport>('GET', `/drives/imports/${importId}`, { query, signal }),
  imports: (workspaceId: number, page = 1, perPage = 20) =>
    requestData<DriveImportPage>('GET', '/drives/imports', { query: { workspaceId, page, per_page: perPage } }),
};
export type DrivesApi = typeof drivesApi;
