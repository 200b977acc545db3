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
  /**
   * Assets since migration 0012 (issue #12): taken_at goes to search_documents (a date, filtered and
   * sorted like the other two), the other embedded facts to search_asset_facts and the file's keywords
   * to search_keywords; the keywords' words are searchable text (caption and creator are plainColumns).
   */
  readonly embedded: boolean;
  /**
   * Assets since migration 0025 (issue #27): the uploader (`uploaded_by`) goes to search_documents, so that a
   * search can apply the private-asset rule (src/domain/asset-visibility.ts) on the index alone.
   */
  readonly uploader: boolean;
  /**
   * Since migration 0027 (issue #27): the document's words are counted in the term dictionary
   * `search_terms` (workspace, word, documents), where a typo-tolerant query finds its candidates.
   */
  readonly terms: boolean;
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
    embedded: false,
    uploader: false,
    terms: false,
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
    embedded: false,
    uploader: false,
    terms: false,
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
    embedded: false,
    uploader: false,
    terms: false,
  },
];

/**
 * The sources of migration 0007 (trash): a row in the trash (`deleted_at` set) is not
 * searchable: trashing and restoring are updates of `deleted_at`, which re-index the row.
 */
export const INDEX_SOURCES_0007: readonly IndexSource[] = INDEX_SOURCES_0003.map((s) => ({
  ...s,
  readyCondition: [s.readyCondition, 'r.deleted_at IS NULL'].filter(Boolean).join(' AND '),
  watched: [...s.watched, 'deleted_at'],
}));

/** Asset columns (migration 0011) whose change re-indexes the asset since migration 0012. */
export const EMBEDDED_WATCHED = ['taken_at', 'camera_make', 'camera_model', 'creator', 'caption', 'keywords', 'gps_lat', 'gps_lon'] as const;

/**
 * The sources of migration 0012 (issue #12): an asset's caption, creator and keywords are
 * searchable text (relevance tier 2, like tags), and its embedded facts are indexed apart
 * (search_asset_facts, search_keywords). Folders and collections have none of these.
 */
export const INDEX_SOURCES_0012: readonly IndexSource[] = INDEX_SOURCES_0007.map((s) =>
  s.table === 'assets'
    ? { ...s, plainColumns: [...s.plainColumns, 'caption', 'creator'], watched: [...s.watched, ...EMBEDDED_WATCHED], embedded: true }
    : s,
);

/**
 * The sources today. Since migration 0025 (issue #27) an asset's uploader is copied to
 * search_documents.uploaded_by (null for folders and collections, which have none), so a viewer's
 * search keeps to public assets and their own (`visibility = 0 OR uploaded_by = me`).
 */
export const INDEX_SOURCES_0025: readonly IndexSource[] = INDEX_SOURCES_0012.map((s) =>
  s.table === 'assets' ? { ...s, watched: [...s.watched, 'uploaded_by'], uploader: true } : s,
);

/** Asset columns that are searchable text since migration 0027 (issue #27: "Canon" finds "Canon EOS R5"). */
export const CAMERA_TEXT = ['camera_make', 'camera_model', 'lens'] as const;

/** An asset whose words change with migration 0027: one of CAMERA_TEXT is set. */
export const HAS_CAMERA_TEXT = `(${CAMERA_TEXT.map((c) => `r.${c} IS NOT NULL`).join(' OR ')})`;

/**
 * The sources today. Since migration 0027 (issue #27) an asset's camera make and model and its lens are
 * searchable text (relevance tier 2, like the caption), and every document's words are counted in the
 * term dictionary (`terms`, see TERM_RULE).
 */
export const INDEX_SOURCES: readonly IndexSource[] = INDEX_SOURCES_0025.map((s) =>
  s.table === 'assets'
    ? { ...s, plainColumns: [...s.plainColumns, ...CAMERA_TEXT], watched: [...s.watched, 'lens'], terms: true }
    : { ...s, terms: true },
);

