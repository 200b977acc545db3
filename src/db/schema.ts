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
  /** Issue #27 (migration 0024): disabled since (Unix seconds); null: enabled. */
  disabled_at: Generated<number | null>;
  last_login_at: Generated<number | null>;
  /** 1 after an admin set a temporary password: every route but a few answers 403 until it is changed. */
  must_change_password: Generated<number>;
  /** Issue #29 (migration 0031): the web client's language (en, de, fr, es); null: follow the browser. */
  locale: Generated<string | null>;
}

export interface SessionsTable {
  id: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** Issue #27 (migration 0024): the client's address and User-Agent at sign-in, the last use (at most once a minute). */
  ip: Generated<string | null>;
  user_agent: Generated<string | null>;
  last_used_at: Generated<number | null>;
}

/** Issue #27 (migration 0024): a workspace admin's invitation of an e-mail; the token is stored as its SHA-256. */
export interface InvitationsTable {
  id: Generated<number>;
  workspace_id: number;
  email: string;
  role: Role;
  token_hash: string;
  invited_by: number | null;
  invited_by_name: string;
  created_at: number;
  expires_at: number;
  last_sent_at: number;
  accepted_at: number | null;
  accepted_by: number | null;
  revoked_at: number | null;
}

export type PasswordLinkPurpose = 'reset' | 'setup';

