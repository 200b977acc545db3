import { Type, type Static } from 'typebox';
import { BULK_OPS } from '../domain/bulk-field-ops.js';
import { Id as IdOf } from '../http/schemas.js';
import { BulkSearch } from './bulk.js';
import { CustomValueWrite } from './custom-fields.js';
import { ItemResultSchema } from './trash.js';

/** TypeBox schemas of bulk custom-field edits (issue #30): POST /dam/bulk/fields and its undo. */

const Id = IdOf();
const Ids = (description: string) => Type.Array(Id, { minItems: 1, maxItems: 1000, uniqueItems: true, description });

const Operation = Type.Object(
  {
    key: Type.String({ maxLength: 64, description: 'A custom field of the workspace (GET /dam/fields)' }),
    op: Type.Enum(BULK_OPS, {
      description:
        'set: the value (as PATCH custom_fields takes it); clear: no value; add / remove: options of a multi_select (one, or a list); ' +
        'replace: in a text field, every occurrence of find (case-sensitive) becomes replace',
    }),
    value: Type.Optional(CustomValueWrite),
    find: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })),
    replace: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const BulkFieldsBody = Type.Object(
  {
    workspaceId: Id,
    asset_ids: Type.Optional(Ids('Assets to edit; results come back in this order. Exactly one of asset_ids and search')),
    search: Type.Optional(BulkSearch),
    except_ids: Type.Optional(Ids('search only: assets the search finds that are left alone')),
    operations: Type.Array(Operation, { minItems: 1, maxItems: 50, description: 'Applied in order to each asset; one key at most once' }),
  },
  { additionalProperties: false },
);
export type BulkFieldsRequest = Static<typeof BulkFieldsBody>;

export const BulkFieldsResults = Type.Object({
  id: Type.Integer({ description: 'The edit, for POST /dam/bulk/fields/{id}/undo' }),
  matched: Type.Integer({ description: 'Assets the edit was tried on' }),
  succeeded: Type.Integer({ description: 'Of those, the ones now as the operations say (changed, or already so)' }),
  changed: Type.Integer({ description: 'Of those, the ones whose values changed (what an undo puts back)' }),
  results: Type.Array(ItemResultSchema, {
    description: 'asset_ids: one per id, in the order given. search: only the assets the edit could not be done to (ok false)',
  }),
});
export type BulkFieldsResultsView = Static<typeof BulkFieldsResults>;

export const BulkUndoResults = Type.Object({
  id: Type.Integer(),
  restored: Type.Integer({ description: 'Assets whose values were put back' }),
  results: Type.Array(ItemResultSchema, {
    description: 'The assets left as they are: changed since the edit (CONFLICT), deleted (NOT_FOUND), or refused (VALIDATION_ERROR)',
  }),
});
export type BulkUndoResultsView = Static<typeof BulkUndoResults>;
