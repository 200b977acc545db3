import { Type, type Static, type TSchema } from 'typebox';
import { FILE_TYPES, ORIENTATIONS } from '../domain/file-types.js';
import { METADATA_LIMITS } from '../http/json-limits.js';
import { ErrorBody, Id as IdOf, NewVisibility, Paging, PlainName, SortBy, Tags, Visibility, VISIBILITY_MEANING } from '../http/schemas.js';
import { EmbeddedMetadataProperty, EmbeddedPatchProperties, EmbeddedProperties } from './embedded-metadata.js';
import { UnreadableProperties } from '../http/unreadable-schemas.js';
import { CustomFieldProperties, CustomFieldsPatch } from './custom-fields.js';

/**
 * TypeBox schemas of the catalog (assets, folders, collections), declared once:
 * they validate requests, type the handlers and services, and feed OpenAPI.
 * Storage, search and versions reuse AssetSchema / AssetView.
 */

const Id = IdOf();
const Unix = Type.Integer({ description: 'Unix seconds' });
const Name = PlainName(200);
export const Metadata = Type.Record(Type.String(), Type.Unknown(), {
  description:
    `Free-form JSON object: at most ${METADATA_LIMITS.maxDepth} levels deep, ${METADATA_LIMITS.maxKeys} keys and array items ` +
    `in all, and ${METADATA_LIMITS.maxBytes / 1024} KiB as JSON`,
  'x-json-limits': METADATA_LIMITS,
});

export const AssetSchema = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  folder_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null = not in a folder' }),
  display_file_name: Type.String(),
  file_name: Type.String({ description: 'Name of the uploaded file; not editable' }),
  file_type: Type.Union(
    [
      Type.Literal('image'),
      Type.Literal('video'),
      Type.Literal('audio'),
      Type.Literal('document'),
      Type.Literal('archive'),
      Type.Literal('other'),
    ],
    { description: `Derived from mime_type: ${FILE_TYPES.join(', ')}` },
  ),
  mime_type: Type.String(),
  file_size: Type.Integer({ description: 'Bytes' }),
  width: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels; null when unknown' }),
  height: Type.Union([Type.Integer(), Type.Null()], { description: 'Pixels; null when unknown' }),
  orientation: Type.Union([Type.Literal('landscape'), Type.Literal('portrait'), Type.Literal('square'), Type.Null()], {
    description: `Derived from width and height (${ORIENTATIONS.join(', ')}); null when they are unknown`,
  }),
  page_count: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description:
      "Pages of the current version's file (a PDF, or an office document as converted to PDF), counted by its preview job; " +
      'null until then, for other files, and when the pages cannot be counted (encrypted or corrupt PDF, tool not installed)',
  }),
  sha256: Type.Union([Type.String(), Type.Null()], {
    description:
      "SHA-256 of the current version's file (64 lowercase hex digits), computed by a background job shortly after the file is " +
      'stored; null until then. POST /dam/assets/check-duplicates and the search filters sha256 and duplicate_of use it',
  }),
  ...UnreadableProperties,
  tags: Type.Array(Type.String()),
  visibility: Type.Integer({ description: VISIBILITY_MEANING }),
  metadata: Metadata,
  created_by: Type.String(),
  created_at: Unix,
  modified_at: Unix,
  // Embedded metadata (issue #12).
  ...EmbeddedProperties,
});
export type AssetView = Static<typeof AssetSchema>;

/** An asset as GET /dam/assets lists it: with its custom fields (issue #30). */
export const AssetListItemSchema = Type.Object({ ...AssetSchema.properties, ...CustomFieldProperties });
export type AssetListItemView = Static<typeof AssetListItemSchema>;

/** One asset as GET and PATCH /dam/assets/:id answer it: with the embedded tag set and its custom fields (issue #30). */
export const AssetDetailSchema = Type.Object({ ...AssetSchema.properties, ...EmbeddedMetadataProperty, ...CustomFieldProperties });
export type AssetDetailView = Static<typeof AssetDetailSchema>;

export const FolderSchema = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  parent_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null = top level' }),
  name: Type.String(),
  visibility: Type.Integer({ description: VISIBILITY_MEANING }),
  tags: Type.Array(Type.String()),
  created_at: Unix,
  modified_at: Unix,
});
export type FolderView = Static<typeof FolderSchema>;
/** One folder as GET and PATCH /dam/folders/:id answer it: with its custom fields (issue #30). */
export const FolderDetailSchema = Type.Object({ ...FolderSchema.properties, ...CustomFieldProperties });
export type FolderDetailView = Static<typeof FolderDetailSchema>;

/** A folder as GET /dam/folders lists it: with the number of what is directly in it (issue #27). */
export const FolderListItemSchema = Type.Object({
  ...FolderSchema.properties,
  asset_count: Type.Integer({
    description: 'Assets directly in the folder (not in its subfolders) that the caller sees: not in the trash, private ones only for those who see them',
  }),
  folder_count: Type.Integer({ description: 'Direct subfolders not in the trash' }),
});
export type FolderListItemView = Static<typeof FolderListItemSchema>;