/** Issue #27 (migration 0024): single-use links that set a password, stored as the SHA-256 of the token. */
export interface PasswordLinksTable {
  token_hash: string;
  user_id: number;
  purpose: PasswordLinkPurpose;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface WorkspacesTable {
  id: Generated<number>;
  name: string;
  created_at: number;
  modified_at: number;
  /** The account that created it (issue #28: DAM_MAX_WORKSPACES_PER_USER); null before 0028 and after its deletion. */
  created_by: Generated<number | null>;
  /** How many days ahead its managers may set a shared link's expiry (issue #28, migration 0029); admins are not capped. */
  share_max_expiry_days: Generated<number>;
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
  /** SHA-256 (lowercase hex) of the current version's file (migration 0022, issue #19); null until hashed. */
  sha256: Generated<string | null>;
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
  /**
   * Who brought it in (users.id; migration 0025, issue #27): the uploader, or whoever asked for the conversion, generation
   * or import that made it. Null for assets older than the column (created_by is only a display name) or when the
   * account is gone. A private asset (visibility not 0) is visible to its uploader, managers and admins only
   * (src/domain/asset-visibility.ts).
   */
  uploaded_by: Generated<number | null>;
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
  /**
   * Why the current version's file cannot be read, in plain words (migration 0026, issue #27): set by its preview job
   * (src/services/unreadable-files.ts), null when it is readable or not checked yet. The file is kept.
   */
  unreadable_reason: Generated<string | null>;
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
  /** Storage bytes start-upload reserved for this upload (migration 0020), grown as parts arrive; 0 once released. */
  reserved_bytes: Generated<number>;
  /** The `fileSize` start-upload declared (migration 0030); null: none. Bounds the bytes the parts may hold together. */
  declared_size: Generated<number | null>;
}

export interface UploadPartsTable {
  upload_id: string;
  part_number: number;
  etag: string;
  size: number;
  uploaded_at: number;
  /** The local store's file of the part's current body (migration 0030); null: `<n>-<md5>`, from before it. */
  file: Generated<string | null>;
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
  /**
   * The web-playable MP4 preview of a video (migration 0017): null for other types; 'original' when the
   * file itself plays in browsers (no transcode); the transcode is the 'video' rendition.
   */
  video_preview_status: Generated<'pending' | 'ready' | 'original' | 'unavailable' | 'failed' | null>;
  /** Why the video preview is unavailable or failed. */
  video_preview_note: Generated<string | null>;
  /** SHA-256 (lowercase hex) of the file (migration 0022, issue #19), set by the version.sha256 job; null until then. */
  sha256: Generated<string | null>;
  /** Why this version's file cannot be read, in plain words (migration 0026, issue #27); null = readable or not checked. */
  unreadable_reason: Generated<string | null>;
}

export interface VersionRenditionsTable {
  version_id: number;
  /** 'video': the MP4 preview of a video version (migration 0017). */
  kind: 'thumbnail' | 'preview' | 'video';
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

export type ShareTargetKind = 'assets' | 'folder' | 'collection' | 'version';

/** A shared link (migration 0015, issue #14): a public URL to a list of assets, a folder, a collection or a pinned version. */
export interface SharedLinksTable {
  id: Generated<number>;
  workspace_id: number;
  /** base64url of 18 random bytes; the link is `{DAM_PUBLIC_URL}/s/{key}`. Stored as is: managers read it back. */
  key: string;
  target_kind: ShareTargetKind;
  /** The target of a folder / collection / version link; set null when it is deleted for good (the link is then gone). */
  folder_id: number | null;
  collection_id: number | null;
  version_id: number | null;
  /** scrypt (src/services/passwords.ts); null: no password. */
  password_hash: string | null;
  /** Unix seconds; null: never expires. */
  expires_at: number | null;
  /** 0/1. */
  allow_download: number;
  /** null: unlimited. */
  max_downloads: number | null;
  download_count: Generated<number>;
  view_count: Generated<number>;
  last_accessed_at: number | null;
  description: string | null;
  created_by: number | null;
  created_by_name: string;
  created_at: number;
  updated_at: number;
  /** Unix seconds; null: not revoked. */
  revoked_at: number | null;
}

/** The assets of a link to a list of assets (migration 0015), in the order given. */
export interface SharedLinkAssetsTable {
  link_id: number;
  asset_id: number;
  position: number;
}

export type ShareAccessAction = 'view' | 'download' | 'zip' | 'unlock' | 'unlock-failed';

/** One public access to a shared link (migration 0015). */
export interface SharedLinkAccessTable {
  id: Generated<number>;
  link_id: number;
  action: ShareAccessAction;
  /** The asset downloaded (no foreign key: the log outlives it). */
  asset_id: number | null;
  address: string;
  user_agent: string | null;
  created_at: number;
}

export type ZipImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** An import of a stored ZIP archive into the library (migration 0016, issue #14), run by a job. */
export interface ZipImportsTable {
  id: Generated<number>;
  workspace_id: number;
  /** The archive; null once that asset is deleted for good. */
  source_asset_id: number | null;
  /** Where the archive's top level goes; null: the workspace's top level (also when the folder is deleted meanwhile). */
  folder_id: number | null;
  requested_by: number | null;
  requested_by_name: string;
  status: ZipImportStatus;
  /** Entries of the archive, known once the job read its central directory (null before). */
  total_entries: number | null;
  /** Bytes inflated so far, counted as written (the DAM_ZIP_MAX_UNCOMPRESSED budget). */
  bytes_written: number;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export type ZipEntryOutcome = 'imported' | 'skipped' | 'failed';

/** What became of one entry of an import (migration 0016); `(import_id, entry_index)` is recorded once. */
export interface ZipImportEntriesTable {
  import_id: number;
  entry_index: number;
  /** The entry's name in the archive (as listed). */
  name: string;
  kind: 'file' | 'directory';
  outcome: ZipEntryOutcome;
  /** Why it was skipped or failed: an entry problem (unsafe_name, symlink, ...), too_large, limit, quota, corrupt, error. */
  reason: string | null;
  message: string | null;
  asset_id: number | null;
  folder_id: number | null;
}

export type ConversionStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';

/** An image or video conversion (migration 0017, issue #15), run by a job; params are the normalised request. */
export interface ConversionsTable {
  id: Generated<number>;
  workspace_id: number;
  asset_id: number;
  /** The version converted: the asset's current version when it was asked for. */
  source_version_id: number;
  kind: 'image' | 'video';
  /** JSON text: every parameter with its default filled in (src/domain/conversions.ts). */
  params: string;
  /** SHA-256 of source version + kind + params; unique while set (queued, running, succeeded), null otherwise. */
  dedup_key: string | null;
  status: ConversionStatus;
  /** 0-100. */
  progress: Generated<number>;
  /** The new asset (target new_asset) or the source asset (new_version); claimed before the file is stored. */
  result_asset_id: number | null;
  result_version_id: number | null;
  error: string | null;
  requested_by: number | null;
  requested_by_name: string;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export type DriveConnectionStatus = 'active' | 'reauth_required';

/** A user's connection to an external drive (migration 0018, issue #16); one per user and provider. */
export interface DriveConnectionsTable {
  id: Generated<number>;
  user_id: number;
  /** The provider's route segment: drive-ext-1, ... */
  provider: string;
  account_id: string;
  account_email: string | null;
  account_name: string | null;
  /** Granted scopes, space-separated. */
  scopes: string;
  /** Sealed (src/drives/token-cipher.ts), never the token itself. */
  access_token: string;
  refresh_token: string | null;
  /** Unix seconds the access token expires at, when the provider said. */
  expires_at: number | null;
  status: DriveConnectionStatus;
  /** Why it needs re-authorisation. */
  status_note: string | null;
  created_at: number;
  updated_at: number;
}

/** The server-side half of an authorization request (migration 0018); deleted by the callback that uses it. */
export interface DriveOAuthStatesTable {
  nonce: string;
  user_id: number;
  provider: string;
  /** The PKCE code verifier, sealed. */
  code_verifier: string;
  /** SHA-256 of the browser-binding cookie set with the authorization URL. */
  browser_hash: string;
  return_to: string;
  workspace_id: number | null;
  expires_at: number;
}

export type DriveImportStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** An import from an external drive (migration 0018), run by a job. */
export interface DriveImportsTable {
  id: Generated<number>;
  workspace_id: number;
  /** Where the selection goes; null: the top level (also when the folder is deleted meanwhile). */
  folder_id: number | null;
  requested_by: number | null;
  requested_by_name: string;
  provider: string;
  /** The drive account the ids belong to (the connection may be replaced by another account later). */
  account_id: string;
  /** JSON array of drive ids. */
  requested_ids: string;
  recursive: number;
  status: DriveImportStatus;
  planned: number;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export type DriveImportItemStatus = 'pending' | 'imported' | 'skipped' | 'failed';

/** One drive file or folder of an import (migration 0018). */
export interface DriveImportItemsTable {
  id: Generated<number>;
  import_id: number;
  file_id: string;
  kind: 'file' | 'folder';
  name: string;
  path: string;
  mime_type: string | null;
  size: number | null;
  revision: string | null;
  export_mime_type: string | null;
  export_extension: string | null;
  unsupported: string | null;
  folder_id: number | null;
  status: DriveImportItemStatus;
  reason: string | null;
  message: string | null;
  asset_id: number | null;
  bytes: number;
}

/** The drive file an asset was imported from (migration 0018): re-imports skip unchanged files. */
export interface DriveAssetLinksTable {
  asset_id: number;
  workspace_id: number;
  provider: string;
  account_id: string;
  file_id: string;
  revision: string | null;
  /** The folder imported into; 0: the top level. */
  folder_key: number;
  imported_at: number;
}

/** A workspace's Stripe customer and subscription state (migration 0019, issue #17). */
export interface WorkspaceBillingTable {
  workspace_id: number;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
  stripe_price_id: string | null;
  /** Stripe's subscription status; null: no subscription yet. */
  status: string | null;
  current_period_end: number | null;
  /** 0/1 */
  cancel_at_period_end: Generated<number>;
  past_due_since: number | null;
  created_at: number;
  updated_at: number;
}

/** A workspace's usage, kept exact by triggers (migration 0020, issue #17). */
export interface WorkspaceUsageTable {
  workspace_id: number;
  /** Bytes of every version and rendition row, trash included. */
  storage_bytes: Generated<number>;
  /** Bytes promised to started uploads (upload_sessions.reserved_bytes), not stored yet. */
  reserved_bytes: Generated<number>;
  members: Generated<number>;
  assets: Generated<number>;
  /** Unix seconds of the last reconciliation; 0: never. */
  reconciled_at: Generated<number>;
}

/** Stripe events processed once each (migration 0019). */
export interface PaymentEventsTable {
  event_id: string;
  type: string;
  workspace_id: number | null;
  received_at: number;
}

export interface SettingsTable {
  name: string;
  value: string;
}

/** Rate-limit windows shared by the processes on PostgreSQL (migration 0021). */
export interface RateLimitCountersTable {
  key: string;
  count: number;
  /** Unix milliseconds. */
  expires_at: number;
}

/**
 * A sweep's refusal to delete more of a workspace than DAM_SWEEP_MAX_PERCENT (migration 0032, issue #37): refused
 * (confirmed_at null), confirmed by an instance admin (the sweep then acts, in batches), settled once it is done.
 */
export interface SweepRefusalsTable {
  sweep: string;
  workspace_id: number;
  /** Items the sweep would delete (or, for a store that lists too little, objects missing from it). */
  would_delete: number;
  /** What the share is of: the workspace's items of that kind. */
  workspace_total: number;
  /** In words, for the admin: "would delete 40 of the workspace's 50 assets (trash older than 30 days)". */
  summary: string;
  /** JSON array of up to 10 of the items (ids, names, keys). */
  examples: string;
  refused_at: number;
  /** The last run that found it so. */
  seen_at: number;
  confirmed_at: number | null;
  confirmed_by: number | null;
  /** The confirmed sweep has finished (the row goes a day later). */
  settled_at: number | null;
}

/** A workspace's custom field (migration 0033, issue #30); a deleted one keeps its row so its key is never reused. */
export interface CustomFieldsTable {
  id: Generated<number>;
  workspace_id: number;
  key: string;
  label: string;
  type: string;
  required: number;
  help_text: string;
  /** Comma-separated: assets, folders, collections. */
  applies_to: string;
  editable_by: 'manager' | 'admin';
  per_version: number;
  num_min: number | null;
  num_max: number | null;
  num_decimals: number | null;
  position: number;
  hidden: number;
  retired_at: number | null;
  deleted_at: number | null;
  created_at: number;
  modified_at: number;
}

/** An option of a select or multi_select field's vocabulary, a tree through parent_id (migration 0033). */
export interface CustomFieldOptionsTable {
  id: Generated<number>;
  field_id: number;
  parent_id: number | null;
  label: string;
  position: number;
  deprecated_at: number | null;
  created_at: number;
}

/** One custom value of an asset, folder or collection (migration 0033): the column of its type is set. */
export interface CustomFieldValuesTable {
  id: Generated<number>;
  field_id: number;
  workspace_id: number;
  /** The search index's document key: ref_id * 4 + kind (src/search/collections.ts). */
  doc_id: number;
  asset_id: number | null;
  folder_id: number | null;
  collection_id: number | null;
  text_value: string | null;
  /** text_value with ASCII letters lower-cased (what filters compare). */
  text_folded: string | null;
  num_value: number | null;
  option_id: number | null;
  user_id: number | null;
}

/** A bulk edit of custom fields (migration 0034, issue #30); undone_at once undone. */
export interface BulkFieldEditsTable {
  id: Generated<number>;
  workspace_id: number;
  user_id: number | null;
  /** JSON: the operations as sent. */
  operations: string;
  matched: number;
  succeeded: number;
  created_at: number;
  undone_at: number | null;
}

/** One asset a bulk edit changed: its values of the keys touched, before and after (JSON, as PATCH writes them). */
export interface BulkFieldEditItemsTable {
  edit_id: number;
  asset_id: number;
  before: string;
  after: string;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  password_links: PasswordLinksTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  folders: FoldersTable;
  assets: AssetsTable;
  collections: CollectionsTable;
  collection_assets: CollectionAssetsTable;
  upload_sessions: UploadSessionsTable;
  upload_parts: UploadPartsTable;
  settings: SettingsTable;
  rate_limit_counters: RateLimitCountersTable;
  sweep_refusals: SweepRefusalsTable;
  custom_fields: CustomFieldsTable;
  custom_field_options: CustomFieldOptionsTable;
  custom_field_values: CustomFieldValuesTable;
  bulk_field_edits: BulkFieldEditsTable;
  bulk_field_edit_items: BulkFieldEditItemsTable;
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
  conversions: ConversionsTable;
  shared_links: SharedLinksTable;
  shared_link_assets: SharedLinkAssetsTable;
  shared_link_access: SharedLinkAccessTable;
  zip_imports: ZipImportsTable;
  zip_import_entries: ZipImportEntriesTable;
  drive_connections: DriveConnectionsTable;
  drive_oauth_states: DriveOAuthStatesTable;
  drive_imports: DriveImportsTable;
  drive_import_items: DriveImportItemsTable;
  drive_asset_links: DriveAssetLinksTable;
  workspace_billing: WorkspaceBillingTable;
  payment_events: PaymentEventsTable;
  workspace_usage: WorkspaceUsageTable;
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
export type InvitationRow = Selectable<InvitationsTable>;
export type PasswordLinkRow = Selectable<PasswordLinksTable>;
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
