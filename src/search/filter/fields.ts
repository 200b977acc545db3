/**
 * The fields a filter may name (seed 2.2 lists file_type, tags, orientation,
 * visibility, modified_at, created_at; id and folder_id are indexed too,
 * collection_id reads the collections' membership, and since issue #12 the
 * embedded metadata of assets: taken_at, taken_year, camera_make,
 * camera_model, creator, keywords and the gps box; since issue #19 the SHA-256
 * of an asset's current file: sha256 and duplicate_of; since issue #27 unreadable, whether the current file
 * could not be read).
 * Every collection has every field; a folder's file_type is `folder`, a
 * collection's `collection`, and orientation and the embedded fields are
 * absent (null) on both.
 */
export type FieldKind = 'string' | 'number' | 'tags' | 'collection' | 'geo' | 'hash' | 'duplicate' | 'flag';

/** Columns of search_documents. */
export type DocumentColumn = 'file_type' | 'orientation' | 'visibility' | 'modified_at' | 'created_at' | 'ref_id' | 'folder_id' | 'taken_at';
/** Columns of search_asset_facts (migration 0012); strings are compared in their ASCII-folded copy. */
export type FactColumn = 'camera_make_folded' | 'camera_model_folded' | 'creator_folded';

export interface FieldSpec {
  readonly kind: FieldKind;
  /** The column compared (string and number fields): of search_documents, or of search_asset_facts when `facts`. */
  readonly column: DocumentColumn | FactColumn | null;
  /** An embedded-metadata field (search_asset_facts, or search_keywords): assets only, folders and collections have none. */
  readonly facts: boolean;
  /** Tags-like fields: the table of (doc_id, value, folded value) rows. */
  readonly list?: { readonly table: 'search_tags' | 'search_keywords'; readonly folded: 'tag_folded' | 'keyword_folded' };
  /** The column may be NULL: `:!=` then matches the documents without a value. */
  readonly nullable: boolean;
  /** The values are UTC years of the (Unix seconds) column: bind.ts turns each into the range of its seconds. */
  readonly years?: boolean;
  readonly description: string;
}

const documents = { facts: false } as const;
const facts = { facts: true, nullable: true } as const;

export const FILTER_FIELDS: Readonly<Record<string, FieldSpec>> = {
  file_type: { kind: 'string', column: 'file_type', ...documents, nullable: false, description: 'image, video, audio, document, archive, other; folder; collection' },
  tags: {
    kind: 'tags',
    column: null,
    ...documents,
    list: { table: 'search_tags', folded: 'tag_folded' },
    nullable: false,
    description: 'array of strings; tags:=[a, b] has tag a or b',
  },
  orientation: { kind: 'string', column: 'orientation', ...documents, nullable: true, description: 'landscape, portrait, square; absent without dimensions' },
  visibility: { kind: 'number', column: 'visibility', ...documents, nullable: false, description: '0 = public, any other value = private (an asset visible only to its uploader, managers and admins)' },
  modified_at: { kind: 'number', column: 'modified_at', ...documents, nullable: false, description: 'Unix seconds' },
  created_at: { kind: 'number', column: 'created_at', ...documents, nullable: false, description: 'Unix seconds' },
  id: { kind: 'number', column: 'ref_id', ...documents, nullable: false, description: 'id of the asset, folder or collection' },
  folder_id: { kind: 'number', column: 'folder_id', ...documents, nullable: true, description: "an asset's folder, a folder's parent; absent at the top level" },
  collection_id: {
    kind: 'collection',
    column: null,
    ...documents,
    nullable: false,
    description: 'collections an asset belongs to: collection_id:=[a, b] is in a or b, :!= in neither; folders and collections belong to none',
  },
  // Embedded metadata of assets (issue #12), read from search_asset_facts and search_keywords.
  // The date taken is a column of search_documents, like the other two dates (assets only: null elsewhere).
  taken_at: { kind: 'number', column: 'taken_at', ...documents, nullable: true, description: 'date taken, Unix seconds; absent when the file has none' },
  taken_year: { kind: 'number', column: 'taken_at', ...documents, nullable: true, years: true, description: 'the year (UTC) of taken_at, 1 to 9999' },
  camera_make: { kind: 'string', column: 'camera_make_folded', ...facts, description: 'camera maker, as the file says (e.g. Canon)' },
  camera_model: { kind: 'string', column: 'camera_model_folded', ...facts, description: 'camera model, as the file says (e.g. Canon EOS R5)' },
  creator: { kind: 'string', column: 'creator_folded', ...facts, description: 'creator (IPTC By-line, XMP dc:creator)' },
  keywords: {
    kind: 'tags',
    column: null,
    ...facts,
    list: { table: 'search_keywords', folded: 'keyword_folded' },
    description: "the file's own keywords (IPTC Keywords, XMP dc:subject), as tags: keywords:=[a, b] has a or b",
  },
  gps: {
    kind: 'geo',
    column: null,
    ...facts,
    description: 'position: gps:[south, west, north, east] is inside the box (degrees); west > east crosses the antimeridian; :!= outside or no position',
  },
  // Duplicate detection (issue #19): the SHA-256 of an asset's current file (assets.sha256, null until hashed).
  sha256: {
    kind: 'hash',
    column: null,
    ...facts,
    description: "SHA-256 of an asset's current file, 64 hex digits: sha256:=[a, b] is either; :!= neither, or not hashed yet",
  },
  duplicate_of: {
    kind: 'duplicate',
    column: null,
    ...facts,
    description: 'asset ids: duplicate_of:=42 is the assets whose current file has the same SHA-256 as asset 42\'s, asset 42 itself excluded',
  },
  // Unreadable files (issue #27): assets.unreadable_reason is set, read through its partial index (migration 0026).
  unreadable: {
    kind: 'flag',
    column: null,
    ...facts,
    description: "true or false: unreadable:true is the assets whose current file could not be read; unreadable:false the others (folders and collections too)",
  },
};

export const FIELD_NAMES = Object.keys(FILTER_FIELDS);
