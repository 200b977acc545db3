import type { ObjectStore } from '../storage/object-store.js';
import { faultOf, type FaultClass } from './classify.js';
import { diskSpace, formatBytes, type DiskPlace } from './disk-space.js';
import type { FaultMonitor } from './monitor.js';

/** Each check gives up after this long: /readyz answers within it whatever hangs (probes time out after 1 to 10 s). */
const CHECK_TIMEOUT_MS = 2_000;
/** The store's answer is kept this long: frequent probes (every process, every few seconds) never hammer the store. */
const STORE_PROBE_TTL_MS = 5_000;
const WHERE = 'GET /readyz';

export type CheckName = 'database' | 'disk' | 'store';

export interface ReadinessReport {
  ready: boolean;
  /** "ok", "off" (the disk check with DAM_READY_MIN_FREE_BYTES=0), or what failed: "unreachable: ...", "low: ...". */
  checks: Record<CheckName, string>;
}

interface Outcome {
  ok: boolean;
  text: string;
}

class CheckTimeout extends Error {
  override name = 'CheckTimeout';
}

/** Why a check failed, in words safe to show anyone (/readyz is public): no host, path or message of a driver. */
function reasonOf(err: unknown, timeoutMs: number): string {
  let next: unknown = err;
  for (let depth = 0; depth < 6 && typeof next === 'object' && next !== null; depth += 1) {
    const e = next as { name?: unknown; code?: unknown; httpStatus?: unknown; providerCode?: unknown; cause?: unknown };
    if (e.name === 'CheckTimeout' || e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
    if (typeof e.httpStatus === 'number') return `answered ${e.httpStatus}${typeof e.providerCode === 'string' ? ` ${e.providerCode}` : ''}`;
    // errno (ECONNREFUSED), SQLSTATE (57P01), SQLite (SQLITE_BUSY): codes, never free text.
    if (typeof e.code === 'string' && /^[A-Z0-9_]{3,40}$/.test(e.code)) return e.code;
    next = e.cause;
  }
  return 'failed';
}

/** What became of a run: the value the probe answered (the disk's outcome), or its error (a CheckTimeout too). */
type Result = { err?: unknown; outcome?: Outcome };

/**
 * One check: at most one run at a time (a probe that hangs is joined, never piled up), its outcome kept `ttlMs`, each
 * wait bounded by `timeoutMs`. `settle` turns a result into the outcome and tells the fault monitor: once per run and
 * per wait that timed out, never per /readyz answered from the kept outcome.
 */
class Check {
  private running: Promise<Outcome> | undefined;
  private kept: { outcome: Outcome; at: number } | undefined;

  constructor(
    private readonly probe: () => Promise<void | Outcome>,
    private readonly settle: (result: Result, startedAt: number) => Outcome,
    private readonly ttlMs: number,
    private readonly timeoutMs: number,
  ) {}

  private keep(outcome: Outcome): Outcome {
    this.kept = { outcome, at: Date.now() };
    return outcome;
  }

  async outcome(): Promise<Outcome> {
    if (this.kept && Date.now() - this.kept.at < this.ttlMs) return this.kept.outcome;
    const startedAt = Date.now();
    this.running ??= this.probe()
      .then(
        (outcome) => this.settle({ outcome: outcome ?? undefined }, startedAt),
        (err: unknown) => this.settle({ err }, startedAt),
      )
      .then((outcome) => this.keep(outcome))
      .finally(() => (this.running = undefined));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => resolve(this.keep(this.settle({ err: new CheckTimeout() }, startedAt))), this.timeoutMs);
      timer.unref();
    });
    try {
      return await Promise.race([this.running, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * GET /readyz (issue #37): the database answers, the data dir's file systems have DAM_READY_MIN_FREE_BYTES free, the
 * object store answers; checked in parallel, each within 2 s. A check that fails opens an incident of its fault (one
 * "fault began" line, not one per probe; `observed`); one that succeeds closes it (`recovered`).
 */
export class Readiness {
  private readonly checks: Record<CheckName, Check>;

  constructor(deps: {
    database: { ping(): Promise<void> };
    store: Pick<ObjectStore, 'probe'>;
    faults: FaultMonitor;
    places: readonly DiskPlace[];
    minFreeBytes: number;
    timeoutMs?: number;
    storeTtlMs?: number;
  }) {
    const timeoutMs = deps.timeoutMs ?? CHECK_TIMEOUT_MS;
    const { faults, minFreeBytes } = deps;
    /** The usual settle: ok, or "unreachable: <reason>" and the fault observed. */
    const reachable = (fault: FaultClass) => (result: Result, startedAt: number): Outcome => {
      if (result.err === undefined) {
        faults.recovered(fault, startedAt);
        return { ok: true, text: 'ok' };
      }
      faults.observed(faultOf(result.err) ?? fault, result.err, WHERE);
      return { ok: false, text: `unreachable: ${reasonOf(result.err, timeoutMs)}` };
    };
    this.checks = {
      database: new Check(() => deps.database.ping(), reachable('database_unavailable'), 0, timeoutMs),
      store: new Check(() => deps.store.probe(timeoutMs), reachable('storage_unavailable'), deps.storeTtlMs ?? STORE_PROBE_TTL_MS, timeoutMs),
      disk: new Check(
        async () => {
          if (minFreeBytes === 0) return { ok: true, text: 'off' };
          const low = (await diskSpace(deps.places)).filter((d) => d.freeBytes < minFreeBytes);
          if (low.length === 0) return { ok: true, text: 'ok' };
          const where = low.map((d) => `${formatBytes(d.freeBytes)} free on ${d.label}`).join(', ');
          return { ok: false, text: `low: ${where}, below ${formatBytes(minFreeBytes)}` };
        },
        (result, startedAt) => {
          if (result.err !== undefined) return { ok: false, text: `unreadable: ${reasonOf(result.err, timeoutMs)}` };
          const outcome = result.outcome!;
          if (outcome.text === 'ok') faults.recovered('disk_full', startedAt);
          if (!outcome.ok) faults.observed('disk_full', new Error(`Free disk space is ${outcome.text}`), WHERE);
          return outcome;
        },
        0,
        timeoutMs,
      ),
    };
  }

  async check(): Promise<ReadinessReport> {
    const [database, disk, store] = await Promise.all([this.checks.database.outcome(), this.checks.disk.outcome(), this.checks.store.outcome()]);
    return {
      ready: database.ok && disk.ok && store.ok,
      checks: { database: database.text, disk: disk.text, store: store.text },
    };
  }
}
