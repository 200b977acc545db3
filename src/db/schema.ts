import type { Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  SearchAssetFactsTable,
  SearchDocumentsTable,
  SearchKeywordsTable,
  SearchNamesTable,
  SearchSortTable,
  SearchTagsTable,
} from '../search/tables.js';

/**
 * Table types for Kysely. Conventions that hold on both dialects:
 * - timestamps are integer Unix seconds (BIGINT on PostgreSQL, parsed to number);
 * - booleans are 0/1 integers;
 * - tags and metadata are JSON text (the search index keeps its own copy of tags).
 */
export type Role = 'viewer' | 'manager' | 'admin';

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  password_hash: string | null;
  is_instance_admin: Generated<number>;
  created_at: number;
  modified_at: number;
  /** E.164 (migration 0013, issue #13); null: none given. */
  phone: Generated<string | null>;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface WorkspacesTable {
  id: Generated<number>;
  name: string;
  created_at: number;
  modified_at: number;
}

export interface WorkspaceMembersTable {
  workspace_id: number;
  user_id: number;
  role: Role;
  created_at: number;
}

export interface FoldersTable {
  id: Generated<number>;
  workspace_id: number;
  parent_id: number | null;
  name: string;
  /** sortKey(name) (src/domain/sort-key.ts; migration 0010): the name order, written with every name. */
  name_key: string;
  visibility: number;
  tags: string;
  created_at: number;
  modified_at: number;
  /** In the trash since (Unix seconds; migration 0007); null = not trashed. */
  deleted_at: number | null;
  /** Who trashed it (users.id); null when not trashed or the account is gone. */
  deleted_by: number | null;
}

export interface AssetsTable {
  id: Generated<number>;
  workspace_id: number;
  folder_id: number | null;
  display_file_name: string;
  /** sortKey(display_file_name) (src/domain/sort-key.ts; migration 0010): the name order, written with every name. */
  name_key: string;
  file_name: string;
  file_type: string;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  orientation: string | null;
  /** Pages of the current version (migration 0008): PDFs and office documents; null when unknown or not paged. */
  page_count: Generated<number | null>;
  tags: string;
  visibility: number;
  metadata: string;
  storage_key: string | null;
  /** 'uploading' from start-upload until complete-upload; only 'ready' assets are listed. */
  status: Generated<'uploading' | 'ready'>;
  created_by: string;
  created_at: number;
  modified_at: number;
  /** In the trash since (Unix seconds; migration 0007); null = not trashed. */
  deleted_at: number | null;
  /** Who trashed it (users.id); null when not trashed or the account is gone. */
  deleted_by: number | null;
  // Embedded metadata (migration 0011, issue #12): read by ExifTool from the current file.
  /** Date taken, Unix seconds (DateTimeOriginal/CreateDate, with its offset when the file has one). */
  taken_at: Generated<number | null>;
  camera_make: Generated<string | null>;
  camera_model: Generated<string | null>;
  lens: Generated<string | null>;
  iso: Generated<number | null>;
  /** Exposure time as written by cameras, e.g. "1/250". */
  exposure: Generated<string | null>;
  aperture: Generated<number | null>;
  /** Millimetres. */
  focal_length: Generated<number | null>;
  gps_lat: Generated<number | null>;
  gps_lon: Generated<number | null>;
  /** Seconds (audio, video). */
  duration: Generated<number | null>;
  color_space: Generated<string | null>;
  caption: Generated<string | null>;
  creator: Generated<string | null>;
  copyright: Generated<string | null>;
  usage_terms: Generated<string | null>;
  /** JSON array: the file's own keywords as last read (merged into tags when new). */
  keywords: Generated<string>;
  /** JSON object: the full tag set, size-capped, binary values dropped (answered as embedded_metadata by GET /dam/assets/:id). */
  embedded_metadata: Generated<string>;
  /** JSON array of the fields a user edited (caption, creator, copyright, usage_terms): never overwritten by an extraction. */
  metadata_edited: Generated<string>;
  /** The version the embedded fields were read from; null until read. */
  metadata_version_id: Generated<number | null>;
}

