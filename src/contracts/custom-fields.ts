import { Type, type Static, type TSchema } from 'typebox';
import { FIELD_KEY_PATTERN, FIELD_TARGETS, FIELD_TYPES, VALUE_LIMITS } from '../domain/custom-fields.js';
import { Id as IdOf, PlainName } from '../http/schemas.js';

/**
 * TypeBox schemas of custom metadata (issue #30): field definitions (/dam/fields), their vocabularies, and the
 * `custom_fields` values of assets, folders and collections. docs/features/custom-metadata.md says what each means.
 */

const Id = IdOf();
const Unix = Type.Integer({ description: 'Unix seconds' });
const Nullable = <T extends TSchema>(t: T, description?: string) => Type.Union([t, Type.Null()], description ? { description } : {});
const strict = { additionalProperties: false } as const;
export const FieldTypeSchema = Type.Enum(FIELD_TYPES, {
  description:
  'text (one line, ≤ 1000 characters), long_text (≤ 20,000, line breaks kept), number (min, max, decimals), date (YYYY-MM-DD), ' +
    'datetime (ISO 8601 with an offset, kept in UTC), boolean, url (http or https), email, select and multi_select (options of the ' +
    "field's vocabulary), user (a member of the workspace)",
});
const Targets = Type.Array(Type.Enum(FIELD_TARGETS, { description: 'assets, folders or collections' }), {
  minItems: 1,
  maxItems: 3,
  uniqueItems: true,
  description: 'What the field is set on',
});
const EditableBy = Type.Enum(['manager', 'admin'] as const, { description: 'The least role that may set its values (viewers never can)' });
const Label = PlainName(100);
const HelpText = Type.String({ maxLength: 500, 'x-plain-text': 'multiline', description: 'Shown beside the input' });
const Bound = (what: string) => Nullable(Type.Number({ minimum: -1e15, maximum: 1e15 }), `number fields: the ${what} value allowed; null: none`);
const Decimals = Nullable(Type.Integer({ minimum: 0, maximum: 6 }), 'number fields: decimal places allowed (0: whole numbers); null: 0');

export const OptionSchema = Type.Object({
  id: Type.Integer(),
  label: Type.String(),
  parent_id: Nullable(Type.Integer(), 'The option above it in a tree vocabulary (Region → Country → City); null at the top'),
  position: Type.Integer({ description: 'Order among its siblings, from 0' }),
  deprecated: Type.Boolean({ description: 'Kept where it is set, no longer offered for new values' }),
});
export type OptionView = Static<typeof OptionSchema>;

export const FieldSchema = Type.Object({
  id: Type.Integer(),
  workspace_id: Type.Integer(),
  key: Type.String({ description: 'Stable, unique in the workspace and never reused (a deleted field keeps it): the name in custom_fields, filters and CSV' }),
  label: Type.String(),
  type: FieldTypeSchema,
  required: Type.Boolean({ description: 'An edit may not leave it empty; assets without it are listed in missing_fields' }),
  help_text: Type.String(),
  applies_to: Targets,
  editable_by: EditableBy,
  min: Nullable(Type.Number(), 'number fields: smallest value; null: none'),
  max: Nullable(Type.Number(), 'number fields: largest value; null: none'),
  decimals: Nullable(Type.Integer(), 'number fields: decimal places; null for other types'),
  position: Type.Integer({ description: 'Order in forms and lists, from 0' }),
  hidden: Type.Boolean({ description: 'Left out of forms and lists by default; values are kept and still read' }),
  retired: Type.Boolean({ description: 'No longer set: values are kept and read, new values are refused' }),
  options: Type.Array(OptionSchema, { description: 'select and multi_select: the vocabulary, parents before children; [] for other types' }),
  value_count: Type.Integer({ description: 'Values stored (a multi_select counts one per option)' }),
  created_at: Unix,
  modified_at: Unix,
});
export type FieldView = Static<typeof FieldSchema>;

export const FieldListQuery = Type.Object(
  {
    workspaceId: Id,
    include_retired: Type.Optional(Type.Boolean({ description: 'Also list retired fields (default false)' })),
  },
  strict,
);

const NewOption = Type.Object(
  {
    label: Label,
    parent: Type.Optional(PlainName(100, 'The label of an option given earlier in the same list: this one goes below it')),
  },
  strict,
);

export const FieldCreateBody = Type.Object(
  {
    workspace_id: Id,
    key: Type.String({ pattern: FIELD_KEY_PATTERN, maxLength: 64, description: 'a lowercase letter, then up to 63 lowercase letters, digits or _' }),
    label: Label,
    type: FieldTypeSchema,
    required: Type.Optional(Type.Boolean({ default: false })),
    help_text: Type.Optional(HelpText),
    applies_to: Type.Optional(Targets),
    editable_by: Type.Optional(EditableBy),
    min: Type.Optional(Bound('smallest')),
    max: Type.Optional(Bound('largest')),
    decimals: Type.Optional(Decimals),
    options: Type.Optional(Type.Array(NewOption, { maxItems: 1000, description: 'select and multi_select: the first options, in order' })),
  },
  strict,
);