/**
 * Which words the term dictionary holds: 3 to 32 characters, no digit. A typo is allowed from 4 characters
 * (a 4-letter word may lose one: 3); words with digits (IMG_2041, 2019) are matched exactly, so numbers never
 * find their neighbours and file-name counters do not fill the dictionary.
 */
export const TERM_RULE = { minLength: 3, maxLength: 32 } as const;

/** The index source of a catalog table in `sources`. */
export function sourceOf(sources: readonly IndexSource[], table: IndexSource['table']): IndexSource {
  const found = sources.find((s) => s.table === table);
  if (!found) throw new Error(`no index source for ${table}`);
  return found;
}

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

/** The tables of the embedded-metadata index (migration 0012), beside the tables above. */
export const EMBEDDED_TABLES = ['search_asset_facts', 'search_keywords'] as const;

/**
 * Their B-trees (PostgreSQL adds one, see ./postgres.ts). The date taken has two partial indexes:
 * `search_documents_taken` of the dated documents (a taken_at filter or count reads a range of it,
 * the date-taken order reads it in order) and `search_documents_undated` of the others by doc_id
 * (the order's tail: undated last). Partial, and no index of search_documents is rebuilt, because
 * SQLite plans without statistics (nothing here runs ANALYZE) and then breaks near-ties between
 * equally shaped (kind, workspace_id, …) indexes by their order in the schema: one more such index,
 * or search_documents_modified rebuilt, made it drive the name and size listings from
 * search_documents and sort every document (166 ms instead of 28 at 200,000 assets). A partial
 * index is only a candidate for a query that implies its condition. Filters on facts read the
 * others as `doc_id IN (SELECT doc_id FROM search_asset_facts f WHERE f.workspace_id IN (…) AND …)`;
 * most assets have no camera, creator or position, so those indexes are partial too (the conditions
 * say `IS NOT NULL`, so both planners see they apply).
 */
export const EMBEDDED_INDEXES = [
  'CREATE INDEX search_documents_taken ON search_documents (kind, workspace_id, taken_at, doc_id) WHERE taken_at IS NOT NULL',
  'CREATE INDEX search_documents_undated ON search_documents (kind, workspace_id, doc_id) WHERE taken_at IS NULL',
  'CREATE INDEX search_asset_facts_make ON search_asset_facts (workspace_id, camera_make_folded, doc_id) WHERE camera_make_folded IS NOT NULL',
  'CREATE INDEX search_asset_facts_model ON search_asset_facts (workspace_id, camera_model_folded, doc_id) WHERE camera_model_folded IS NOT NULL',
  'CREATE INDEX search_asset_facts_creator ON search_asset_facts (workspace_id, creator_folded, doc_id) WHERE creator_folded IS NOT NULL',
  'CREATE INDEX search_asset_facts_gps ON search_asset_facts (workspace_id, gps_lat, gps_lon, doc_id) WHERE gps_lat IS NOT NULL',
  'CREATE INDEX search_keywords_keyword ON search_keywords (workspace_id, keyword_folded, doc_id)',
];

/** Seconds of 0001-01-01 and 9999-12-31T23:59:59 UTC: a taken_year only within them (SQLite's date functions stop there). */
export const YEAR_RANGE = [-62_135_596_800, 253_402_300_799] as const;

/**
 * An asset whose search_documents row or words change with migration 0012 (a date taken, or a
 * caption, creator or keywords that may hold words): the migration re-indexes only these.
 */
export const HAS_EMBEDDED_TEXT = "(r.taken_at IS NOT NULL OR r.caption IS NOT NULL OR r.creator IS NOT NULL OR r.keywords <> '[]')";

/** An asset with a row in search_asset_facts: one of its facts is known. */
export const HAS_FACTS =
  '(r.taken_at IS NOT NULL OR r.camera_make IS NOT NULL OR r.camera_model IS NOT NULL OR r.creator IS NOT NULL OR r.gps_lat IS NOT NULL OR r.gps_lon IS NOT NULL)';