export interface CollectionsTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  /** sortKey(name) (src/domain/sort-key.ts; migration 0010): the name order, written with every name. */
  name_key: string;
  description: string;
  visibility: number;
  tags: string;
  created_at: number;
  modified_at: number;
  /** In the trash since (Unix seconds; migration 0007); null = not trashed. */
  deleted_at: number | null;
  /** Who trashed it (users.id); null when not trashed or the account is gone. */
  deleted_by: number | null;
}

export interface CollectionAssetsTable {
  collection_id: number;
  asset_id: number;
  position: number;
  added_at: number;
}

export interface UploadSessionsTable {
  id: string;
  workspace_id: number;
  asset_id: number;
  user_id: number | null;
  storage_key: string;
  mime_type: string;
  file_name: string;
  created_at: number;
  touched_at: number;
  completed_at: number | null;
  completion: string | null;
  /** The version this upload fills (migration 0004): v1 of a new asset, or a new version of an existing one. */
  version_id: Generated<number | null>;
}

export interface UploadPartsTable {
  upload_id: string;
  part_number: number;
  etag: string;
  size: number;
  uploaded_at: number;
}

export interface ObjectDeletionsTable {
  id: Generated<number>;
  storage_key: string;
  queued_at: number;
  attempts: Generated<number>;
}

/** seed 2.5: one file of an asset. `number` is the label vN, assigned when the upload completes. */
export interface AssetVersionsTable {
  id: Generated<number>;
  asset_id: number;
  workspace_id: number;
  /** null while 'uploading'. */
  number: number | null;
  status: 'uploading' | 'ready';
  /** 0/1; at most one 1 per asset (partial unique index, seed 3). */
  is_current: Generated<number>;
  file_name: string;
  display_file_name: string;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  /** JSON text; for the current version the asset's own metadata is authoritative. */
  metadata: string;
  storage_key: string;
  /** Pages (migration 0008), counted by the rendition job for PDFs and office documents; null when unknown or not paged. */
  page_count: Generated<number | null>;
  preview_status: Generated<'pending' | 'ready' | 'unavailable' | 'failed'>;
  /** Why the preview is unavailable or failed. */
  preview_note: string | null;
  created_by: string;
  created_at: number;
  /** The version a restore copied (migration 0009): its id and label as they were; null for uploads. */
  restored_from_id: Generated<number | null>;
  restored_from_number: Generated<number | null>;
}

