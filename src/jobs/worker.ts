import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { JobsConfig } from '../config.js';
import type { JobRow } from '../db/schema.js';
import type { JobOutcome, JobQueue } from './queue.js';
import { PermanentJobError, type JobHandler } from './types.js';
import { faultOf } from '../faults/classify.js';
import { describeFault, type FaultMonitor } from '../faults/monitor.js';
import { writeNowOrLater } from '../faults/retry-later.js';

/** Succeeded jobs are kept this long for the admin view, then pruned; failed ones stay. */
const KEEP_SUCCEEDED_SECONDS = 7 * 24 * 3600;
const PRUNE_EVERY_MS = 3600_000;

/**
 * While uploads keep arriving (one answered within this long), the worker runs one job at a time instead of
 * `concurrency`: the jobs each new file queues (renditions, embedded metadata, its hash) would otherwise take the
 * cores a bulk import's requests need, on a small machine most of them. One slot, so they still progress; the
 * rest of the backlog runs at full width as soon as the uploads pause.
 */
const UPLOAD_YIELD_MS = 1000;

/**
 * A run a fault failed waits this long at least, and then as long as the fault has lasted so far, up to
 * FAULT_DELAY_MAX: a job does not hammer a store or database that is down, and runs soon after a short outage.
 */
const FAULT_DELAY_MIN = 5;
const FAULT_DELAY_MAX = 600;

/** Told of every finished run (GET /metrics: job durations and failures by kind). */
export type JobRunObserver = (kind: string, outcome: JobOutcome, seconds: number) => void;

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/**
 * Runs queued jobs in this process, up to `concurrency` at once. It starts with the app and
 * stops on app.close() (after the jobs it is running finish). An idle worker polls every
 * `pollIntervalMs`, and is woken at once by jobs queued in this process. `drain()` runs every
 * job that is due until none is left: tests await it instead of sleeping.
 */
