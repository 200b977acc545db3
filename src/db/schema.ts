import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

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
  visibility: number;
  tags: string;
  created_at: number;
  modified_at: number;
}

export interface AssetsTable {
  id: Generated<number>;
  workspace_id: number;
  folder_id: number | null;
  display_file_name: string;
  file_name: string;
  file_type: string;
  mime_type: string;
  file_size: number;
  width: number | null;
  height: number | null;
  orientation: string | null;
  tags: string;
  visibility: number;
  metadata: string;
  storage_key: string | null;
  /** 'uploading' from start-upload until complete-upload; only 'ready' assets are listed. */
  status: Generated<'uploading' | 'ready'>;
  created_by: string;
  created_at: number;
  modified_at: number;
}

export interface CollectionsTable {
  id: Generated<number>;
  workspace_id: number;
  name: string;
  description: string;
  visibility: number;
  tags: string;
  created_at: number;
  modified_at: number;
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
}

export type UploadSessionRow = Selectable<UploadSessionsTable>;

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
