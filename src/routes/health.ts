import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';
import { HeadersTooLarge } from '../http/schemas.js';

const Status = Type.Object({ status: Type.String() });

export const healthRoutes: FastifyPluginAsyncTypebox<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get(
    '/healthz',
    // Probes every few seconds: no access line (a failing readiness check is still logged, as a warning).
    {
      logLevel: 'warn',
      config: { public: true },
      schema: {
        tags: ['health'],
        summary: 'The process is up',
        description:
          'Liveness: `{status: "ok"}` while the process answers requests; checks nothing else (the database: /readyz). ' +
          'The HTTP server answers `GET /healthz` before routing (no hooks, no access line); other forms of it (HEAD, ' +
          'a query string) go through this route. No token needed.',
        response: { 200: Status, 431: HeadersTooLarge },
      },
    },
    () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      config: { public: true },
      schema: {
        tags: ['health'],
        summary: 'The database is reachable',
        description:
          'Readiness: runs one query on the database; `{status: "ready"}`, or 503 `{status: "database unreachable"}` ' +
          '(logged as a warning) when it fails. No token needed.',
        response: { 200: Status, 431: HeadersTooLarge, 503: Status },
      },
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
