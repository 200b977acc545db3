import { requestData } from './http';

/**
 * External drives (issue #16): GET /drives names the providers this server has configured, each with the
 * user's connection; every provider answers the same operations under its own id (/{id}/files, ...), so
 * nothing here knows one provider from another.
 */

export type DriveProviderId = 'drive-ext-1' | 'drive-ext-2' | 'drive-ext-3';

export interface DriveConnection {
  account_id: string;
  account_email: string | null;
  account_name: string | null;
  scopes: string[];
  /** reauth_required: the provider refused the stored grant; every operation answers 409 DRIVE_REAUTH_REQUIRED. */
  status: 'active' | 'reauth_required';
  status_note: string | null;
  connected_at: number;
  updated_at: number;
}

export interface DriveProvider {
  id: DriveProviderId;
  /** Google Drive, Dropbox, OneDrive. */
  name: string;
  /** Whether /{id}/files takes q. */
  search: boolean;
  connection: DriveConnection | null;
}

export interface DriveItem {
  id: string;
  name: string;
  is_folder: boolean;
  mime_type: string | null;
  size: number | null;
  modified_at: string | null;
  /** The provider's own link: shown only through the image proxy. */
  thumbnail_url: string | null;
  /** Provider documents: the format a download or an import makes of them. */
  export: { mime_type: string; extension: string } | null;
  /** Why it cannot be imported (a Google Form, a shortcut), else null. */
  unsupported: string | null;
}

export interface DriveListing {
  folder: string | null;
  items: DriveItem[];
  next_cursor: string | null;
}

export interface DriveListQuery {
  folder?: string;
  q?: string;
  cursor?: string;
  limit?: number;
}

export type ImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';
export type ImportItemStatus = 'pending' | 'imported' | 'skipped' | 'failed';

export interface DriveImportItem {
  file_id: string;
  kind: 'file' | 'folder';
  name: string;
  /** Drive folders from the selection down to the item, joined by /. */
  path: string;
  size: number | null;
  status: ImportItemStatus;
  reason: string | null;
  message: string | null;
  asset_id: number | null;
  folder_id: number | null;
  bytes: number;
}

export interface DriveImportSummary {
  id: number;
  provider: DriveProviderId;
  workspace_id: number;
  folder_id: number | null;
  recursive: boolean;
  status: ImportStatus;
  /** True once every file to import is known (total_files is final). */
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
  created_at: number;
  updated_at: number;
}

export interface DriveImport extends DriveImportSummary {
  items: { items: DriveImportItem[]; page: number; per_page: number; total: number };
}

export interface ImportRequest {
  workspaceId: number;
  folder_id?: number;
  items: { id: string }[];
  recursive?: boolean;
}

export interface UploadRequest {
  assetId: number;
  version_id?: number;
  folder?: string;
}

/** Most items one import takes (the server's limit). */
export const MAX_IMPORT_ITEMS = 1000;

export const drivesApi = {
  list: () => requestData<{ providers: DriveProvider[] }>('GET', '/drives'),
  /** The provider's authorization URL; the answer also sets the cookie that binds the callback to this browser. */
  auth: (id: DriveProviderId, query: { workspaceId?: number; return_to?: string } = {}) =>
    requestData<{ url: string; expires_at: number }>('GET', `/${id}/auth`, { query }),
  files: (id: DriveProviderId, query: DriveListQuery = {}, signal?: AbortSignal) =>
    requestData<DriveListing>('GET', `/${id}/files`, { query: { ...query }, signal }),
  disconnect: (id: DriveProviderId) => requestData<{ provider: DriveProviderId; revoked: boolean }>('DELETE', `/${id}/connection`),
  upload: (id: DriveProviderId, body: UploadRequest) => requestData<DriveItem>('POST', `/${id}/upload`, { body }),
  startImport: (id: DriveProviderId, body: ImportRequest) => requestData<DriveImport>('POST', `/${id}/import`, { body }),
  importStatus: (importId: number, query: { page?: number; per_page?: number; status?: ImportItemStatus } = {}, signal?: AbortSignal) =>
    requestData<DriveImport>('GET', `/drives/imports/${importId}`, { query, signal }),
  imports: (workspaceId: number, page = 1, perPage = 20) =>
    requestData<{ items: DriveImportSummary[]; page: number; per_page: number }>('GET', '/drives/imports', { query: { workspaceId, page, per_page: perPage } }),
};
export type DrivesApi = typeof drivesApi;
