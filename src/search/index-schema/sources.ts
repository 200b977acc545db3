import { KIND } from '../collections.js';

/**
 * What the search index copies from each catalog table, independent of the
 * dialect: both dialect files (./sqlite.ts, ./postgres.ts) render these into
 * triggers and a backfill, so SQLite and PostgreSQL index the same facts.
 *
 * Text that is searched (seed 2.1 search_name):
 * - `name` (display name) and `splitColumns` (file name) are indexed as
 *   words, plus their letter runs and digit runs separately, so IMG2041.jpg is
 *   found by `2041` and DSC01234 by `01234` or `dsc`;
 * - `plainColumns` (a collection's description) and the tags as words.
 */
export interface IndexSource {
  readonly table: 'assets' | 'folders' | 'collections';
  readonly kind: number;
  readonly name: string;
  readonly splitColumns: readonly string[];
  readonly plainColumns: readonly string[];
  /** Column holding the folder (assets) or parent folder (folders); null when the kind has none. */
  readonly folderColumn: string | null;
  /** SQL literal of the fixed file_type, or null to copy the row's file_type column. */
  readonly fileTypeLiteral: string | null;
  readonly hasOrientation: boolean;
  /** Extra condition on the row alias `r` for it to be searchable. */
  readonly readyCondition: string | null;
  /** Columns whose change re-indexes the row (UPDATE OF ...). */
  readonly watched: readonly string[];
}

const COMMON = ['workspace_id', 'tags', 'visibility', 'created_at', 'modified_at'];

/** The sources as migration 0003 rendered them, before the trash (0007) existed; only that migration uses them. */
export const INDEX_SOURCES_0003: readonly IndexSource[] = [
  {
    table: 'assets',
    kind: KIND.digital_assets,
    name: 'display_file_name',
    splitColumns: ['file_name'],
    plainColumns: [],
    folderColumn: 'folder_id',
    fileTypeLiteral: null,
    hasOrientation: true,
    // Only ready assets are searchable: an asset is 'uploading' until its upload completes.
    readyCondition: "r.status = 'ready'",
    watched: [...COMMON, 'folder_id', 'display_file_name', 'file_name', 'file_type', 'orientation', 'status'],
  },
  {
    table: 'folders',
    kind: KIND.digital_assets_categories,
    name: 'name',
    splitColumns: [],
    plainColumns: [],
    folderColumn: 'parent_id',
    fileTypeLiteral: "'folder'",
    hasOrientation: false,
    readyCondition: null,
    watched: [...COMMON, 'parent_id', 'name'],
  },
  {
    table: 'collections',
    kind: KIND.dam_collections,
    name: 'name',
    splitColumns: [],
    plainColumns: ['description'],
    folderColumn: null,
    fileTypeLiteral: "'collection'",
    hasOrientation: false,
    readyCondition: null,
    watched: [...COMMON, 'name', 'description'],
  },
];

/**
 * The sources today. Since migration 0007 (trash) a row in the trash (`deleted_at` set) is not
 * searchable: trashing and restoring are updates of `deleted_at`, which re-index the row.
 */
export const INDEX_SOURCES: readonly IndexSource[] = INDEX_SOURCES_0003.map((s) => ({
  ...s,
  readyCondition: [s.readyCondition, 'r.deleted_at IS NULL'].filter(Boolean).join(' AND '),
  watched: [...s.watched, 'deleted_at'],
}));

/** `r.id * 4 + kind` (see ../collections.ts). */
export function docIdSql(row: string, kind: number, bigint = ''): string {
  return `${row}.id${bigint} * 4 + ${kind}`;
}

/** Index DDL both dialects share: plain B-trees over the plain tables. */
export const SHARED_INDEXES = [
  // Match-all and filtered listings sorted by date, and counts of them, read this index alone.
  'CREATE INDEX search_documents_modified ON search_documents (kind, workspace_id, modified_at, doc_id, visibility, created_at, file_type, orientation, folder_id)',
  'CREATE INDEX search_documents_created ON search_documents (kind, workspace_id, created_at, doc_id)',
  'CREATE INDEX search_documents_type ON search_documents (kind, workspace_id, file_type, modified_at, doc_id, orientation, visibility)',
  // Covering, so DISTINCT name ... ORDER BY stops after the first ten.
  'CREATE INDEX search_names_prefix ON search_names (workspace_id, name_folded, name)',
  'CREATE INDEX search_tags_tag ON search_tags (tag_folded, doc_id)',
  'CREATE INDEX search_tags_prefix ON search_tags (workspace_id, tag_folded, tag)',
];
