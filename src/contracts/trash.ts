import { Type, type Static, type TSchema } from 'typebox';
import { Id as IdOf, Paging } from '../http/schemas.js';
import { AssetSchema } from './catalog.js';

/** TypeBox schemas of the trash (GET/DELETE /dam/trash, POST /dam/trash/restore) and the per-item results it shares with bulk operations. */

const Id = IdOf();
const Unix = Type.Integer({ description: 'Unix seconds' });
const strict = { additionalProperties: false } as const;
const Nullable = <T extends TSchema>(t: T, description: string) => Type.Union([t, Type.Null()], { description });

export const TrashKind = Type.Union([Type.Literal('asset'), Type.Literal('folder'), Type.Literal('collection')]);

export const TrashItemSchema = Type.Object({
  kind: TrashKind,
  id: Type.Integer(),
  name: Type.String({ description: "An asset's display_file_name, a folder's or collection's name" }),
  folder_id: Nullable(Type.Integer(), "Where it was: an asset's folder or a folder's parent; null at the top level and for collections"),
  deleted_at: Unix,
  purge_at: Type.Integer({ description: 'Unix seconds: from then on housekeeping deletes it for good (deleted_at + DAM_TRASH_DAYS)' }),
  deleted_by: Nullable(Type.String(), 'Name (else e-mail) of the user who deleted it; null when that account is gone'),
  file_type: Nullable(AssetSchema.properties.file_type, 'Assets: as in the asset; null for folders and collections'),
  mime_type: Nullable(Type.String(), 'Assets only'),
  file_size: Nullable(Type.Integer(), 'Assets only: bytes (they still count as stored until purged)'),
  thumbnail_url: Nullable(Type.String(), "Assets only: the current version's thumbnail (signed URL) or its file type's icon"),
});
export type TrashItemView = Static<typeof TrashItemSchema>;

export const TrashListQuery = Type.Object({ workspaceId: Id, ...Paging }, strict);
export const TrashEmptyQuery = Type.Object({ workspaceId: Id }, strict);

const IdList = (what: string) =>
  Type.Optional(Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true, description: `Ids of trashed ${what} to restore` }));

export const TrashRestoreBody = Type.Object(
  {
    workspaceId: Id,
    asset_ids: IdList('assets'),
    folder_ids: IdList('folders'),
    collection_ids: IdList('collections'),
  },
  // At least one list: checked by the service (a schema-level count would hide a bad workspaceId behind it).
  strict,
);

const resultProperties = {
  id: Type.Integer(),
  ok: Type.Boolean(),
  code: Type.Optional(Type.String({ description: 'When ok is false: a stable error code (NOT_FOUND, VALIDATION_ERROR)' })),
  error: Type.Optional(Type.String({ description: 'When ok is false: what went wrong' })),
};

/** One requested id and what became of it, in the order requested. */
export const ItemResultSchema = Type.Object(resultProperties);
export type ItemResult = Static<typeof ItemResultSchema>;
export const ItemResults = Type.Object({ results: Type.Array(ItemResultSchema) });

export const RestoreResults = Type.Object({
  results: Type.Array(Type.Object({ kind: TrashKind, ...resultProperties }), {
    description: 'Folders first, then assets, then collections, each in the order requested',
  }),
});
export type RestoreResultsView = Static<typeof RestoreResults>;

export const TrashEmptied = Type.Object({
  deleted_assets: Type.Integer(),
  deleted_folders: Type.Integer(),
  deleted_collections: Type.Integer(),
});
export type TrashEmptiedView = Static<typeof TrashEmptied>;
