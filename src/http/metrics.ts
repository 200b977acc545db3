import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DatabaseHandle } from '../db/database.js';
import type { JobOutcome } from '../jobs/queue.js';
import type { JobQueueStat } from '../repositories/jobs.js';
import type { AnswerCacheStats } from '../domain/answer-cache.js';
import type { FaultStat } from '../faults/monitor.js';
import type { DiskSpace } from '../faults/disk-space.js';
import { LatencyHistogram, type HistogramSeries } from './latency-histogram.js';

/**
 * Process metrics (CPU, memory, event loop, GC) describe the process, not an app: one registry
 * for the whole process, made on the first scrape. prom-client's default collectors install
 * process-wide observers, so one set of them, however many apps a process builds (tests build many).
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
    dropMisnamedTotals(processRegistry);
  }
  return processRegistry;
}

/**
 * prom-client's nodejs_active_{handles,requests,resources}_total are gauges, and `_total` is for counters: `promtool check
 * metrics` reports them, and PromQL tools treat them as counters (rate() over a gauge). They are dropped rather than renamed
 * (issue #38): each is the sum over `type` of the gauge of the same name without `_total`, which stays.
 */
function dropMisnamedTotals(registry: Registry): void {
  for (const metric of registry.getMetricsAsArray()) {
    // prom-client's typings declare `type` as a numeric enum; at run time it is the text written after # TYPE.
    if (metric.name.endsWith('_total') && String(metric.type) !== 'counter') registry.removeSingleMetric(metric.name);
  }
}

/** The route label of a request that matched no route (404s): raw URLs would make a label value per URL. */
const UNMATCHED = '(unmatched)';

interface ByteTotals {
  received: number;
  sent: number;
}

/** Latency buckets in seconds: from a cached read (1 ms) to a slow upload part or ZIP (30 s). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const JOB_BUCKETS = [0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/**
 * This app's metrics (issue #18), in a registry of its own: several apps in one process
 * (tests) never share or collide. Request metrics are recorded by one onResponse hook;
 * queue depth and pool usage are read when scraped.
 */
