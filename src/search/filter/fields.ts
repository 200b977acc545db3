/**
 * The fields a filter may name (seed 2.2 lists file_type, tags, orientation,
 * visibility, modified_at, created_at; id and folder_id are indexed too, and
 * collection_id reads the collections' membership).
 * Every collection has every field; a folder's file_type is `folder`, a
 * collection's `collection`, and orientation is absent (null) on both.
 */
export type FieldKind = 'string' | 'number' | 'tags' | 'collection';

export interface FieldSpec {
  readonly kind: FieldKind;
  /** Column of search_documents (string and number fields). */
  readonly column: 'file_type' | 'orientation' | 'visibility' | 'modified_at' | 'created_at' | 'ref_id' | 'folder_id' | null;
  /** The column may be NULL: `:!=` then matches the documents without a value. */
  readonly nullable: boolean;
  readonly description: string;
}

export const FILTER_FIELDS: Readonly<Record<string, FieldSpec>> = {
  file_type: { kind: 'string', column: 'file_type', nullable: false, description: 'image, video, audio, document, archive, other; folder; collection' },
  tags: { kind: 'tags', column: null, nullable: false, description: 'array of strings; tags:=[a, b] has tag a or b' },
  orientation: { kind: 'string', column: 'orientation', nullable: true, description: 'landscape, portrait, square; absent without dimensions' },
  visibility: { kind: 'number', column: 'visibility', nullable: false, description: '0 = public, any other value = private' },
  modified_at: { kind: 'number', column: 'modified_at', nullable: false, description: 'Unix seconds' },
  created_at: { kind: 'number', column: 'created_at', nullable: false, description: 'Unix seconds' },
  id: { kind: 'number', column: 'ref_id', nullable: false, description: 'id of the asset, folder or collection' },
  folder_id: { kind: 'number', column: 'folder_id', nullable: true, description: "an asset's folder, a folder's parent; absent at the top level" },
  collection_id: {
    kind: 'collection',
    column: null,
    nullable: false,
    description: 'collections an asset belongs to: collection_id:=[a, b] is in a or b, :!= in neither; folders and collections belong to none',
  },
};

export const FIELD_NAMES = Object.keys(FILTER_FIELDS);
