import { requestData } from './http';
import type { FileType, Page } from './types';

/** Shapes of the shared-link API (issue #14, /shared; the schemas in src/routes/share-schemas.ts). */

export type ShareTargetKind = 'assets' | 'folder' | 'collection' | 'version';
export type ShareStatus = 'active' | 'expired' | 'revoked';

/** Exactly one target of a new link. */
export type ShareTarget = { asset_ids: number[] } | { folder_id: number } | { collection_id: number } | { version_id: number };

export interface Share {
  id: number;
  workspace_id: number;
  key: string;
  /** The page to give people: {DAM_PUBLIC_URL}/s/{key}. */
  url: string;
  target: ShareTargetKind;
  asset_ids: number[];
  folder_id: number | null;
  collection_id: number | null;
  version_id: number | null;
  /** Unix seconds; null: never. */
  expires_at: number | null;
  has_password: boolean;
  allow_download: boolean;
  max_downloads: number | null;
  download_count: number;
  view_count: number;
  last_accessed_at: number | null;
  description: string | null;
  status: ShareStatus;
  created_by: { id: number | null; name: string };
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
}

export interface ShareSettings {
  /** Omitted on create: 30 days from now; null: never (workspace admins only). */
  expires_at?: number | null;
  /** On PATCH, null removes the password. */
  password?: string | null;
  allow_download?: boolean;
  max_downloads?: number | null;
  description?: string | null;
}

export type ShareCreateRequest = { workspaceId: number } & ShareTarget & ShareSettings;
/** At least one setting; only those sent change. */
export type SharePatch = ShareSettings;

export type AccessAction = 'view' | 'download' | 'zip' | 'unlock' | 'unlock-failed';

export interface AccessEntry {
  id: number;
  action: AccessAction;
  /** The file downloaded; null for other actions. */
  asset_id: number | null;
  address: string;
  user_agent: string | null;
  created_at: number;
}

/** Issue #14: the managing side of shared links (managers and admins of the workspace). */
export const sharesApi = {
  create: (body: ShareCreateRequest) => requestData<Share>('POST', '/shared', { body }),
  list: (workspaceId: number, page = 1, perPage = 20, status?: ShareStatus) =>
    requestData<Page<Share>>('GET', '/shared', { query: { workspaceId, page, per_page: perPage, status } }),
  get: (id: number) => requestData<Share>('GET', `/shared/${id}`),
  update: (id: number, patch: SharePatch) => requestData<Share>('PATCH', `/shared/${id}`, { body: patch }),
  /** Revokes at once; the link stays listed as revoked. */
  revoke: (id: number) => requestData<Share>('DELETE', `/shared/${id}`),
  accessLog: (id: number, page = 1, perPage = 20) =>
    requestData<Page<AccessEntry>>('GET', `/shared/${id}/access-log`, { query: { page, per_page: perPage } }),
};
export type SharesApi = typeof sharesApi;

/** One item of a link as its public page shows it. */
export interface ShareItem {
  id: number;
  display_file_name: string;
  file_type: FileType;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  version: string;
  /** A folder link: the folders below the shared folder down to the item's; [] otherwise. */
  folder_path: string[];
  /** Signed, expiring; a file-type icon when there is no thumbnail. */
  thumbnail_url: string;
  preview_url: string | null;
  /** A video's web-playable MP4 (signed, expiring; issue #15); null for other files and until it is ready. Older servers leave it out. */
  video_url?: string | null;
  /** Null when downloads are not allowed; add ?st= for a password-protected link. */
  download_url: string | null;
}

export interface PublicShare {
  /** The folder's or collection's name, the asset's of a version link; null for a list of assets. */
  name: string | null;
  description: string | null;
  target: ShareTargetKind;
  expires_at: number | null;
  allow_download: boolean;
  /** null: no limit; 0: downloads answer 410. */
  downloads_left: number | null;
  zip_url: string | null;
  items: ShareItem[];
  page: number;
  per_page: number;
  total: number;
}

export interface ShareUnlock {
  token: string;
  /** Unix seconds. */
  expires_at: number;
}
