import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Shared links (issue #14): public links to a list of assets, a folder (with its sub-folders), a
 * collection or one pinned version, with expiry, password, download limit and an access log.
 *
 * The key is stored as it is (unique index): managers read it back (GET /shared/:id answers the
 * link's url), and the public routes find a link by it. A link's target columns are set null when
 * the folder, collection or version is deleted for good: the link then answers 404 like a revoked one.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('shared_links'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('target_kind', 'text', (c) => c.notNull().check(sql`target_kind in ('assets', 'folder', 'collection', 'version')`))
    .addColumn('folder_id', 'integer', (c) => c.references('folders.id').onDelete('set null'))
    .addColumn('collection_id', 'integer', (c) => c.references('collections.id').onDelete('set null'))
    .addColumn('version_id', 'integer', (c) => c.references('asset_versions.id').onDelete('set null'))
    // scrypt (src/services/passwords.ts); null: no password.
    .addColumn('password_hash', 'text')
    .addColumn('expires_at', d.bigint)
    .addColumn('allow_download', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('max_downloads', 'integer')
    .addColumn('download_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('view_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_accessed_at', d.bigint)
    .addColumn('description', 'text')
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_by_name', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .addColumn('revoked_at', d.bigint)
    .execute();
  await db.schema.createIndex('shared_links_key_idx').on('shared_links').column('key').unique().execute();
  // The management list: a workspace's links, newest first.
  await db.schema.createIndex('shared_links_workspace_idx').on('shared_links').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('shared_links_folder_idx').on('shared_links').column('folder_id').execute();
  await db.schema.createIndex('shared_links_collection_idx').on('shared_links').column('collection_id').execute();
  await db.schema.createIndex('shared_links_version_idx').on('shared_links').column('version_id').execute();

  // The assets of a link to a list of assets, in the order given; an asset deleted for good leaves the link.
  await db.schema
    .createTable('shared_link_assets')
    .addColumn('link_id', 'integer', (c) => c.notNull().references('shared_links.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('shared_link_assets_pk', ['link_id', 'asset_id'])
    .execute();
  await db.schema.createIndex('shared_link_assets_asset_idx').on('shared_link_assets').column('asset_id').execute();

  // Every public access; the wrong-password throttle counts its unlock-failed rows per link and address.
  await d
    .addIdColumn(db.schema.createTable('shared_link_access'))
    .addColumn('link_id', 'integer', (c) => c.notNull().references('shared_links.id').onDelete('cascade'))
    .addColumn('action', 'text', (c) => c.notNull().check(sql`action in ('view', 'download', 'zip', 'unlock', 'unlock-failed')`))
    // No foreign key: the log keeps naming an asset deleted since.
    .addColumn('asset_id', 'integer')
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('shared_link_access_link_idx').on('shared_link_access').columns(['link_id', 'id']).execute();
  await db.schema
    .createIndex('shared_link_access_throttle_idx')
    .on('shared_link_access')
    .columns(['link_id', 'address', 'created_at'])
    .execute();
}
