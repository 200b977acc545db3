import type { FastifyInstance } from 'fastify';
import type { AppContext } from './context.js';
import { deleteExpiredSessions } from './repositories/sessions.js';
import type { Services } from './services/index.js';

const INTERVAL_MS = 60_000;

/**
 * Periodic clean-up that needs no queue: expired sessions, abandoned uploads,
 * trash older than DAM_TRASH_DAYS, objects of deleted rows, idempotency keys past their 24 hours, shared-link
 * access-log entries older than DAM_SHARE_LOG_DAYS. Runs every
 * minute in every process; each step is idempotent, so several API processes
 * may run it at once.
 */
export function startHousekeeping(app: FastifyInstance, ctx: AppContext, services: Services): void {
  const run = async () => {
    await deleteExpiredSessions(ctx.db, ctx.now());
    await services.idempotency.deleteExpired();
    await services.storage.sweepStaleUploads();
    // Before the drain: a purged asset's files are queued by its deletion and removed in the same run.
    await services.trash.purgeExpired();
    await services.storage.drainObjectDeletions();
    await services.shares.pruneAccessLog();
  };
  const timer = setInterval(() => {
    run().catch((err: unknown) => app.log.warn({ err }, 'housekeeping failed'));
  }, INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', () => clearInterval(timer));
}