export class AppMetrics {
  readonly registry = new Registry();
  /** Not in the registry: rendered beside it (see LatencyHistogram). */
  private readonly duration = new LatencyHistogram({
    name: 'dam_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status: latency (the _count series is the request count)',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
  });
  private readonly received = new Counter({
    name: 'dam_http_received_bytes_total',
    help: 'Bytes received on the connection (request line, headers and body) by route pattern: uploads are the /storage and upload routes',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  private readonly sent = new Counter({
    name: 'dam_http_sent_bytes_total',
    help: 'Bytes sent on the connection (status line, headers and body) by route pattern: downloads are the /storage/download, media and share routes',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });
  private readonly jobRuns = new Histogram({
    name: 'dam_job_duration_seconds',
    help: 'Job runs in this process by kind and outcome (succeeded, retrying, failed, lost: another worker took it over)',
    labelNames: ['kind', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobFailures = new Counter({
    name: 'dam_job_failures_total',
    help: 'Failed job runs by kind; final="true" when the job gave up (no attempt left, or a permanent error)',
    labelNames: ['kind', 'final'] as const,
    registers: [this.registry],
  });
  private readonly queued = new Gauge({
    name: 'dam_jobs',
    help: 'Jobs in the queue (all processes: read from the database when scraped) by kind and status (queued, running)',
    labelNames: ['kind', 'status'] as const,
    registers: [this.registry],
  });
  private readonly oldest = new Gauge({
    name: 'dam_jobs_oldest_age_seconds',
    help: 'Age of the oldest queued (or running) job by kind and status, since it was first queued',
    labelNames: ['kind', 'status'] as const,
    registers: [this.registry],
  });
  private readonly pool = new Gauge({
    name: 'dam_db_pool_connections',
    help: 'PostgreSQL connection pool of this process: total, idle, waiting (requests queued for a connection) and max',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  private readonly cacheRequests = new Counter({
    name: 'dam_answer_cache_requests_total',
    help: 'Reads answered from the answer cache (hit) or computed (miss: first time, data changed, too old, or a database without a change counter)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly cacheSize = new Gauge({
    name: 'dam_answer_cache_size',
    help: 'Answers kept by the answer cache of this process: their count (unit="answers") and the bytes of JSON they hold, keys included (unit="bytes")',
    labelNames: ['unit'] as const,
    registers: [this.registry],
  });
  private readonly faultIncidents = new Counter({
    name: 'dam_fault_incidents_total',
    help: 'Fault incidents in this process by fault (disk_full, database_unavailable, storage_unavailable): one per outage, however many requests it failed',
    labelNames: ['fault'] as const,
    registers: [this.registry],
  });
  private readonly faultFailures = new Counter({
    name: 'dam_fault_failures_total',
    help: 'Requests, job runs and sweeps of this process that failed because of a fault, by fault',
    labelNames: ['fault'] as const,
    registers: [this.registry],
  });
  private readonly faultActive = new Gauge({
    name: 'dam_fault_active',
    help: 'Whether an incident of the fault is open in this process (1) or not (0)',
    labelNames: ['fault'] as const,
    registers: [this.registry],
  });
  private readonly sweepRefusals = new Counter({
    name: 'dam_sweep_refusals_total',
    help:
      'Runs of a housekeeping sweep in this process that refused to delete more than DAM_SWEEP_MAX_PERCENT of a workspace (one per workspace and run), by sweep; ' +
      'each refusal is logged once and listed by GET /admin/sweeps until confirmed',
    labelNames: ['sweep'] as const,
    registers: [this.registry],
  });
  private readonly sweepsWaiting = new Gauge({
    name: 'dam_sweep_refusals_waiting',
    help: 'Refused sweeps waiting for an instance admin (POST /admin/sweeps/{sweep}/confirm), by sweep; read from the database, so every process reports all',
    labelNames: ['sweep'] as const,
    registers: [this.registry],
  });
  private readonly diskFree = new Gauge({
    name: 'dam_disk_free_bytes',
    help: 'Free bytes (for this process, blocks reserved for root not counted) of each file system the service writes, read when scraped: path="data" (DAM_DATA_DIR), and "tmp", "storage" or "database" when on a file system of their own',
    labelNames: ['path'] as const,
    registers: [this.registry],
  });
  private readonly diskSize = new Gauge({
    name: 'dam_disk_size_bytes',
    help: 'Size in bytes of each file system of dam_disk_free_bytes, by the same path label',
    labelNames: ['path'] as const,
    registers: [this.registry],
  });
  private readonly diskMinFree = new Gauge({
    name: 'dam_disk_min_free_bytes',
    help: 'DAM_READY_MIN_FREE_BYTES: below this many free bytes on any of them GET /readyz answers 503 (0: not checked)',
    registers: [this.registry],
  });
  /** Per "method route status": its latency series and its route's byte totals, found with one lookup. */
  private readonly answers = new Map<string, { latency: HistogramSeries; bytes: ByteTotals }>();
  /**
   * Bytes by route, as plain numbers: the counters are set to them at each scrape (render), so an answer costs two
   * additions rather than two prom-client increments, which hash their labels each time (issue #18).
   */
  private readonly bytesByRoute = new Map<string, ByteTotals>();
  /** What each keep-alive connection had read and written at its previous answer, so each answer counts its own bytes. */
  private readonly socketMarks = new WeakMap<Socket, { read: number; written: number }>();

  constructor(
    private readonly sources: {
      database: DatabaseHandle;
      jobStats: () => Promise<JobQueueStat[]>;
      now: () => number;
      answerCache?: () => AnswerCacheStats;
      faults?: () => FaultStat[];
      sweeps?: { refusedRuns: () => Record<string, number>; waiting: () => Promise<Record<string, number>> };
      /** The file systems the service writes and the free space /readyz requires (issue #37). */
      disk?: { space: () => Promise<DiskSpace[]>; minFreeBytes: number };
    },
  ) {}

  observeRequest(method: string, route: string | undefined, status: number, seconds: number, socket: Socket | undefined): void {
    const label = route ?? UNMATCHED;
    const key = `${method} ${label} ${status}`;
    let answer = this.answers.get(key);
    if (!answer) {
      answer = { latency: this.duration.seriesOf(method, label, String(status)), bytes: this.totalsOf(label) };
      this.answers.set(key, answer);
    }
    answer.latency.observe(seconds);
    // inject() (tests) has no real socket: its counters are undefined.
    if (!socket || typeof socket.bytesRead !== 'number') return;
    let mark = this.socketMarks.get(socket);
    if (!mark) {
      mark = { read: 0, written: 0 };
      this.socketMarks.set(socket, mark);
    }
    const read = socket.bytesRead;
    const written = socket.bytesWritten;
    if (read > mark.read) answer.bytes.received += read - mark.read;
    if (written > mark.written) answer.bytes.sent += written - mark.written;
    mark.read = read;
    mark.written = written;
  }

  private totalsOf(route: string): ByteTotals {
    let totals = this.bytesByRoute.get(route);
    if (!totals) {
      totals = { received: 0, sent: 0 };
      this.bytesByRoute.set(route, totals);
    }
    return totals;
  }

  observeJob(kind: string, outcome: JobOutcome, seconds: number): void {
    this.jobRuns.labels(kind, outcome).observe(seconds);
    if (outcome === 'retrying' || outcome === 'failed') this.jobFailures.labels(kind, String(outcome === 'failed')).inc();
  }

  /** The Prometheus text: this app's metrics, read fresh where they are gauges, then the process's. */
  async render(): Promise<{ contentType: string; body: string }> {
    // The database down (issue #37) must not fail the scrape that shows it (dam_fault_active): the queue's series drop.
    const stats = await this.sources.jobStats().catch(() => []);
    const now = this.sources.now();
    // Reset first: a kind whose queue emptied must drop to nothing, not keep its last value.
    this.queued.reset();
    this.oldest.reset();
    for (const s of stats) {
      this.queued.labels(s.kind, s.status).set(s.count);
      this.oldest.labels(s.kind, s.status).set(Math.max(0, now - s.oldest));
    }
    const cache = this.sources.answerCache?.();
    if (cache) {
      // Counted by the cache itself; the counter is set to its totals at each scrape.
      this.cacheRequests.reset();
      this.cacheRequests.labels('hit').inc(cache.hits);
      this.cacheRequests.labels('miss').inc(cache.misses);
      this.cacheSize.labels('answers').set(cache.entries);
      this.cacheSize.labels('bytes').set(cache.bytes);
    }
    // Counted by the fault monitor; the counters are set to its totals at each scrape (every fault, 0 included).
    this.faultIncidents.reset();
    this.faultFailures.reset();
    for (const f of this.sources.faults?.() ?? []) {
      this.faultIncidents.labels(f.fault).inc(f.incidents);
      this.faultFailures.labels(f.fault).inc(f.failures);
      this.faultActive.labels(f.fault).set(f.active ? 1 : 0);
    }
    // Refused runs counted by the sweep guard (set to its totals), refusals waiting read from the database (issue #37).
    if (this.sources.sweeps) {
      this.sweepRefusals.reset();
      for (const [sweep, runs] of Object.entries(this.sources.sweeps.refusedRuns())) this.sweepRefusals.labels(sweep).inc(runs);
      // The database down must not fail the scrape either: the gauge keeps its last values.
      const waiting = await this.sources.sweeps.waiting().catch(() => ({}));
      for (const [sweep, count] of Object.entries(waiting)) this.sweepsWaiting.labels(sweep).set(count);
    }
    const disk = this.sources.disk;
    if (disk) {
      this.diskFree.reset();
      this.diskSize.reset();
      // A file system that cannot be read (the data dir gone) drops its series rather than failing the scrape.
      for (const d of await disk.space().catch(() => [])) {
        this.diskFree.labels(d.label).set(d.freeBytes);
        this.diskSize.labels(d.label).set(d.sizeBytes);
      }
      this.diskMinFree.set(disk.minFreeBytes);
    }
    this.received.reset();
    this.sent.reset();
    for (const [route, totals] of this.bytesByRoute) {
      // A route that answered but moved no byte yet (inject) has no series, as before.
      if (totals.received > 0) this.received.labels(route).inc(totals.received);
      if (totals.sent > 0) this.sent.labels(route).inc(totals.sent);
    }
    const pool = this.sources.database.support.poolStats?.();
    if (pool) {
      this.pool.labels('total').set(pool.total);
      this.pool.labels('idle').set(pool.idle);
      this.pool.labels('waiting').set(pool.waiting);
      this.pool.labels('max').set(pool.max);
    }
    const body = `${this.duration.render()}\n${await this.registry.metrics()}\n${await processMetrics().metrics()}`;
    return { contentType: this.registry.contentType, body };
  }
}

/** Records an answer (by route pattern, never the raw URL, which carries ids and signatures): AccessLog calls it for every one. */
export function requestMetrics(metrics: AppMetrics): (request: FastifyRequest, reply: FastifyReply) => void {
  return (request, reply) => {
    metrics.observeRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000, request.raw.socket);
  };
}
