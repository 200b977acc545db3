import { Type, type Static } from 'typebox';
import { Id as IdOf, Tags, Visibility } from '../http/schemas.js';

/** TypeBox schema of POST /dam/assets/bulk; its answer is ItemResults (./trash-schemas.ts). */

const Id = IdOf();

const Action = Type.Union(
  [Type.Literal('delete'), Type.Literal('move'), Type.Literal('tag'), Type.Literal('untag'), Type.Literal('set_visibility')],
  { description: 'delete: to the trash; move: to folder_id; tag / untag: add / remove tags; set_visibility: to visibility' },
);
export type BulkAction = Static<typeof Action>;

export const BulkBody = Type.Object(
  {
    workspaceId: Id,
    asset_ids: Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true, description: 'Assets to act on; results come back in this order' }),
    action: Action,
    folder_id: Type.Optional(Type.Union([Id, Type.Null()], { description: 'move only (required there): the folder, or null for the top level' })),
    tags: Type.Optional(
      Type.Array(Tags.items, { minItems: 1, maxItems: 100, uniqueItems: true, description: 'tag and untag only (required there)' }),
    ),
    // set_visibility only (required there).
    visibility: Type.Optional(Visibility),
  },
  { additionalProperties: false },
);
export type BulkRequest = Static<typeof BulkBody>;