const collectionProperties = {
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  visibility: Type.Integer({ description: VISIBILITY_MEANING }),
  tags: Type.Array(Type.String()),
  asset_count: Type.Integer(),
  created_at: Unix,
  modified_at: Unix,
};
export const CollectionSchema = Type.Object(collectionProperties);
export type CollectionView = Static<typeof CollectionSchema>;
export const CollectionDetailSchema = Type.Object({
  ...collectionProperties,
  asset_ids: Type.Array(Type.Integer(), { description: 'Member assets in collection order' }),
  ...CustomFieldProperties,
});
export type CollectionDetailView = Static<typeof CollectionDetailSchema>;

/** A page of a list: `{ items, page, per_page, total }`. */
export function PageOf<T extends TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer({ description: 'Number of items over all pages' }),
  });
}
export interface PageView<T> {
  items: T[];
  page: number;
  per_page: number;
  total: number;
}

/** `root` or a folder id: how list filters name "outside any folder" vs "in folder n". */
const FolderRef = (description: string) => Type.Union([Type.Literal('root'), Id], { description });

const strict = { additionalProperties: false } as const;

/** Several lines of text: tabs and line breaks allowed, other control characters not. */
const Description = (fallback?: string) =>
  Type.String({ maxLength: 2000, 'x-plain-text': 'multiline', ...(fallback === undefined ? {} : { default: fallback }) });

/** `sort_by` of the three lists; `sizes` says what a size order means for the kind listed. */
const ListSortBy = (sizes: string) =>
  Type.Optional(
    SortBy(
      'Omitted: by id ascending. display_file_name: by name, case-insensitive, numbers in names by value (img2 < img10 < IMG11); ' +
        `file_size: ${sizes}; modified_at, created_at: by that date. Ties by id in the same direction, so pages never overlap or skip.`,
    ),
  );

export const AssetListQuery = Type.Object(
  {
    workspaceId: Id,
    folder_id: Type.Optional(FolderRef('Omitted: every asset of the workspace; root: assets in no folder; n: assets directly in folder n')),
    recursive: Type.Optional(
      Type.Boolean({ description: 'With folder_id=n: the assets of folder n and of every folder below it. Needs a numeric folder_id (400 otherwise)' }),
    ),
    sort_by: ListSortBy('by size in bytes'),
    ...Paging,
  },
  strict,
);

export const AssetPatchBody = Type.Object(
  {
    display_file_name: Type.Optional(PlainName(255)),
    tags: Type.Optional(Tags),
    visibility: Type.Optional(Visibility),
    folder_id: Type.Optional(Type.Union([Id, Type.Null()], { description: 'null moves the asset out of any folder' })),
    metadata: Type.Optional(Metadata),
    ...EmbeddedPatchProperties,
    ...CustomFieldsPatch,
  },
  { ...strict, minProperties: 1 },
);

export const FolderListQuery = Type.Object(
  {
    workspaceId: Id,
    parent_id: Type.Optional(FolderRef('Omitted: every folder of the workspace; root: top-level folders; n: children of folder n')),
    sort_by: ListSortBy('folders have no size, so by name as display_file_name'),
    ...Paging,
  },
  strict,
);

export const FolderCreateBody = Type.Object(
  {
    workspace_id: Id,
    name: Name,
    parent_id: Type.Optional(Type.Union([Id, Type.Null()], { default: null, description: 'Omitted or null: top level' })),
    visibility: Type.Optional(NewVisibility),
    tags: Type.Optional(Tags),
  },
  strict,
);

export const FolderPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    parent_id: Type.Optional(Type.Union([Id, Type.Null()], { description: 'null moves the folder to the top level' })),
    visibility: Type.Optional(Visibility),
    tags: Type.Optional(Tags),
    ...CustomFieldsPatch,
  },
  { ...strict, minProperties: 1 },
);

/** `?permanent=true` on the DELETE routes of assets, folders and collections: skip the trash (issue #11). */
const Permanent = {
  permanent: Type.Optional(
    Type.Boolean({ default: false, description: 'Delete at once instead of moving to the trash (workspace admins only; 403 otherwise)' }),
  ),
};
export const PermanentQuery = Type.Object(Permanent, strict);

export const FolderDeleteQuery = Type.Object(
  {
    recursive: Type.Optional(Type.Boolean({ default: false, description: 'Also delete subfolders and every asset in them' })),
    ...Permanent,
  },
  strict,
);

export const CollectionListQuery = Type.Object(
  { workspaceId: Id, sort_by: ListSortBy('collections have no size, so by name as display_file_name'), ...Paging },
  strict,
);

export const CollectionCreateBody = Type.Object(
  {
    workspace_id: Id,
    name: Name,
    description: Type.Optional(Description('')),
    visibility: Type.Optional(NewVisibility),
    tags: Type.Optional(Tags),
  },
  strict,
);

export const CollectionPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description()),
    visibility: Type.Optional(Visibility),
    tags: Type.Optional(Tags),
    ...CustomFieldsPatch,
  },
  { ...strict, minProperties: 1 },
);

export const AssetIdsBody = Type.Object(
  { asset_ids: Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'Asset ids, in the order to append' }) },
  strict,
);

export const FolderDeleted = Type.Object({
  id: Type.Integer(),
  deleted_folders: Type.Integer({ description: 'The folder itself and its subfolders (moved to the trash, or deleted with permanent=true)' }),
  deleted_assets: Type.Integer(),
});

export const Deleted = Type.Object({ id: Type.Integer() });

export const catalogErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