export const FieldPatchBody = Type.Object(
  {
    label: Type.Optional(Label),
    type: Type.Optional(FieldTypeSchema),
    required: Type.Optional(Type.Boolean()),
    help_text: Type.Optional(HelpText),
    applies_to: Type.Optional(Targets),
    editable_by: Type.Optional(EditableBy),
    min: Type.Optional(Bound('smallest')),
    max: Type.Optional(Bound('largest')),
    decimals: Type.Optional(Decimals),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: "The field's new place; the others move up or down" })),
    hidden: Type.Optional(Type.Boolean()),
    retired: Type.Optional(Type.Boolean({ description: 'true retires the field (values kept, no new ones); false brings it back' })),
  },
  { ...strict, minProperties: 1 },
);

export const FieldDeleteQuery = Type.Object(
  {
    confirm: Type.Optional(
      Type.String({ maxLength: 64, description: "The field's key: without it (or with another) the answer is 409 CONFIRMATION_REQUIRED naming how many values would go" }),
    ),
  },
  strict,
);

export const FieldDeleted = Type.Object({ id: Type.Integer(), key: Type.String(), values_deleted: Type.Integer() });

export const OptionParams = Type.Object({ id: Id, optionId: Id }, strict);

export const OptionCreateBody = Type.Object(
  {
    label: Label,
    parent_id: Type.Optional(Nullable(Id, 'An option of the same field to put it under; null or omitted: top level')),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, description: 'Place among its siblings; omitted: last' })),
  },
  strict,
);

export const OptionPatchBody = Type.Object(
  {
    label: Type.Optional(Label),
    parent_id: Type.Optional(Nullable(Id, 'Moves it under another option of the field (not below itself); null: top level')),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    deprecated: Type.Optional(Type.Boolean({ description: 'true: kept where set, no longer offered; false: offered again' })),
  },
  { ...strict, minProperties: 1 },
);

export const OptionMergeBody = Type.Object({ into: IdOf('The option of the same field that takes its values and children') }, strict);

export const OptionMerged = Type.Object({
  field: FieldSchema,
  values_moved: Type.Integer({ description: 'Values that named the merged option and now name the target (duplicates on a multi_select are dropped)' }),
});

/** A value in `custom_fields` as read: per the field's type. */
const OptionValue = Type.Object({ id: Type.Integer(), label: Type.String() });
export const CustomValueRead = Type.Union(
  [
    Type.String({ description: 'text, long_text, url, email; date (YYYY-MM-DD); datetime (YYYY-MM-DDTHH:MM:SSZ)' }),
    Type.Number({ description: 'number' }),
    Type.Boolean({ description: 'boolean' }),
    Type.Object({ id: Type.Integer(), label: Type.String() }, { description: 'select: the option' }),
    Type.Array(OptionValue, { description: 'multi_select: the options, in vocabulary order' }),
    Type.Object({ id: Type.Integer(), name: Type.String() }, { description: 'user: the member' }),
  ],
  { description: "A custom field's value as read, by the field's type" },
);

export const CustomFieldsRead = Type.Record(Type.String(), CustomValueRead, {
  description: "Custom field values by key (issue #30; GET /dam/fields defines them); a field without a value is left out",
});

export const MissingFields = Type.Array(Type.String(), {
  description: 'Keys of required fields (not retired) that apply here and have no value: the item is incomplete while this is not empty',
});

/** The read members every target gains. */
export const CustomFieldProperties = { custom_fields: CustomFieldsRead, missing_fields: MissingFields };

const WriteOption = Type.Union([Id, Type.String({ minLength: 1, maxLength: 100 }), Type.Object({ id: Id })], {
  description: "An option by id, by label (case-insensitive), or as read ({id, label})",
});
export const CustomValueWrite = Type.Union(
  [
    Type.Null(),
    Type.String({ maxLength: VALUE_LIMITS.long_text }),
    Type.Number({ minimum: -1e15, maximum: 1e15 }),
    Type.Boolean(),
    Type.Array(WriteOption, { maxItems: VALUE_LIMITS.multi }),
    Type.Object({ id: Id }),
  ],
  { description: "A value per the field's type (see CustomValueRead); null or blank text clears it" },
);

/** The PATCH member of assets, folders and collections. */
export const CustomFieldsPatch = {
  custom_fields: Type.Optional(
    Type.Record(Type.String({ maxLength: 64 }), CustomValueWrite, {
      maxProperties: 200,
      description:
        'Sets (or with null clears) the keys sent; the others stay. Each key must be a field of the workspace that applies here, ' +
        'is not retired, and the caller may edit (editable_by); a value of the wrong type, an unknown option or a date that does ' +
        'not parse is 400 VALIDATION_ERROR with field custom_fields.<key>. Clearing a required field is refused the same way.',
    }),
  ),
};
export type CustomFieldsWrite = Record<string, Static<typeof CustomValueWrite>>;
