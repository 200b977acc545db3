import type { Kysely } from 'kysely';
import { addTermIndex } from '../../search/index-schema/index.js';
import { INDEX_SOURCES } from '../../search/index-schema/sources.js';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Search that forgives (issue #27, section 3): the term dictionary `search_terms` (the distinct words of each
 * workspace's index with their document counts), where a query finds the words within its typo budget; and an
 * asset's camera make, model and lens as searchable text ("Canon" finds "Canon EOS R5"). Existing rows are
 * re-indexed and counted here. On PostgreSQL it needs pg_trgm (the dictionary's trigram index) and stops with a
 * clear error when the role may not create it. See docs/architecture/search.md, "Typo tolerance".
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await addTermIndex[d.name](db, INDEX_SOURCES);
}
