import { FAULT_CLASSES, type FaultClass } from './classify.js';

/** How long a fault must stay quiet (no failure reported) before its incident is over, unless a probe says so sooner. */
const DEFAULT_QUIET_MS = 30_000;

const DESCRIPTIONS: Record<FaultClass, string> = {
  disk_full: 'the disk is full',
  database_unavailable: 'the database is unavailable',
  storage_unavailable: 'the object store is unavailable',
};

/** "the disk is full", "the database is unavailable", "the object store is unavailable". */
export const describeFault = (fault: FaultClass): string => DESCRIPTIONS[fault];

export interface FaultLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

interface Incident {
  since: number;
  failures: number;
  where: Set<string>;
  timer: NodeJS.Timeout | undefined;
}

export interface FaultStat {
  fault: FaultClass;
  /** Incidents since the process started (one per outage, however many requests it failed). */
  incidents: number;
  /** Requests, jobs and sweeps that failed because of it. */
  failures: number;
  active: boolean;
}

/**
 * One incident per outage (issue #37): the first failure of a fault class opens it and is logged once (error), with
 * the error; later ones only count; it closes when a probe succeeds (`recovered`: /readyz, the worker's next claim) or
 * after a quiet period, logged once more (warn) with how long it lasted and how many failures it caused. GET /metrics
 * exposes the counts (dam_fault_incidents_total, dam_fault_failures_total, dam_fault_active).
 */
export class FaultMonitor {
  log: FaultLog | undefined;
  private readonly open = new Map<FaultClass, Incident>();
  private readonly totals = new Map<FaultClass, { incidents: number; failures: number }>(FAULT_CLASSES.map((f) => [f, { incidents: 0, failures: 0 }]));

  constructor(private readonly quietMs = DEFAULT_QUIET_MS) {}

  /** A request, job or sweep failed because of `fault`; `where` names it (a route, a job kind, a sweep). */
  report(fault: FaultClass, err: unknown, where: string): void {
    this.totals.get(fault)!.failures += 1;
    this.touch(fault, err, where).failures += 1;
  }

  /**
   * A probe (GET /readyz) found `fault`: opens its incident as `report` does (one "fault began" line), or keeps the open
   * one from ending while the probes keep finding it, but counts no failure: a probe is not a request that failed.
   */
  observed(fault: FaultClass, err: unknown, where: string): void {
    this.touch(fault, err, where);
  }

  private touch(fault: FaultClass, err: unknown, where: string): Incident {
    let incident = this.open.get(fault);
    if (!incident) {
      incident = { since: Date.now(), failures: 0, where: new Set(), timer: undefined };
      this.open.set(fault, incident);
      this.totals.get(fault)!.incidents += 1;
      this.log?.error({ fault, where, err }, `fault began: ${DESCRIPTIONS[fault]}`);
    }
    if (incident.where.size < 20) incident.where.add(where);
    clearTimeout(incident.timer);
    incident.timer = setTimeout(() => this.recovered(fault), this.quietMs);
    incident.timer.unref();
    return incident;
  }

  /**
   * The fault is over (a probe succeeded, or it stayed quiet): closes its incident, if one is open. `asOf` (ms since the
   * epoch): when the successful probe started; an incident that began after it is not proved over and stays open.
   */
  recovered(fault: FaultClass, asOf?: number): void {
    const incident = this.open.get(fault);
    if (!incident || (asOf !== undefined && incident.since > asOf)) return;
    clearTimeout(incident.timer);
    this.open.delete(fault);
    const seconds = Math.round((Date.now() - incident.since) / 100) / 10;
    this.log?.warn({ fault, seconds, failures: incident.failures, where: [...incident.where] }, `fault ended: ${DESCRIPTIONS[fault]} no longer (${seconds} s)`);
  }

  isActive(fault: FaultClass): boolean {
    return this.open.has(fault);
  }

  /** Seconds since the open incident of `fault` began (0 when none is open). */
  activeSeconds(fault: FaultClass): number {
    const incident = this.open.get(fault);
    return incident ? Math.floor((Date.now() - incident.since) / 1000) : 0;
  }

  stats(): FaultStat[] {
    return FAULT_CLASSES.map((fault) => ({ fault, ...this.totals.get(fault)!, active: this.open.has(fault) }));
  }

  /** Stops the quiet timers (app close). */
  close(): void {
    for (const incident of this.open.values()) clearTimeout(incident.timer);
  }
}
