import type { Kysely } from 'kysely';
import { createSearchSchema } from '../../search/index-schema/index.js';
import { INDEX_SOURCES_0003 } from '../../search/index-schema/sources.js';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * The search index (issue #4, seed 2.1, 4.1): tables derived from assets, folders and
 * collections, filled from what they already hold and kept in step by triggers.
 * The DDL differs per dialect (FTS5 vs tsvector/GIN); see src/search/index-schema/.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  // The sources of this migration's time: later columns (0007's deleted_at) do not exist yet.
  await createSearchSchema[d.name](db, INDEX_SOURCES_0003);
}
