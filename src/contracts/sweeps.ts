import { Type, type Static, type TSchema } from 'typebox';
import { Id as IdOf } from '../http/schemas.js';

/** TypeBox schemas of the sweep refusals (issue #37): GET /admin/sweeps, POST /admin/sweeps/{sweep}/confirm. */

/** The housekeeping sweeps that delete, each bounded per run and refused past DAM_SWEEP_MAX_PERCENT of a workspace. */
export const SWEEP_NAMES = ['trash', 'stale-uploads', 'object-deletions', 'orphaned-objects'] as const;
export type SweepName = (typeof SWEEP_NAMES)[number];

export const SweepNameSchema = Type.Union(
  [Type.Literal('trash'), Type.Literal('stale-uploads'), Type.Literal('object-deletions'), Type.Literal('orphaned-objects')],
  {
    description:
      'trash: deleting trash older than DAM_TRASH_DAYS; stale-uploads: aborting uploads past DAM_UPLOAD_TTL or DAM_UPLOAD_MAX_LIFETIME; ' +
      'object-deletions: removing the stored files of deleted rows; orphaned-objects: removing stored objects no row accounts for (DAM_ORPHAN_SWEEP_HOURS)',
  },
);

const Unix = Type.Integer({ description: 'Unix seconds' });
const Nullable = <T extends TSchema>(t: T, description: string) => Type.Union([t, Type.Null()], { description });

export const SweepRefusalSchema = Type.Object({
  sweep: SweepNameSchema,
  workspace_id: Type.Integer({ description: 'The workspace (it may be deleted: the files of a deleted workspace are refused too)' }),
  state: Type.Union([Type.Literal('refused'), Type.Literal('confirmed'), Type.Literal('settled')], {
    description: 'refused: waiting for an instance admin; confirmed: the sweep acts, a batch per run; settled: done (listed for a day)',
  }),
  would_delete: Type.Integer({ description: 'Items the sweep would delete in the workspace, at its latest run' }),
  workspace_total: Type.Integer({ description: "The workspace's items of that kind, the ones to delete included" }),
  summary: Type.String({ description: 'What it would delete, in words' }),
  examples: Type.Array(Type.String(), { description: 'Up to 10 of the items (ids and names, or storage keys)' }),
  refused_at: Unix,
  seen_at: Type.Integer({ description: 'Unix seconds: the latest run that found it so' }),
  confirmed_at: Nullable(Unix, 'Unix seconds; null until confirmed'),
  confirmed_by: Nullable(Type.Integer(), 'The instance admin (user id) who confirmed it; null until then, or when that account is gone'),
  settled_at: Nullable(Unix, 'Unix seconds the confirmed sweep finished; null until then'),
});
export type SweepRefusalView = Static<typeof SweepRefusalSchema>;

export const SweepConfirmParams = Type.Object({ sweep: SweepNameSchema }, { additionalProperties: false });
export const SweepConfirmBody = Type.Object(
  { workspaceId: IdOf('The workspace of the refusal to confirm (workspace_id in GET /admin/sweeps)') },
  { additionalProperties: false },
);
