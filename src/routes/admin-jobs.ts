import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ErrorBody, ok, Paging } from '../http/schemas.js';
import type { JobAdminService } from '../services/job-admin-service.js';
import { PageOf } from '../contracts/catalog.js';
import { JobSchema, JobStatus } from '../contracts/versions.js';

/** The job queue, for instance admins (issue #5). */
export const adminJobRoutes: FastifyPluginAsyncTypebox<{ jobAdmin: JobAdminService }> = async (app, { jobAdmin }) => {
  app.get(
    '/admin/jobs',
    {
      schema: {
        tags: ['admin'],
        summary: 'Background jobs, newest first (instance admins)',
        description:
          'Optional `status` filter. `counts` gives the number of jobs in each status. A failed job shows its last error; ' +
          'succeeded jobs are kept for 7 days.',
        querystring: Type.Object({ status: Type.Optional(JobStatus), ...Paging }, { additionalProperties: false }),
        response: {
          200: Envelope(
            Type.Object({
              ...PageOf(JobSchema).properties,
              counts: Type.Object({ queued: Type.Integer(), running: Type.Integer(), succeeded: Type.Integer(), failed: Type.Integer() }),
            }),
          ),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
        },
      },
    },
    async (req) => ok(await jobAdmin.list(req.caller, req.query)),
  );
};
