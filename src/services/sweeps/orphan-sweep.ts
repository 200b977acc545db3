import type { AppContext } from '../../context.js';
import { accountedKeys, countStoredObjects, workspaceIdsAfter } from '../../repositories/store-references.js';
import { ASSET_LAYOUT } from '../../storage/keys.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { EXAMPLES, type SweepGuard, type SweepPlan } from './sweep-guard.js';

/** An object younger than this is never an orphan: a rendition or upload is written before its row. */
export const ORPHAN_MIN_AGE = 86_400;
const PAGE = 500;

interface WorkspaceFindings {
  /** Objects of the asset layout listed under the workspace's prefix. */
  listed: number;
  /** Of those, objects no row accounts for, older than ORPHAN_MIN_AGE. */
  orphans: number;
  /** The first of them, to delete this run. */
  doomed: string[];
  examples: string[];
}

/**
 * The orphaned-objects sweep (DAM_ORPHAN_SWEEP_HOURS, off by default; issue #37): every so many hours, lists each
 * workspace's prefix of the store and deletes objects of the asset layout that no row accounts for (what
 * `npm run admin -- verify` reports as orphans), at most DAM_SWEEP_BATCH a run. Only workspaces the database has are
 * listed, so a database that is new or wrong deletes nothing. Before deleting, it checks that the listing is the
 * store's: a store that lists much less than the rows reference (an empty bucket, an unmounted data dir, another
 * instance's bucket) is refused outright, with nothing deleted; and orphans past DAM_SWEEP_MAX_PERCENT of the
 * workspace's objects (a database restored from an older backup) wait for an admin (SweepGuard).
 */
export class OrphanSweep {
  /** When this process last ran it (app clock); every process keeps its own, the leader lock makes them take turns. */
  private lastRun: number | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly guard: SweepGuard,
  ) {}

  /** Runs the sweep when DAM_ORPHAN_SWEEP_HOURS are on and have passed since the last run. */
  async maybeRun(): Promise<number> {
    const hours = this.ctx.config.sweeps.orphanHours;
    const now = this.ctx.now();
    if (hours === 0 || (this.lastRun !== undefined && now - this.lastRun < hours * 3600)) return 0;
    this.lastRun = now;
    return this.run();
  }

  async run(): Promise<number> {
    let budget = this.guard.batch;
    const withWork = new Set<number>();
    let deleted = 0;
    for (let after = 0, page = await workspaceIdsAfter(this.ctx.db, 0, PAGE); page.length > 0; page = await workspaceIdsAfter(this.ctx.db, after, PAGE)) {
      after = page[page.length - 1]!;
      for (const ws of page) {
        const found = await this.inspect(ws, budget);
        const stored = await countStoredObjects(this.ctx.db, ws);
        const present = found.listed - found.orphans;
        const missing = Math.max(0, stored - present);
        if (missing === 0 && found.orphans === 0) continue;
        withWork.add(ws);
        // A store that lists too little is not the store the rows describe: nothing it lists (or does not) is acted on.
        const incomplete: SweepPlan = {
          sweep: 'orphaned-objects',
          workspaceId: ws,
          count: missing,
          total: stored,
          summary:
            `found the store listing only ${present} of the ${stored} files the database references (${missing} missing) ` +
            `and would delete ${found.orphans} objects no row accounts for`,
          examples: found.examples,
        };
        const orphans: SweepPlan = {
          sweep: 'orphaned-objects',
          workspaceId: ws,
          count: found.orphans,
          total: found.listed,
          summary: `would delete ${found.orphans} of the ${found.listed} stored objects of the workspace that no row accounts for (orphans)`,
          examples: found.examples,
        };
        if (!(await this.guard.allows(this.guard.exceeds(incomplete) ? incomplete : orphans))) continue;
        for (const key of found.doomed) {
          if (budget <= 0) break;
          // Looked at again just before: a row written since the listing keeps its object.
          const assetId = Number(ASSET_LAYOUT.exec(key)![1]);
          if ((await accountedKeys(this.ctx.db, [assetId], [key])).has(key)) continue;
          await this.store.delete(key);
          budget -= 1;
          deleted += 1;
        }
      }
    }
    await this.guard.settle('orphaned-objects', (ws) => Promise.resolve(withWork.has(ws)));
    return deleted;
  }

  /** Lists the workspace's prefix page by page and sorts what it finds; keeps up to `keep` orphans to delete. */
  private async inspect(ws: number, keep: number): Promise<WorkspaceFindings> {
    const found: WorkspaceFindings = { listed: 0, orphans: 0, doomed: [], examples: [] };
    const oldest = this.ctx.now() - ORPHAN_MIN_AGE;
    let batch: { key: string; assetId: number; size: number; modifiedAt: number }[] = [];
    const sort = async () => {
      const known = await accountedKeys(this.ctx.db, [...new Set(batch.map((o) => o.assetId))], batch.map((o) => o.key));
      for (const o of batch) {
        if (known.has(o.key) || o.modifiedAt > oldest) continue;
        found.orphans += 1;
        if (found.doomed.length < keep) found.doomed.push(o.key);
        if (found.examples.length < EXAMPLES) found.examples.push(`${o.key} (${o.size} bytes)`);
      }
      batch = [];
    };
    for await (const object of this.store.listKeys(`${ws}/digital_assets/`)) {
      const match = ASSET_LAYOUT.exec(object.key);
      if (!match) continue;
      found.listed += 1;
      batch.push({ key: object.key, assetId: Number(match[1]), size: object.size, modifiedAt: object.modifiedAt });
      if (batch.length >= PAGE) await sort();
    }
    await sort();
    return found;
  }
}
