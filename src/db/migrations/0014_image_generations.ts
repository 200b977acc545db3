import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * AI image generation (issue #13): one row per request, run by a job, and one row per image
 * of it. The image row is the claim that makes a generation's assets exist once, however often
 * its job runs: `(generation_id, image_index)` is its primary key and is inserted in the
 * transaction that creates the asset.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('image_generations'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    // A folder deleted meanwhile: the images land at the top level.
    .addColumn('folder_id', 'integer', (c) => c.references('folders.id').onDelete('set null'))
    .addColumn('requested_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('requested_by_name', 'text', (c) => c.notNull())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('negative_prompt', 'text')
    .addColumn('size', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'succeeded', 'failed')`))
    .addColumn('error', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('updated_at', d.bigint, (c) => c.notNull())
    .execute();
  // The daily limit sums a workspace's requests since midnight UTC.
  await db.schema.createIndex('image_generations_workspace_idx').on('image_generations').columns(['workspace_id', 'created_at']).execute();

  await db.schema
    .createTable('image_generation_images')
    .addColumn('generation_id', 'integer', (c) => c.notNull().references('image_generations.id').onDelete('cascade'))
    .addColumn('image_index', 'integer', (c) => c.notNull())
    // Null once the asset is deleted: the image was made, and is not made again.
    .addColumn('asset_id', 'integer', (c) => c.references('assets.id').onDelete('set null'))
    .addColumn('version_id', 'integer', (c) => c.references('asset_versions.id').onDelete('set null'))
    .addPrimaryKeyConstraint('image_generation_images_pk', ['generation_id', 'image_index'])
    .execute();
  await db.schema.createIndex('image_generation_images_asset_idx').on('image_generation_images').column('asset_id').execute();
}
