import { SOURCES } from '../collections.js';

/**
 * What search_sort (migration 0010) copies from each catalog table: the
 * name's sort key and, for assets, the size. Both dialect files render these
 * into a backfill and triggers of their own (named search_sort_*), apart from
 * the search index's triggers (../index-schema/), which they never touch.
 */
export interface SortSource {
  readonly table: 'assets' | 'folders' | 'collections';
  readonly kind: number;
  /** SQL of the size on the row alias `r` (NEW, OLD or a table alias). */
  readonly size: (row: string) => string;
  /** Columns whose change rewrites the row (UPDATE OF ...). */
  readonly watched: readonly string[];
}

export const SORT_SOURCES: readonly SortSource[] = [
  { table: 'assets', kind: SOURCES.asset.kind, size: (r) => `${r}.file_size`, watched: ['workspace_id', 'name_key', 'file_size'] },
  // Folders and collections have no size (src/domain/sort-orders.ts sorts them by name instead).
  { table: 'folders', kind: SOURCES.folder.kind, size: () => '0', watched: ['workspace_id', 'name_key'] },
  { table: 'collections', kind: SOURCES.collection.kind, size: () => '0', watched: ['workspace_id', 'name_key'] },
];

/** B-trees both dialects share: a name or size listing reads one in order, a text query looks each match up by doc_id. */
export const SORT_INDEXES = [
  'CREATE INDEX search_sort_name ON search_sort (kind, workspace_id, name_key, doc_id)',
  'CREATE INDEX search_sort_size ON search_sort (kind, workspace_id, file_size, doc_id)',
];