export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly handlers = new Map<string, JobHandler<never>>();
  private readonly active = new Set<Promise<void>>();
  private claiming: Promise<number> | undefined;
  private running = false;
  private loopDone: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private woken = false;
  private unsubscribe: (() => void) | undefined;
  private lastPrune = 0;

  constructor(
    private readonly queue: JobQueue,
    private readonly config: JobsConfig,
    private readonly log: FastifyBaseLogger,
    private readonly observe: JobRunObserver = () => {},
    private readonly faults?: FaultMonitor,
  ) {}

  register<P>(handler: JobHandler<P>): this {
    this.handlers.set(handler.kind.name, handler as unknown as JobHandler<never>);
    return this;
  }

  /** Starts the background loop; a process configured with concurrency 0 runs no jobs. */
  start(): void {
    if (this.running || this.config.concurrency === 0) return;
    this.running = true;
    this.unsubscribe = this.queue.onNotify(() => this.poke());
    this.loopDone = this.loop();
  }

  /** Stops claiming, then waits for the jobs in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.poke();
    await this.loopDone;
    await this.settleClaim();
    await Promise.all(this.active);
  }

  /** Runs every job that is due now, including those the background loop already took, until none is left. */
  async drain(): Promise<void> {
    const slots = Math.max(1, this.config.concurrency);
    for (;;) {
      const started = await this.fill(slots);
      if (started > 0) continue;
      if (this.active.size === 0) return;
      await Promise.race(this.active);
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let started = 0;
      const slots = this.queue.uploadedWithin(UPLOAD_YIELD_MS) ? 1 : this.config.concurrency;
      try {
        started = await this.fill(slots);
        await this.pruneNowAndThen();
      } catch (err) {
        // A database that is down fails every poll: one log line per incident (issue #37), not one a second.
        const fault = faultOf(err);
        if (fault && this.faults) this.faults.report(fault, err, 'job worker: claim');
        else this.log.warn({ err }, 'job worker: claiming failed');
      }
      if (!this.running) break;
      if (started === 0 || this.active.size >= slots) await this.sleep(this.config.pollIntervalMs);
    }
  }

  /** Claims as many due jobs as there are free slots and starts them. One claim at a time per process. */
  private async fill(slots: number): Promise<number> {
    await this.settleClaim();
    const free = slots - this.active.size;
    if (free <= 0) return 0;
    const claimedAt = Date.now();
    const claiming = this.queue.claim(this.id, free).then((jobs) => {
      for (const job of jobs) this.launch(job);
      return jobs.length;
    });
    this.claiming = claiming;
    try {
      const started = await claiming;
      // A claim answered: the database is back (closes its incident, if one began before this claim did). Only a
      // claim that ran: with every slot busy nothing asks the database, which may still be down.
      this.faults?.recovered('database_unavailable', claimedAt);
      return started;
    } finally {
      if (this.claiming === claiming) this.claiming = undefined;
    }
  }

  private async settleClaim(): Promise<void> {
    while (this.claiming) await this.claiming.catch(() => 0);
  }

  private launch(job: JobRow): void {
    const run: Promise<void> = this.execute(job).finally(() => {
      this.active.delete(run);
      this.poke();
    });
    this.active.add(run);
  }

  /** Runs one job and records its outcome; never rejects. */
  private async execute(job: JobRow): Promise<void> {
    const handler = this.handlers.get(job.kind);
    // A long job keeps its lease; a dead worker stops renewing it, and another worker takes the job.
    const heartbeat = setInterval(() => {
      this.queue.heartbeat(job, this.id).catch((err: unknown) => {
        // A database outage is one incident (issue #37), not a warning per running job every lease / 3.
        const fault = faultOf(err);
        if (fault && this.faults) this.faults.report(fault, err, `job ${job.kind}: heartbeat`);
        else this.log.warn({ err, job: job.id }, 'job worker: heartbeat failed');
      });
    }, (this.config.leaseSeconds * 1000) / 3);
    heartbeat.unref();
    let payload: unknown;
    const started = performance.now();
    let outcome: JobOutcome | undefined;
    try {
      if (!handler) throw new PermanentJobError(`No handler for job kind "${job.kind}"`);
      payload = JSON.parse(job.payload);
      await handler.run(payload as never);
      clearInterval(heartbeat);
      outcome = await this.queue.succeed(job, this.id);
    } catch (err) {
      clearInterval(heartbeat);
      outcome = await this.recordFailure(job, handler, payload, err);
    } finally {
      clearInterval(heartbeat);
      // Recording the outcome itself failed: the run still counts, as a failure.
      this.observe(job.kind, outcome ?? 'failed', (performance.now() - started) / 1000);
    }
  }

  private async recordFailure(job: JobRow, handler: JobHandler<never> | undefined, payload: unknown, err: unknown): Promise<JobOutcome | undefined> {
    const message = describe(err);
    const fault = faultOf(err);
    try {
      if (fault) {
        // issue #37: a full disk or an unavailable store or database is not the job's fault: it waits and runs again,
        // without using up an attempt; the incident is logged once (FaultMonitor), not once per job.
        this.faults?.report(fault, err, `job ${job.kind}`);
        const delay = Math.min(FAULT_DELAY_MAX, Math.max(FAULT_DELAY_MIN, this.faults?.activeSeconds(fault) ?? FAULT_DELAY_MIN));
        const reason = `Waiting: ${describeFault(fault)} (${message}); runs again in ${delay} s`;
        // The fault may refuse the postponement too (the database on the full disk): it is recorded as soon as it can
        // be, rather than the job staying claimed, saying nothing, until its lease runs out.
        let outcome: JobOutcome = 'retrying';
        const postpone = async () => {
          outcome = await this.queue.postpone(job, this.id, reason, delay);
        };
        await writeNowOrLater(`postponing job ${job.id}`, postpone, this.log);
        return outcome;
      }
      const outcome = await this.queue.fail(job, this.id, message, err instanceof PermanentJobError);
      this.log.warn({ job: job.id, kind: job.kind, attempt: job.attempts, outcome, error: message }, 'job failed');
      if (outcome === 'failed' && handler?.onGaveUp && payload !== undefined) await handler.onGaveUp(payload as never, message);
      return outcome;
    } catch (recordErr) {
      // The database is gone (issue #37): the job stays claimed and runs again when its lease runs out; the
      // incident is logged once, not once per job.
      const recordFault = faultOf(recordErr);
      if (recordFault && this.faults) this.faults.report(recordFault, recordErr, `job ${job.kind}: recording its outcome`);
      else this.log.error({ err: recordErr, job: job.id }, 'job worker: recording a failure failed');
      return undefined;
    }
  }

  private async pruneNowAndThen(): Promise<void> {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    await this.queue.prune(KEEP_SUCCEEDED_SECONDS);
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.poke(), ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
    });
  }

  private poke(): void {
    if (this.wake) this.wake();
    else this.woken = true;
  }
}
