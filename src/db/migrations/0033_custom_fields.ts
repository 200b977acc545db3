import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Custom metadata (issue #30): fields each workspace defines, their controlled vocabularies, and the values on assets,
 * folders and collections.
 *
 * - `custom_fields`: one row per field ever made in the workspace. A deleted field keeps its row (`deleted_at`) so its
 *   key is never given to another field (a CSV or an integration that still names it must not write into a new one).
 * - `custom_field_options`: the vocabulary of a select or multi_select field, a tree through `parent_id`; a merged
 *   option is deleted (its values moved), a deprecated one keeps its values and is no longer offered.
 * - `custom_field_values`: one row per value (a multi_select has one per option), on exactly one of asset, folder and
 *   collection (cascading with it), with the search index's document key `doc_id` (ref_id * 4 + kind,
 *   src/search/collections.ts) so that a filter joins `search_documents` without a trigger. A value lives in the
 *   column of its type: text (text, long_text, url, email, date as YYYY-MM-DD, datetime as ISO UTC; text_folded its
 *   ASCII-lower-cased copy, what filters compare), num (number,
 *   boolean 0/1, datetime's Unix seconds, date's day number), option_id, user_id.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await d
    .addIdColumn(db.schema.createTable('custom_fields'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('help_text', 'text', (c) => c.notNull().defaultTo(''))
    // Comma-separated: assets, folders, collections.
    .addColumn('applies_to', 'text', (c) => c.notNull().defaultTo('assets'))
    .addColumn('editable_by', 'text', (c) => c.notNull().defaultTo('manager').check(sql`editable_by in ('manager', 'admin')`))
    .addColumn('per_version', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('num_min', 'double precision')
    .addColumn('num_max', 'double precision')
    .addColumn('num_decimals', 'integer')
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('hidden', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retired_at', d.bigint)
    .addColumn('deleted_at', d.bigint)
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('modified_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_fields_key_idx').on('custom_fields').columns(['workspace_id', 'key']).unique().execute();

  await d
    .addIdColumn(db.schema.createTable('custom_field_options'))
    .addColumn('field_id', 'integer', (c) => c.notNull().references('custom_fields.id').onDelete('cascade'))
    .addColumn('parent_id', 'integer', (c) => c.references('custom_field_options.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('deprecated_at', d.bigint)
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_field_options_field_idx').on('custom_field_options').columns(['field_id', 'parent_id', 'position']).execute();
  await db.schema.createIndex('custom_field_options_parent_idx').on('custom_field_options').column('parent_id').execute();

  await d
    .addIdColumn(db.schema.createTable('custom_field_values'))
    .addColumn('field_id', 'integer', (c) => c.notNull().references('custom_fields.id').onDelete('cascade'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('doc_id', 'integer', (c) => c.notNull())
    .addColumn('asset_id', 'integer', (c) => c.references('assets.id').onDelete('cascade'))
    .addColumn('folder_id', 'integer', (c) => c.references('folders.id').onDelete('cascade'))
    .addColumn('collection_id', 'integer', (c) => c.references('collections.id').onDelete('cascade'))
    .addColumn('text_value', 'text')
    // text_value with ASCII letters lower-cased: what filters compare (as search_tags.tag_folded).
    .addColumn('text_folded', 'text')
    .addColumn('num_value', 'double precision')
    .addColumn('option_id', 'integer', (c) => c.references('custom_field_options.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addCheckConstraint('custom_field_values_one_target', sql`(case when asset_id is null then 0 else 1 end) + (case when folder_id is null then 0 else 1 end) + (case when collection_id is null then 0 else 1 end) = 1`)
    .execute();
  // A document's values (reads, writes), and covering for the probes of a document's number and option values that a
  // filter's second condition and a facet make (search/filter/custom-sql.ts, search/facets/sql.ts); the filters'
  // lookups by field and value.
  await db.schema.createIndex('custom_field_values_doc_idx').on('custom_field_values').columns(['doc_id', 'field_id', 'num_value', 'option_id']).execute();
  await db.schema.createIndex('custom_field_values_text_idx').on('custom_field_values').columns(['field_id', 'text_folded', 'doc_id']).execute();
  await db.schema.createIndex('custom_field_values_num_idx').on('custom_field_values').columns(['field_id', 'num_value', 'doc_id']).execute();
  await db.schema.createIndex('custom_field_values_option_idx').on('custom_field_values').columns(['option_id', 'doc_id']).execute();
  await db.schema.createIndex('custom_field_values_user_idx').on('custom_field_values').column('user_id').execute();
  await db.schema.createIndex('custom_field_values_asset_idx').on('custom_field_values').column('asset_id').execute();
  await db.schema.createIndex('custom_field_values_folder_idx').on('custom_field_values').column('folder_id').execute();
  await db.schema.createIndex('custom_field_values_collection_idx').on('custom_field_values').column('collection_id').execute();
}
