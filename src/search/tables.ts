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
