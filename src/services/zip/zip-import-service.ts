import type { AppContext } from '../../context.js';
import { appError, notFound } from '../../errors.js';
import { IMPORT_ZIP } from '../../jobs/kinds.js';
import type { JobQueue } from '../../jobs/queue.js';
import * as assets from '../../repositories/assets.js';
import { folderExistsInWorkspace } from '../../repositories/folders.js';
import * as repo from '../../repositories/zip-imports.js';
import type { ZipImportInput, ZipImportView } from '../../contracts/zip.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { LocalRecords, ZipArchive } from '../../zip/zip-reader.js';
import { requireRole } from '../access.js';
import type { Caller } from '../auth-service.js';
import { badReference, pageWindow } from '../catalog-access.js';
import { loadVisibleAsset, sightOf } from '../visibility.js';
import { zipReadError } from './zip-service.js';

export function toImportView(
  imp: repo.ZipImportRecord,
  counts: Record<'imported' | 'skipped' | 'failed', number>,
  entries: { items: repo.ZipImportEntryRecord[]; page: number; per_page: number },
): ZipImportView {
  const processed = counts.imported + counts.skipped + counts.failed;
  return {
    id: imp.id,
    workspace_id: imp.workspace_id,
    asset_id: imp.source_asset_id,
    folder_id: imp.folder_id,
    status: imp.status,
    total_entries: imp.total_entries,
    processed_entries: processed,
    ...counts,
    progress: imp.total_entries ? Math.min(1, processed / imp.total_entries) : imp.status === 'succeeded' ? 1 : 0,
    bytes_written: imp.bytes_written,
    error: imp.error,
    created_at: imp.created_at,
    updated_at: imp.updated_at,
    entries: {
      items: entries.items.map((e) => ({
        index: e.entry_index,
        name: e.name,
        kind: e.kind,
        outcome: e.outcome,
        reason: e.reason,
        message: e.message,
        asset_id: e.asset_id,
        folder_id: e.folder_id,
      })),
      page: entries.page,
      per_page: entries.per_page,
      total: processed,
    },
  };
}

/**
 * POST /zip/extract and GET /zip/extract/:jobId (issue #14): checks the archive (it is a ZIP, its
 * entry count and declared sizes are within the limits) and queues the import; the job
 * (zip-import-runner.ts) turns its entries into folders and assets.
 */
export class ZipImportService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly jobs: JobQueue,
  ) {}

  async start(caller: Caller, input: ZipImportInput): Promise<ZipImportView> {
    const { db } = this.ctx;
    const asset = await loadVisibleAsset(db, input.assetId, caller.id, 'manager');
    if (!asset.storage_key) throw notFound('Asset');
    const ws = asset.workspace_id;
    if (input.folder_id !== undefined && !(await folderExistsInWorkspace(db, ws, input.folder_id))) {
      throw badReference('folder_id', `folder ${input.folder_id} does not exist in the archive's workspace`);
    }
    await this.checkArchive(asset.storage_key, asset.file_size);
    const created = await db.transaction().execute(async (trx) => {
      const row = await repo.insertImport(trx, {
        workspace_id: ws,
        source_asset_id: asset.id,
        folder_id: input.folder_id ?? null,
        requested_by: caller.id,
        requested_by_name: caller.name || caller.email,
        created_at: this.ctx.now(),
      });
      await this.jobs.enqueue(trx, IMPORT_ZIP, { importId: row.id });
      return row;
    });
    this.jobs.notify();
    return toImportView(created, { imported: 0, skipped: 0, failed: 0 }, { items: [], page: 1, per_page: 50 });
  }

  /**
   * Refused at once rather than in the job: not a ZIP, entries that overlap (ZIP_INVALID), too many
   * entries, or more declared bytes than an import may write.
   */
  private async checkArchive(key: string, size: number): Promise<void> {
    const limits = this.ctx.config.zip;
    let archive: ZipArchive;
    try {
      archive = await ZipArchive.open(this.store, key, size);
    } catch (err) {
      throw zipReadError(err);
    }
    try {
      if (archive.entryCount > limits.maxEntries) {
        throw appError('ZIP_LIMIT_EXCEEDED', `The archive has ${archive.entryCount} entries; an import takes at most ${limits.maxEntries}`, {
          limit: 'entries',
        });
      }
      let declared = 0;
      const records = new LocalRecords();
      for await (const { info, entry } of archive.entries()) {
        records.add(info, entry);
        if (!info.isDir && !info.problem) declared += info.size;
      }
      // Overlapping entries first: what they declare is not to be believed (one entry counted many times).
      records.assertDisjoint();
      if (declared > limits.maxUncompressed) {
        throw appError('ZIP_LIMIT_EXCEEDED', `The archive declares more than the ${limits.maxUncompressed} bytes an import may write`, {
          limit: 'bytes',
        });
      }
    } catch (err) {
      throw zipReadError(err);
    } finally {
      archive.close();
    }
  }

  /**
   * Members of the import's workspace (viewers too) who see its archive; anyone else 404. An entry's asset that the caller
   * does not see (made private since) is answered as no asset (domain/asset-visibility.ts).
   */
  async get(caller: Caller, id: number, q: { page?: number; per_page?: number }): Promise<ZipImportView> {
    const imp = await repo.findImport(this.ctx.db, id);
    if (!imp) throw notFound('ZIP import');
    let role;
    try {
      role = await requireRole(this.ctx.db, imp.workspace_id, caller.id, 'viewer');
    } catch (err) {
      throw (err as { code?: string }).code === 'NOT_FOUND' ? notFound('ZIP import') : err;
    }
    const sight = sightOf(role, caller.id);
    if (imp.source_asset_id !== null && !(await assets.visibleAmong(this.ctx.db, imp.workspace_id, sight, [imp.source_asset_id])).has(imp.source_asset_id)) {
      throw notFound('ZIP import');
    }
    const w = pageWindow(q);
    const [counts, listed] = await Promise.all([repo.countOutcomes(this.ctx.db, id), repo.listEntries(this.ctx.db, id, w)]);
    const made = listed.flatMap((e) => (e.asset_id === null ? [] : [e.asset_id]));
    const visible = await assets.visibleAmong(this.ctx.db, imp.workspace_id, sight, made);
    const items = listed.map((e) => (e.asset_id === null || visible.has(e.asset_id) ? e : { ...e, asset_id: null }));
    return toImportView(imp, counts, { items, page: w.page, per_page: w.per_page });
  }
}
