/**
 * Kysely types of the search index tables (migration 0003), listed in
 * src/db/schema.ts. Only triggers write them. The FTS5 table (SQLite) and the
 * tsvector columns (PostgreSQL) are dialect-specific and reached with raw SQL
 * from src/search/dialects/.
 */
export interface SearchDocumentsTable {
  /** ref_id * 4 + kind (src/search/collections.ts). */
  doc_id: number;
  kind: number;
  ref_id: number;
  workspace_id: number;
  /** The asset's folder or the folder's parent; null otherwise. */
  folder_id: number | null;
  file_type: string;
  orientation: string | null;
  visibility: number;
  created_at: number;
  modified_at: number;
  /** An asset's date taken, Unix seconds (migration 0012); null without one, and on folders and collections. */
  taken_at: number | null;
  /** An asset's uploader (assets.uploaded_by, migration 0025); null when unknown, and on folders and collections. */
  uploaded_by: number | null;
}

export interface SearchNamesTable {
  doc_id: number;
  workspace_id: number;
  name: string;
  /** ASCII letters lower-cased (SQLite lower()); suggestions match prefixes of it. */
  name_folded: string;
}

export interface SearchTagsTable {
  doc_id: number;
  workspace_id: number;
  tag: string;
  tag_folded: string;
}

/**
 * The name and size order of every catalog row (migration 0010), kept by its
 * own triggers (src/search/sort-schema/). Holds uploading rows too: a search
 * joins it to search_documents, which decides what is searchable.
 */
export interface SearchSortTable {
  /** ref_id * 4 + kind, as in search_documents. */
  doc_id: number;
  kind: number;
  workspace_id: number;
  /** The catalog row's name_key (src/domain/sort-key.ts). */
  name_key: string;
  /** Bytes; 0 for folders and collections. */
  file_size: number;
}

/**
 * The embedded facts of indexed assets (migration 0012, issue #12), kept by the asset index
 * triggers (src/search/index-schema/): a row for each asset with a date taken, a camera, a creator or
 * a position. Folders and collections have none. Strings are kept as written and ASCII-folded
 * (`*_folded`, what filters compare). The date taken itself is search_documents.taken_at.
 */
export interface SearchAssetFactsTable {
  /** ref_id * 4 + kind, as in search_documents. */
  doc_id: number;
  workspace_id: number;
  /** The UTC year of the asset's taken_at (years 1 to 9999; null otherwise). */
  taken_year: number | null;
  camera_make: string | null;
  camera_make_folded: string | null;
  camera_model: string | null;
  camera_model_folded: string | null;
  creator: string | null;
  creator_folded: string | null;
  gps_lat: number | null;
  gps_lon: number | null;
}

/** One row per (asset, keyword of its file) (migration 0012), like search_tags. */
export interface SearchKeywordsTable {
  doc_id: number;
  workspace_id: number;
  keyword: string;
  keyword_folded: string;
}
