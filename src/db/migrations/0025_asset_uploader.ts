import { sql, type Kysely } from 'kysely';
import { addUploaderIndex } from '../../search/index-schema/index.js';
import { INDEX_SOURCES_0025 } from '../../search/index-schema/sources.js';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Private assets (issue #27, section 2): `assets.uploaded_by`, the user who brought the asset in (upload,
 * conversion, generation, import), so that a private asset (visibility not 0) can be shown to its uploader,
 * managers and admins and to nobody else (src/domain/asset-visibility.ts; docs/architecture/private-assets.md).
 * Null for the assets that exist already: `created_by` is a display name, not an account, so there is nothing
 * to take it from (their private assets are seen by managers and admins only). The account's deletion sets it
 * null. The search index copies it to `search_documents.uploaded_by` (src/search/index-schema/), where a
 * viewer's search reads it.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await db.schema
    .alterTable('assets')
    .addColumn('uploaded_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  // Deleting an account sets its assets' uploaded_by to null: found through this index, not a scan of every asset.
  await db.schema.createIndex('assets_uploaded_by_idx').on('assets').column('uploaded_by').where(sql.ref('uploaded_by'), 'is not', null).execute();
  await addUploaderIndex[d.name](db, INDEX_SOURCES_0025);
}
