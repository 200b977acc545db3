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

/** GET/PATCH /auth/me: the user plus the account's own fields. */
export interface AccountUser extends User {
  /** E.164, or null. */
  phone: string | null;
}

/** Why POST /phone-number/validate found a number not valid. */
export type PhoneReason = 'NOT_A_NUMBER' | 'INVALID_COUNTRY' | 'TOO_SHORT' | 'TOO_LONG' | 'INVALID_LENGTH' | 'INVALID_NUMBER';

export interface PhoneCheck {
  valid: boolean;
  possible: boolean;
  e164: string | null;
  international: string | null;
  national: string | null;
  country: string | null;
  calling_code: string | null;
  type: string | null;
  extension: string | null;
  reason?: PhoneReason;
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
  /** Pages of a PDF or office document, counted by the preview job; null until then and for other files. */
  page_count?: number | null;
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

/** The fields a manager may edit of those read from the file (issue #12). */
export type EditableEmbeddedField = 'caption' | 'creator' | 'copyright' | 'usage_terms';

/**
 * Issue #12: what the server read from the asset's current file (null: the file has none, or it was
 * not read yet). Answered with every asset; `embedded_metadata` (every tag, `Group:Tag`) by GET and
 * PATCH /dam/assets/:id only.
 */
export interface EmbeddedFields {
  /** Unix seconds; a date the file records without an offset counts as UTC. */
  taken_at: number | null;
  camera_make: string | null;
  camera_model: string | null;
  lens: string | null;
  iso: number | null;
  /** As cameras write it: "1/250" (seconds). */
  exposure: string | null;
  aperture: number | null;
  /** Millimetres. */
  focal_length: number | null;
  gps_lat: number | null;
  gps_lon: number | null;
  /** Seconds (audio, video). */
  duration: number | null;
  color_space: string | null;
  caption: string | null;
  creator: string | null;
  copyright: string | null;
  usage_terms: string | null;
  keywords: string[];
  /** The fields a user edited: reading the file again leaves them. */
  metadata_edited: EditableEmbeddedField[];
  /** The version the fields were read from; null until the first read finished. */
  metadata_version_id: number | null;
  embedded_metadata?: Record<string, unknown>;
}

/** GET /dam/assets/:id: an asset with its embedded metadata (older servers answer without it). */
export type AssetDetail = Asset & Partial<EmbeddedFields>;

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
export type SortBy =
  | 'modified_at:desc'
  | 'modified_at:asc'
  | 'created_at:desc'
  | 'created_at:asc'
  | 'display_file_name:asc'
  | 'display_file_name:desc'
  | 'file_size:desc'
  | 'file_size:asc'
  | 'taken_at:desc'
  | 'taken_at:asc';

/** Issue #12: the fields a search counts values of (`facet_by`). */
export type FacetField = 'file_type' | 'tags' | 'orientation' | 'visibility' | 'camera_model' | 'creator' | 'taken_year';

export interface SearchRequest {
  request: { q: string; collections: SearchCollection[]; sort_by?: SortBy };
  filterQuery?: Partial<Record<SearchCollection, string>>;
  commonSearchParams?: { query_by?: 'search_name'; per_page?: number; page?: number; facet_by?: string; max_facet_values?: number };
  workspace_id_filter?: string;
}

/** One facet_by field's most frequent values in the whole filtered result. */
export interface FacetCounts {
  field_name: string;
  counts: { value: string; count: number; highlighted?: string }[];
  /** The counts are estimated from a sample (large results). */
  sampled?: boolean;
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
  taken_at?: number | null;
  camera_model?: string | null;
  creator?: string | null;
}

export interface SearchResult {
  collection: SearchCollection;
  hits: { document: SearchDocument }[];
  found: number;
  page: number;
  request_params: { q: string; collection: SearchCollection; per_page?: number };
  /** One entry per facet_by field (issue #12). */
  facet_counts?: FacetCounts[];
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
  /** A version made by a restore: the version it copies (kept when that one is deleted later). */
  restored_from?: { id: number; version: string } | null;
  /** Pages of a PDF or office document; null while pending and for other files. */
  page_count?: number | null;
  /** Issue #15: how a video version plays in a browser; null for other files (and with video previews off); older servers leave it out. */
  video_preview?: VideoPreview | null;
}

/** Issue #15: a video version's web-playable MP4 (H.264/AAC within 720p). */
export interface VideoPreview {
  /** pending: being made; ready: play `url`; unavailable: none can be made (see note); failed: the job gave up. */
  status: 'pending' | 'ready' | 'unavailable' | 'failed';
  /** Signed, with Range support; the file's own URL when it already plays everywhere (source original). */
  url: string | null;
  mime_type: 'video/mp4' | null;
  source: 'transcode' | 'original' | null;
  note: string | null;
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

/** Issue #11: GET /dam/trash. */
export type TrashKind = 'asset' | 'folder' | 'collection';

export interface TrashItem {
  kind: TrashKind;
  id: number;
  /** An asset's display_file_name, a folder's or collection's name. */
  name: string;
  folder_id: number | null;
  deleted_at: number;
  /** Unix seconds: housekeeping deletes it for good from then on. */
  purge_at: number;
  /** Name (else e-mail) of who deleted it; null when that account is gone. */
  deleted_by: string | null;
  file_type: FileType | null;
  mime_type: string | null;
  file_size: number | null;
  thumbnail_url: string | null;
}

/** One requested id and what became of it (bulk actions, restore), in the order requested. */
export interface ItemResult {
  id: number;
  ok: boolean;
  /** When ok is false: NOT_FOUND, VALIDATION_ERROR. */
  code?: string;
  error?: string;
  /** Restore results only. */
  kind?: TrashKind;
}

export interface TrashEmptied {
  deleted_assets: number;
  deleted_folders: number;
  deleted_collections: number;
}

/** Issue #11: POST /dam/assets/bulk. */
export type BulkAction = 'delete' | 'move' | 'tag' | 'untag' | 'set_visibility';

export interface BulkRequest {
  workspaceId: number;
  asset_ids: number[];
  action: BulkAction;
  folder_id?: number | null;
  tags?: string[];
  visibility?: number;
}

/** Issue #11: GET /dam/activity. `before`/`after` are null when there was or is no value. */
export interface FieldChange {
  before: unknown;
  after: unknown;
  /** Metadata keys or list items left out of before/after. */
  omitted?: number;
}

export type ActivityAction =
  | 'asset.upload'
  | 'asset.update'
  | 'asset.move'
  | 'asset.trash'
  | 'asset.restore'
  | 'asset.delete'
  | 'version.upload'
  | 'version.restore'
  | 'version.delete'
  | 'folder.create'
  | 'folder.update'
  | 'folder.move'
  | 'folder.trash'
  | 'folder.restore'
  | 'folder.delete'
  | 'collection.create'
  | 'collection.update'
  | 'collection.trash'
  | 'collection.restore'
  | 'collection.delete'
  | 'collection.add_assets'
  | 'collection.remove_assets'
  | 'member.add'
  | 'member.remove'
  | 'member.role'
  | 'workspace.rename'
  | 'workspace.empty_trash'
  | 'workspace.purge_trash'
  | 'share.create'
  | 'share.update'
  | 'share.revoke';

export interface ActivityEntry {
  id: number;
  workspace_id: number;
  action: ActivityAction;
  /** id null and name `system` for changes made by the system (housekeeping). */
  actor: { id: number | null; name: string };
  subject: { kind: 'asset' | 'version' | 'folder' | 'collection' | 'user' | 'workspace' | 'share'; id: number; name: string };
  asset_id: number | null;
  changes: Record<string, FieldChange>;
  created_at: number;
}

export interface ActivityPage {
  items: ActivityEntry[];
  /** Pass as `before` for the next page; null on the last page. */
  next_before: number | null;
}

/** Issue #13: POST /generate-image. */
export interface GenerateImageRequest {
  workspaceId: number;
  prompt: string;
  negative_prompt?: string;
  size?: string;
  n?: number;
  folder_id?: number;
}

/** Issue #13: a generation as POST and GET /generate-image answer it. */
export interface ImageGeneration {
  id: number;
  workspace_id: number;
  folder_id: number | null;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  prompt: string;
  negative_prompt: string | null;
  size: string;
  n: number;
  model: string;
  /** The assets made so far, in image order. */
  asset_ids: number[];
  /** Why it failed (the provider's reason); while queued after a failed try, that try's error. */
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** Issue #15: POST /convert/image. */
export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'tiff' | 'gif';
/** Issue #15: POST /convert/video (mp3 and m4a: the sound only). */
export type VideoFormat = 'mp4' | 'webm' | 'gif' | 'mp3' | 'm4a';
export type ConversionTarget = 'new_asset' | 'new_version';
export type Fit = 'inside' | 'cover' | 'contain';

export interface ConvertImageRequest {
  assetId: number;
  format: ImageFormat;
  width?: number;
  height?: number;
  fit?: Fit;
  enlarge?: boolean;
  quality?: number;
  strip_metadata?: boolean;
  target?: ConversionTarget;
}

export interface ConvertVideoRequest {
  assetId: number;
  format: VideoFormat;
  max_height?: number;
  video_bitrate?: number;
  audio?: boolean;
  start?: number;
  duration?: number;
  target?: ConversionTarget;
}

export type ConversionStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

/** Issue #15: a conversion as POST /convert/* and GET /convert/status/:id answer it. */
export interface Conversion {
  id: number;
  kind: 'image' | 'video';
  workspace_id: number;
  asset_id: number;
  source_version_id: number;
  /** Every parameter with its default filled in (null: none). */
  params: Record<string, string | number | boolean | null>;
  /** queued also between retries, with that attempt's error. */
  status: ConversionStatus;
  /** 0-100. */
  progress: number;
  result_asset_id: number | null;
  result_version_id: number | null;
  error: string | null;
  requested_by: { id: number | null; name: string };
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface ConversionPage {
  items: Conversion[];
  next_before: number | null;
}
