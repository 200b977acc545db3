/**
 * seed 2.1: the three collections a search can ask for. In the index every
 * document has a kind code, and its key is `doc_id = ref_id * 4 + kind`, so
 * the id of the catalog row, the kind and the key convert into each other
 * without a lookup (SQLite's FTS5 rowid is that key), and ordering by doc_id
 * within one kind is ordering by catalog id.
 */
export const COLLECTION_NAMES = ['digital_assets', 'digital_assets_categories', 'dam_collections'] as const;
export type CollectionName = (typeof COLLECTION_NAMES)[number];

export const KIND: Readonly<Record<CollectionName, number>> = {
  digital_assets: 1,
  digital_assets_categories: 2,
  dam_collections: 3,
};

/** Multiplier of ref_id in doc_id (kinds are 1..3). */
export const KIND_SLOTS = 4;

/** The catalog table of each kind, and the fixed file_type its documents carry (assets carry their own). */
export const SOURCES = {
  asset: { table: 'assets', kind: KIND.digital_assets },
  folder: { table: 'folders', kind: KIND.digital_assets_categories, fileType: 'folder' },
  collection: { table: 'collections', kind: KIND.dam_collections, fileType: 'collection' },
} as const;
