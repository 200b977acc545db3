import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * External drives (issue #16).
 * - drive_connections: one per user and provider; tokens sealed with AES-256-GCM (src/drives/token-cipher.ts).
 * - drive_oauth_states: the single-use half of an authorization request (nonce, sealed PKCE verifier, browser
 *   binding, where to return); the callback deletes its row, so a state works once.
 * - drive_imports / drive_import_items: an import job and what became of each drive file and folder.
 * - drive_asset_links: which drive file (and revision) an asset was imported from into which folder, so
 *   importing the same file into the same folder again skips it, or adds a version when it changed.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('drive_connections'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('account_email', 'text')
    .addColumn('account_name', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('access_token', 'text', (c) => c.notNull())
    .addColumn('refresh_token', 'text')
    .addColumn('expires_at', d.bigint)
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'reauth_required')`))
    .addColumn('status_note', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('drive_connections_user_provider_idx').on('drive_connections').columns(['user_id', 'provider']).unique().execute();

  await db.schema
    .createTable('drive_oauth_states')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'integer', (c) => c.references('workspaces.id').onDelete('cascade'))
    .addColumn('expires_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('drive_oauth_states_expiry_idx').on('drive_oauth_states').column('expires_at').execute();
  await db.schema.createIndex('drive_oauth_states_user_idx').on('drive_oauth_states').column('user_id').execute();

  await d
    .addIdColumn(db.schema.createTable('drive_imports'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('folder_id', 'integer', (c) => c.references('folders.id').onDelete('set null'))
    .addColumn('requested_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('requested_by_name', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    // JSON array of the drive ids asked for (at most 1,000).
    .addColumn('requested_ids', 'text', (c) => c.notNull())
    .addColumn('recursive', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'succeeded', 'failed')`))
    // 1 once every file to import is listed in drive_import_items.
    .addColumn('planned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('drive_imports_workspace_idx').on('drive_imports').column('workspace_id').execute();

  await d
    .addIdColumn(db.schema.createTable('drive_import_items'))
    .addColumn('import_id', 'integer', (c) => c.notNull().references('drive_imports.id').onDelete('cascade'))
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('file', 'folder')`))
    .addColumn('name', 'text', (c) => c.notNull())
    // Folder names from the import's top to this item, joined by /.
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text')
    .addColumn('size', d.bigint)
    .addColumn('revision', 'text')
    .addColumn('export_mime_type', 'text')
    .addColumn('export_extension', 'text')
    .addColumn('unsupported', 'text')
    // Where a file goes, or the folder a drive folder became (null: the workspace's top level).
    .addColumn('folder_id', 'integer', (c) => c.references('folders.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'imported', 'skipped', 'failed')`))
    .addColumn('reason', 'text')
    .addColumn('message', 'text')
    .addColumn('asset_id', 'integer', (c) => c.references('assets.id').onDelete('set null'))
    .addColumn('bytes', d.bigint, (c) => c.notNull().defaultTo(0))
    .execute();
  // A drive file is imported once per import, whatever folders it appears in; a re-run of the planning adds nothing twice.
  await db.schema.createIndex('drive_import_items_file_idx').on('drive_import_items').columns(['import_id', 'file_id']).unique().execute();
  await db.schema.createIndex('drive_import_items_status_idx').on('drive_import_items').columns(['import_id', 'status', 'id']).execute();
  await db.schema.createIndex('drive_import_items_asset_idx').on('drive_import_items').column('asset_id').execute();
  await db.schema.createIndex('drive_import_items_folder_idx').on('drive_import_items').column('folder_id').execute();

  await db.schema
    .createTable('drive_asset_links')
    .addColumn('asset_id', 'integer', (c) => c.primaryKey().references('assets.id').onDelete('cascade'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('file_id', 'text', (c) => c.notNull())
    .addColumn('revision', 'text')
    // The folder the file was imported into, 0 for the top level (a unique key with a nullable column would let duplicates in).
    .addColumn('folder_key', 'integer', (c) => c.notNull())
    .addColumn('imported_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('drive_asset_links_file_idx')
    .on('drive_asset_links')
    .columns(['workspace_id', 'provider', 'account_id', 'file_id', 'folder_key'])
    .unique()
    .execute();
}
