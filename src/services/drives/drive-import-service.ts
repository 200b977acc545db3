import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { DriveProviderId } from '../../drives/types.js';
import { IMPORT_DRIVE } from '../../jobs/kinds.js';
import type { JobQueue } from '../../jobs/queue.js';
import * as repo from '../../repositories/drive-imports.js';
import { folderExistsInWorkspace } from '../../repositories/folders.js';
import type { ImportInput, ImportListInput, ImportQueryInput, ImportSummaryView, ImportView } from '../../contracts/drives.js';
import { requireRole } from '../access.js';
import type { Caller } from '../auth-service.js';
import { badReference, pageWindow } from '../catalog-access.js';
import { sightOf } from '../visibility.js';
import { visibleAmong } from '../../repositories/assets.js';
import type { DriveConnections } from './drive-connections.js';

function toImportView(
  imp: repo.DriveImportRecord,
  totals: repo.ImportTotals,
  items: { items: repo.DriveImportItemRecord[]; page: number; per_page: number; total: number },
): ImportView {
  return {
    ...toSummary(imp, totals),
    items: {
      items: items.items.map((i) => ({
        file_id: i.file_id,
        kind: i.kind,
        name: i.name,
        path: i.path,
        size: i.size,
        status: i.status,
        reason: i.reason,
        message: i.message,
        asset_id: i.asset_id,
        folder_id: i.folder_id,
        bytes: i.bytes,
      })),
      page: items.page,
      per_page: items.per_page,
      total: items.total,
    },
  };
}

function toSummary(imp: repo.DriveImportRecord, totals: repo.ImportTotals): ImportSummaryView {
  const processed = totals.imported + totals.skipped + totals.failed;
  return {
    id: imp.id,
    provider: imp.provider as DriveProviderId,
    workspace_id: imp.workspace_id,
    folder_id: imp.folder_id,
    recursive: imp.recursive === 1,
    status: imp.status,
    planned: imp.planned === 1,
    total_files: totals.files,
    folders: totals.folders,
    processed_files: processed,
    pending: totals.pending,
    imported: totals.imported,
    skipped: totals.skipped,
    failed: totals.failed,
    progress: imp.planned === 1 ? (totals.files === 0 ? 1 : Math.min(1, processed / totals.files)) : 0,
    bytes: totals.bytes,
    error: imp.error,
    created_at: imp.created_at,
    updated_at: imp.updated_at,
  };
}

/**
 * POST /{provider}/import and GET /drives/imports/:id (issue #16). Starting checks what can be checked at once
 * (the provider, the caller's role, the folder, a usable connection) and queues the job
 * (drive-import-runner.ts), which walks the selection and streams each file into the library.
 */
export class DriveImportService {
  constructor(
    private readonly ctx: AppContext,
    private readonly connections: DriveConnections,
    private readonly jobs: JobQueue,
  ) {}

  async start(caller: Caller, id: DriveProviderId, input: ImportInput): Promise<ImportView> {
    const { db } = this.ctx;
    const provider = this.connections.provider(id);
    await requireRole(db, input.workspaceId, caller.id, 'manager');
    if (input.folder_id !== undefined && !(await folderExistsInWorkspace(db, input.workspaceId, input.folder_id))) {
      throw badReference('folder_id', `folder ${input.folder_id} does not exist in workspace ${input.workspaceId}`);
    }
    const conn = await this.connections.connection(caller.id, provider);
    const ids = [...new Set(input.items.map((i) => i.id))];
    const created = await db.transaction().execute(async (trx) => {
      const row = await repo.insertImport(trx, {
        workspace_id: input.workspaceId,
        folder_id: input.folder_id ?? null,
        requested_by: caller.id,
        requested_by_name: caller.name || caller.email,
        provider: id,
        account_id: conn.account_id,
        requested_ids: JSON.stringify(ids),
        recursive: input.recursive === false ? 0 : 1,
        created_at: this.ctx.now(),
      });
      await this.jobs.enqueue(trx, IMPORT_DRIVE, { importId: row.id });
      return row;
    });
    this.jobs.notify();
    const empty: repo.ImportTotals = { files: 0, folders: 0, pending: 0, imported: 0, skipped: 0, failed: 0, bytes: 0 };
    return toImportView(created, empty, { items: [], page: 1, per_page: 50, total: 0 });
  }

  /** A workspace's imports, newest first, without their items (members, viewers too). */
  async list(caller: Caller, q: ImportListInput): Promise<{ items: ImportSummaryView[]; page: number; per_page: number }> {
    const { db } = this.ctx;
    await requireRole(db, q.workspaceId, caller.id, 'viewer');
    const w = pageWindow({ page: q.page, per_page: q.per_page ?? 20 });
    const imports = await repo.listImports(db, q.workspaceId, w);
    const items = await Promise.all(imports.map(async (imp) => toSummary(imp, await repo.importTotals(db, imp.id))));
    return { items, page: w.page, per_page: w.per_page };
  }

  /**
   * Members of the import's workspace (viewers too); anyone else 404. An item's asset the caller does not see (made
   * private since) is answered as no asset (domain/asset-visibility.ts).
   */
  async get(caller: Caller, importId: number, q: ImportQueryInput): Promise<ImportView> {
    const { db } = this.ctx;
    const imp = await repo.findImport(db, importId);
    if (!imp) throw notFound('Drive import');
    let role;
    try {
      role = await requireRole(db, imp.workspace_id, caller.id, 'viewer');
    } catch (err) {
      throw (err as { code?: string }).code === 'NOT_FOUND' ? notFound('Drive import') : err;
    }
    const w = pageWindow(q);
    const [totals, listed, total] = await Promise.all([
      repo.importTotals(db, importId),
      repo.listItems(db, importId, w, q.status),
      repo.countItems(db, importId, q.status),
    ]);
    const made = listed.flatMap((i) => (i.asset_id === null ? [] : [i.asset_id]));
    const visible = await visibleAmong(db, imp.workspace_id, sightOf(role, caller.id), made);
    const items = listed.map((i) => (i.asset_id === null || visible.has(i.asset_id) ? i : { ...i, asset_id: null }));
    return toImportView(imp, totals, { items, page: w.page, per_page: w.per_page, total });
  }
}
