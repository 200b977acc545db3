/** Shapes of the public API the client uses (see /openapi.json). */

export type Role = 'viewer' | 'manager' | 'admin';
export type FileType = 'image' | 'video' | 'audio' | 'document' | 'archive' | 'other';
export type Orientation = 'landscape' | 'portrait' | 'square';

/** seed 2.4 */
export interface User {
  id: number;
  email: string;
  name: string;
}

export interface WorkspaceItem {
  id: number;
  name: string;
  role: Role;
}

export interface AuthResult {
  user: User;
  token: string;
  workspaces: WorkspaceItem[];
}

export interface Envelope<T> {
  success: true;
  data: T;
}

export interface Page<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

export interface Member {
  user_id: number;
  email: string;
  name: string;
  role: Role;
  created_at: number;
}

export interface Asset {
  id: number;
  workspace_id: number;
  folder_id: number | null;
  display_file_name: string;
  file_name: string;
  file_type: FileType;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  orientation: Orientation | null;
  tags: string[];
  visibility: number;
  metadata: Record<string, unknown>;
  created_by: string;
  created_at: number;
  modified_at: number;
  /** Present once the server makes thumbnails (signed URLs that work in <img>). */
  thumbnail_url?: string | null;
  file_url?: string | null;
}

export interface Folder {
  id: number;
  workspace_id: number;
  parent_id: number | null;
  name: string;
  visibility: number;
  tags: string[];
  created_at: number;
  modified_at: number;
}

export interface Collection {
  id: number;
  workspace_id: number;
  name: string;
  description: string;
  visibility: number;
  tags: string[];
  asset_count: number;
  created_at: number;
  modified_at: number;
}

export interface CollectionDetail extends Collection {
  asset_ids: number[];
}

/** seed 2.1 */
export type SearchCollection = 'digital_assets' | 'digital_assets_categories' | 'dam_collections';
export type SortBy = 'modified_at:desc' | 'modified_at:asc' | 'created_at:desc' | 'created_at:asc';

export interface SearchRequest {
  request: { q: string; collections: SearchCollection[]; sort_by?: SortBy };
  filterQuery?: Partial<Record<SearchCollection, string>>;
  commonSearchParams?: { query_by?: 'search_name'; per_page?: number; page?: number };
  workspace_id_filter?: string;
}

/** seed 2.2: id, display_file_name, file_type and modified_at always; the rest when the server indexes it. */
export interface SearchDocument {
  id: string;
  display_file_name: string;
  file_type: string;
  modified_at: number;
  workspace_id?: number;
  created_at?: number;
  tags?: string[];
  visibility?: number;
  orientation?: Orientation | null;
  folder_id?: number | null;
  file_name?: string;
  mime_type?: string;
  file_size?: number;
  width?: number | null;
  height?: number | null;
  thumbnail_url?: string | null;
}

export interface SearchResult {
  collection: SearchCollection;
  hits: { document: SearchDocument }[];
  found: number;
  page: number;
  request_params: { q: string; collection: SearchCollection; per_page?: number };
}

export interface SearchResponse {
  results: SearchResult[];
}

/** seed 2.5 */
export interface Version {
  id: number;
  version: string;
  asset_id: number;
  file_name: string;
  display_file_name: string;
  file_size: number;
  mime_type: string;
  created_at: string | number;
  created_by: string;
  thumbnail_url: string | null;
  file_url: string | null;
  is_current: boolean;
  metadata: Record<string, unknown>;
  /** pending: the thumbnail and preview are being made; unavailable: none can be made. */
  preview_status?: 'pending' | 'ready' | 'unavailable' | 'failed';
}

export interface VersionPreview {
  url: string;
  mime_type: string;
  width: number | null;
  height: number | null;
}

export interface SocialConfig {
  provider: 'google';
  client_id: string | null;
  authorize_url: string | null;
  registration_open: boolean;
}

/** seed 2.3 */
export interface UploadPart {
  ETag: string;
  PartNumber: number;
}
