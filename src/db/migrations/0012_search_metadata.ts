import type { Kysely } from 'kysely';
import { addEmbeddedIndex } from '../../search/index-schema/index.js';
import { INDEX_SOURCES_0012 } from '../../search/index-schema/sources.js';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Embedded metadata in search (issue #12): the facts an asset's file carries (migration 0011's
 * columns) become filterable and sortable through search_asset_facts and search_keywords, and its
 * caption, creator and keywords become searchable text. Existing assets are backfilled with the
 * same INSERT … SELECT the new asset triggers use; folders' and collections' triggers stay.
 * See src/search/index-schema/ and docs/architecture/search.md.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  // The sources of this migration's time: later columns (0025's uploaded_by) do not exist yet.
  await addEmbeddedIndex[d.name](db, INDEX_SOURCES_0012);
}
