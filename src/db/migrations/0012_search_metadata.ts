import type { Kysely } from 'kysely';
import { addEmbeddedIndex } from '../../search/index-schema/index.js';
import { INDEX_SOURCES } from '../../search/index-schema/sources.js';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Embedded metadata in search (issue #12): the facts an asset's file carries (migration 0011's
 * columns) become filterable and sortable through search_asset_facts and search_keywords, and its
 * caption, creator and keywords become searchable text. Existing assets are backfilled with the
 * same INSERT … SELECT the new asset triggers use; folders' and collections' triggers stay.
 * See src/search/index-schema/ and docs/ARCHITECTURE.md, Search.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await addEmbeddedIndex[d.name](db, INDEX_SOURCES);
}
