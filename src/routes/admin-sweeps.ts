import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import { SweepConfirmBody, SweepConfirmParams, SweepRefusalSchema } from '../contracts/sweeps.js';
import type { SweepGuard } from '../services/sweeps/sweep-guard.js';

const tags = ['admin'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };
const ADMIN_ONLY = 'Instance admins only (403 ADMIN_ONLY for anyone else).';

/**
 * Refused housekeeping sweeps (issue #37, docs/operations.md "Sweeps never delete in bulk by accident"): what a sweep
 * would have deleted past DAM_SWEEP_MAX_PERCENT of a workspace, and an instance admin's confirmation.
 */
export const adminSweepRoutes: FastifyPluginAsyncTypebox<{ guard: SweepGuard }> = async (app, { guard }) => {
  app.get(
    '/admin/sweeps',
    {
      schema: {
        tags,
        summary: 'Housekeeping sweeps refused for deleting too much of a workspace',
        description:
          `${ADMIN_ONLY} A sweep that deletes (trash, stale uploads, the files of deleted rows, orphaned objects) acts on its own ` +
          'up to DAM_SWEEP_MAX_PERCENT of a workspace, or fewer than DAM_SWEEP_MIN_COUNT items. Past that it deletes nothing and ' +
          'is listed here, newest first, with what it would delete, until it is confirmed (POST /admin/sweeps/{sweep}/confirm) or ' +
          'resolves itself (the trash restored, the store back); a confirmed one stays listed a day after it is done (`settled`).',
        response: { 200: Envelope(Type.Array(SweepRefusalSchema)), 401: ErrorBody, 403: ErrorBody },
      },
    },
    async (req) => ok(await guard.list(req.caller)),
  );

  app.post(
    '/admin/sweeps/:sweep/confirm',
    {
      schema: {
        tags,
        summary: 'Let a refused sweep delete what it listed',
        description:
          `${ADMIN_ONLY} The sweep then deletes, DAM_SWEEP_BATCH items a run (every minute), no more than it said it would ` +
          '(`would_delete`): should it find more (more trash expired, the store emptied), it is refused again. Confirming the ' +
          'trash or stale uploads of a workspace also lets the files of the rows they delete go. 404 NOT_FOUND when no refusal of ' +
          'the sweep waits for that workspace; confirming one already confirmed answers it again.',
        params: SweepConfirmParams,
        body: SweepConfirmBody,
        response: { 200: Envelope(SweepRefusalSchema), ...errors },
      },
    },
    async (req) => ok(await guard.confirm(req.caller, req.params.sweep, req.body.workspaceId)),
  );
};
