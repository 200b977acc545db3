import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Readiness as ReadinessChecks } from '../faults/readiness.js';
import { HeadersTooLarge } from '../http/schemas.js';

const Status = Type.Object({ status: Type.String() });

const Readiness = (description: string) => Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not ready')]),
    checks: Type.Object({
      database: Type.String({ description: '`ok`, or `unreachable: <why>` (an error code, or `no answer within 2 s`)', examples: ['ok', 'unreachable: ECONNREFUSED'] }),
      disk: Type.String({
        description: '`ok`; `low: <free> free on <data|tmp|storage|database>, below <DAM_READY_MIN_FREE_BYTES>`; `unreadable: <why>`; `off` (DAM_READY_MIN_FREE_BYTES=0)',
        examples: ['ok', 'low: 12 MiB free on data, below 512 MiB'],
      }),
      store: Type.String({
        description: '`ok`, or `unreachable: <why>` (`no answer within 2 s`, `answered 503 SlowDown`, an error code)',
        examples: ['ok', 'unreachable: no answer within 2 s'],
      }),
    }),
  },
  { description },
);

export const healthRoutes: FastifyPluginAsyncTypebox<{ readiness: ReadinessChecks }> = async (app, { readiness }) => {
  app.get(
    '/healthz',
    // Probes every few seconds: no access line (a failing readiness check opens a fault incident: one log line).
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
        summary: 'The database, the disk and the object store are usable',
        description:
          'Readiness: checks, in parallel and each within 2 s, that the database answers one query (`database`), that the ' +
          "file systems of the data dir (and of its tmp/ and storage/ when mounted apart) have DAM_READY_MIN_FREE_BYTES free (`disk`), " +
          "and that the object store answers (`store`: S3's HeadBucket, kept 5 s so that probes never hammer the store; the " +
          'local store: its objects directory is writable). 200 `{status: "ready", checks}` when all pass; 503 ' +
          '`{status: "not ready", checks}` naming what failed, e.g. `{database: "ok", disk: "low: 12 MiB free on data, below ' +
          '512 MiB", store: "unreachable: no answer within 2 s"}`. A failed check opens an incident of its fault (one log ' +
          'line, GET /metrics dam_fault_active), a passed one closes it. Answers within about 2 s whatever hangs; a ' +
          'probe timeout of 3 s or more suits it. No token needed.',
        response: {
          200: Readiness('Ready: every check is `ok` (or `off`)'),
          431: HeadersTooLarge,
          503: Readiness('Not ready: the checks that failed say why'),
        },
      },
    },
    async (_request, reply) => {
      const report = await readiness.check();
      return reply.status(report.ready ? 200 : 503).send({ status: report.ready ? 'ready' : 'not ready', checks: report.checks });
    },
  );
};