export interface VersionRenditionsTable {
  version_id: number;
  kind: 'thumbnail' | 'preview';
  storage_key: string;
  mime_type: string;
  width: number;
  height: number;
  file_size: number;
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** The durable job queue (src/jobs/). Times are Unix seconds. */
export interface JobsTable {
  id: Generated<number>;
  kind: string;
  /** JSON text. */
  payload: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  /** Not claimed before this time (retries back off). */
  run_at: number;
  locked_by: string | null;
  /** A 'running' job whose lease ran out (its worker died) is claimed again. */
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** A user's account at an identity provider (migration 0005), found by the provider's subject. */
export interface UserIdentitiesTable {
  provider: string;
  subject: string;
  user_id: number;
  email: string | null;
  created_at: number;
  last_login_at: number;
}

/** seed 5.4: SHA-256 (hex) of provider tokens already exchanged, kept until the token expires. */
export interface SocialUsedTokensTable {
  token_hash: string;
  expires_at: number;
}

/** Idempotency-Key (migration 0006): a user's key, its request's fingerprint and, once answered, the answer. */
export interface IdempotencyKeysTable {
  user_id: number;
  idempotency_key: string;
  /** SHA-256 (hex) of method, route, path params, query and body (file parts by their bytes). */
  fingerprint: string;
  /** Random per claim, so only the request that claimed the key records or releases it. */
  claim_id: string;
  created_at: number;
  /** null while the first request is still running. */
  status_code: number | null;
  content_type: string | null;
  response_body: string | null;
}

/** The activity log (migration 0009): who changed what, when, with the before/after of the changed fields. */
export interface ActivityTable {
  id: Generated<number>;
  workspace_id: number;
  /** null for changes made by the system (housekeeping), or once the user is deleted. */
  actor_id: number | null;
  actor_name: string;
  action: string;
  subject_kind: string;
  subject_id: number;
  subject_name: string;
  /** The asset the entry belongs to (its own changes and its versions'), for an asset's history. */
  asset_id: number | null;
  /** JSON text: { field: { before, after } }, values capped (src/domain/activity.ts). */
  changes: string;
  created_at: number;
}

export type ImageGenerationStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** AI image generation (migration 0014, issue #13): one request, run by a job. */
export interface ImageGenerationsTable {
  id: Generated<number>;
  workspace_id: number;
  /** Where the images go; null: the top level (also when the folder was deleted meanwhile). */
  folder_id: number | null;
  /** null once the account is deleted; the name stays for created_by. */
  requested_by: number | null;
  requested_by_name: string;
  prompt: string;
  negative_prompt: string | null;
  size: string;
  /** Images asked for (counted by the daily limit). */
  n: number;
  model: string;
  status: ImageGenerationStatus;
  /** Why it failed (the provider's reason), or the last error while it is retried. */
  error: string | null;
  created_at: number;
  updated_at: number;
}

/** One image of a generation (migration 0014): the claim that makes its asset exist once. */
export interface ImageGenerationImagesTable {
  generation_id: number;
  image_index: number;
  /** null once the asset was deleted: made once, not made again. */
  asset_id: number | null;
  /** The asset's v1, reserved with it (promoted once the file is stored). */
  version_id: number | null;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  folders: FoldersTable;
  assets: AssetsTable;
  collections: CollectionsTable;
  collection_assets: CollectionAssetsTable;
  upload_sessions: UploadSessionsTable;
  upload_parts: UploadPartsTable;
  settings: SettingsTable;
  object_deletions: ObjectDeletionsTable;
  user_identities: UserIdentitiesTable;
  social_used_tokens: SocialUsedTokensTable;
  idempotency_keys: IdempotencyKeysTable;
  activity: ActivityTable;
  asset_versions: AssetVersionsTable;
  version_renditions: VersionRenditionsTable;
  jobs: JobsTable;
  image_generations: ImageGenerationsTable;
  image_generation_images: ImageGenerationImagesTable;
  search_documents: SearchDocumentsTable;
  search_names: SearchNamesTable;
  search_sort: SearchSortTable;
  search_tags: SearchTagsTable;
  search_asset_facts: SearchAssetFactsTable;
  search_keywords: SearchKeywordsTable;
}

export type UploadSessionRow = Selectable<UploadSessionsTable>;
export type AssetVersionRow = Selectable<AssetVersionsTable>;
export type RenditionRow = Selectable<VersionRenditionsTable>;
export type JobRow = Selectable<JobsTable>;
export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

export type UserRow = Selectable<UsersTable>;
export type WorkspaceRow = Selectable<WorkspacesTable>;
export type FolderRow = Selectable<FoldersTable>;
export type NewFolder = Insertable<FoldersTable>;
export type FolderUpdate = Updateable<FoldersTable>;
export type AssetRow = Selectable<AssetsTable>;
export type NewAsset = Insertable<AssetsTable>;
export type AssetUpdate = Updateable<AssetsTable>;
export type CollectionRow = Selectable<CollectionsTable>;
export type NewCollection = Insertable<CollectionsTable>;
export type CollectionUpdate = Updateable<CollectionsTable>;
