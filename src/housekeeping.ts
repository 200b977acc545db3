import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { DatabaseHandle } from './db/database.js';
import { runExclusive } from './db/leader-lock.js';
import { faultOf } from './faults/classify.js';
import type { FaultMonitor } from './faults/monitor.js';
import { deleteExpiredCounters } from './repositories/rate-limit-counters.js';
import type { AppContext } from './context.js';
import { deleteExpiredSessions } from './repositories/sessions.js';
import { deleteExpiredPasswordLinks } from './repositories/password-links.js';
import type { Services } from './services/index.js';
import { reconcile as reconcileUsage } from './services/quota-service.js';

const INTERVAL_MS = 60_000;

/** A named sweep: the name is its leader lock (src/db/leader-lock.ts). */
export type Sweep = [name: string, body: () => Promise<unknown>];

/**
 * Runs each sweep under its PostgreSQL advisory lock (issue #18): of several processes at most one
 * runs a given sweep at a time; one that finds it taken skips it until the next minute. A failing
 * sweep is logged and does not stop the others. On SQLite every sweep runs, as before.
 */
export async function runSweeps(database: DatabaseHandle, sweeps: readonly Sweep[], log: FastifyBaseLogger, faults?: FaultMonitor): Promise<void> {
  for (const [name, body] of sweeps) {
    try {
      await runExclusive(database, `housekeeping:${name}`, async () => {
        await body();
      });
    } catch (err) {
      // A fault (issue #37) is one log line per incident, however many sweeps it fails.
      const fault = faultOf(err);
      if (fault && faults) faults.report(fault, err, `housekeeping ${name}`);
      else log.warn({ err, sweep: name }, 'housekeeping sweep failed');
    }
  }
}

/**
 * Periodic clean-up that needs no queue: expired sessions, abandoned uploads and those past DAM_UPLOAD_MAX_LIFETIME,
 * trash older than DAM_TRASH_DAYS, objects of deleted rows, orphaned objects (DAM_ORPHAN_SWEEP_HOURS), idempotency keys past their 24 hours, shared-link
 * access-log entries older than DAM_SHARE_LOG_DAYS, rate-limit windows that are over. Runs every
 * minute in each process of role all or worker; each sweep under its leader lock (runSweeps).
 */
export function startHousekeeping(app: FastifyInstance, ctx: AppContext, services: Services): void {
  const sweeps: Sweep[] = [
    ['sessions', () => deleteExpiredSessions(ctx.db, ctx.now())],
    ['password-links', () => deleteExpiredPasswordLinks(ctx.db, ctx.now())],
    ['idempotency', () => services.idempotency.deleteExpired()],
    // Every sweep that deletes is bounded per run and refused past DAM_SWEEP_MAX_PERCENT of a workspace unless an admin
    // confirmed it (issue #37, services/sweeps/sweep-guard.ts).
    ['stale-uploads', () => services.storageSweeps.sweepStaleUploads()],
    // Before the drain: a purged asset's files are queued by its deletion and removed in the same run.
    ['trash', () => services.trash.purgeExpired()],
    ['orphaned-objects', () => services.orphanSweep.maybeRun()],
    ['object-deletions', () => services.storageSweeps.drainObjectDeletions()],
    ['share-access-log', () => services.shares.pruneAccessLog()],
    // The store counts windows on the wall clock (Date.now), not the app's clock.
    ['rate-limit-counters', () => deleteExpiredCounters(ctx.db, Date.now())],
    ['usage', () => reconcileUsage(ctx, app.log)],
  ];
  const timer = setInterval(() => {
    void runSweeps(ctx.database, sweeps, app.log, ctx.faults);
  }, INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', () => clearInterval(timer));
}
