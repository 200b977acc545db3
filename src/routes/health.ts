import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';

const Status = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/healthz',
    // Probes every few seconds: no access line (a failing readiness check is still logged, as a warning).
    { logLevel: 'warn', config: { public: true }, schema: { tags: ['health'], summary: 'The process is up', response: { 200: Status } } },
    () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      config: { public: true },
      schema: { tags: ['health'], summary: 'The database is reachable', response: { 200: Status, 503: Status } },
    },
    async (_request, reply) => {
      try {
        await ctx.database.ping();
        return { status: 'ready' };
      } catch (err) {
        _request.log.warn({ err }, 'readiness check failed');
        return reply.status(503).send({ status: 'database unreachable' });
      }
    },
  );
};
