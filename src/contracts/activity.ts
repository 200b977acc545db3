import { Type, type Static } from 'typebox';
import { ACTIVITY_ACTIONS, CHANGE_LIMITS, SUBJECT_KINDS } from '../domain/activity.js';
import { Id } from '../http/schemas.js';

/** The activity log's query and answer (GET /dam/activity), declared once. */

export const MAX_ACTIVITY_LIMIT = 200;

export const ActivityQuery = Type.Object(
  {
    workspaceId: Id('The workspace whose log to read'),
    asset_id: Type.Optional(Id("Only the entries of this asset: its own changes and its versions' (the asset may be deleted)")),
    user_id: Type.Optional(Id('Only the changes made by this user')),
    before: Type.Optional(Id('Cursor: only entries older than this entry id (next_before of the previous page)')),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ACTIVITY_LIMIT, default: 50, description: 'Entries per page' })),
  },
  { additionalProperties: false },
);

const FieldChangeSchema = Type.Object({
  before: Type.Unknown({ description: 'The value before the change; null when there was none' }),
  after: Type.Unknown({ description: 'The value after the change; null when there is none' }),
  omitted: Type.Optional(Type.Integer({ description: 'Changed metadata keys or list items left out of before/after' })),
});

export const ActivitySchema = Type.Object({
  id: Type.Integer({ description: 'Entry id; entries are numbered in the order they were written' }),
  workspace_id: Type.Integer(),
  action: Type.Enum(ACTIVITY_ACTIONS, { description: '`<subject kind>.<verb>`' }),
  actor: Type.Object({
    id: Type.Union([Type.Integer(), Type.Null()], { description: 'The user; null for changes made by the system' }),
    name: Type.String({ description: "The user's name (or e-mail) when the change was made; `system` for the system" }),
  }),
  subject: Type.Object({
    kind: Type.Enum(SUBJECT_KINDS, { description: 'user for member changes' }),
    id: Type.Integer(),
    name: Type.String({ description: 'Its name after the change (before it, for a deletion); a version by its label' }),
  }),
  asset_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The asset whose history the entry belongs to' }),
  changes: Type.Record(Type.String(), FieldChangeSchema, {
    description:
      `The fields that changed, each { before, after }; {} when the action says it all. Values over ${CHANGE_LIMITS.valueChars} ` +
      `characters (as JSON for non-strings) are cut and end with '…'. metadata lists only the changed top-level keys (at most ` +
      `${CHANGE_LIMITS.mapKeys}); asset_ids lists at most ${CHANGE_LIMITS.listItems} ids; \`omitted\` counts the rest.`,
  }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
});
export type ActivityView = Static<typeof ActivitySchema>;

export const ActivityPageSchema = Type.Object({
  items: Type.Array(ActivitySchema, { description: 'Newest first' }),
  next_before: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `before` for the next page; null on the last page' }),
});
export type ActivityPageView = Static<typeof ActivityPageSchema>;
