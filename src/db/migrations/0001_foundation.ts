import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// Kysely migrations are typed against `any`: the schema they build is the one
// src/db/schema.ts describes once they have run.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('users'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('is_instance_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('modified_at', d.bigint, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('expires_at', d.bigint, (c) => c.notNull())
    .addColumn('revoked_at', d.bigint)
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

  await d
    .addIdColumn(db.schema.createTable('workspaces'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('modified_at', d.bigint, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workspace_members')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('viewer', 'manager', 'admin')`))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('workspace_members_pk', ['workspace_id', 'user_id'])
    .execute();
  await db.schema.createIndex('workspace_members_user_idx').on('workspace_members').column('user_id').execute();

  await d
    .addIdColumn(db.schema.createTable('folders'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('parent_id', 'integer', (c) => c.references('folders.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('visibility', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('modified_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('folders_workspace_parent_idx').on('folders').columns(['workspace_id', 'parent_id']).execute();

  await d
    .addIdColumn(db.schema.createTable('assets'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('folder_id', 'integer', (c) => c.references('folders.id').onDelete('set null'))
    .addColumn('display_file_name', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('file_size', d.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('orientation', 'text')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('visibility', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('storage_key', 'text')
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('modified_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('assets_workspace_folder_idx').on('assets').columns(['workspace_id', 'folder_id', 'id']).execute();
  await db.schema.createIndex('assets_folder_idx').on('assets').column('folder_id').execute();

  await d
    .addIdColumn(db.schema.createTable('collections'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('visibility', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('modified_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('collections_workspace_idx').on('collections').column('workspace_id').execute();

  await db.schema
    .createTable('collection_assets')
    .addColumn('collection_id', 'integer', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('added_at', d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('collection_assets_pk', ['collection_id', 'asset_id'])
    .execute();
  await db.schema.createIndex('collection_assets_asset_idx').on('collection_assets').column('asset_id').execute();
}
