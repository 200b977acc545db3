import type { Insertable, Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { DriveAssetLinksTable, DriveImportItemStatus, DriveImportItemsTable, DriveImportStatus, DriveImportsTable } from '../db/schema.js';

/** SQL for imports from external drives (migration 0018): the imports, their items, and the asset <- drive file links. */

export type DriveImportRecord = Selectable<DriveImportsTable>;
export type DriveImportItemRecord = Selectable<DriveImportItemsTable>;
export type DriveAssetLinkRecord = Selectable<DriveAssetLinksTable>;
export type NewDriveImport = Omit<Insertable<DriveImportsTable>, 'id' | 'status' | 'planned' | 'error' | 'updated_at'>;
export type NewDriveImportItem = Omit<Insertable<DriveImportItemsTable>, 'id' | 'bytes'>;

export function insertImport(db: DB, values: NewDriveImport): Promise<DriveImportRecord> {
  return db
    .insertInto('drive_imports')
    .values({ ...values, status: 'queued', planned: 0, error: null, updated_at: values.created_at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findImport(db: DB, id: number): Promise<DriveImportRecord | undefined> {
  return db.selectFrom('drive_imports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A workspace's imports, newest first. */
export function listImports(db: DB, workspaceId: number, window: { limit: number; offset: number }): Promise<DriveImportRecord[]> {
  return db.selectFrom('drive_imports').selectAll().where('workspace_id', '=', workspaceId).orderBy('id', 'desc').limit(window.limit).offset(window.offset).execute();
}

/** Updates an import that has not finished: a late run never reopens a finished one. */
export async function updateImport(db: DB, id: number, patch: { status?: DriveImportStatus; error?: string | null; planned?: number }, now: number): Promise<void> {
  await db
    .updateTable('drive_imports')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** Records an item once per import: a planning run again after a crash adds nothing twice. Answers whether it was new. */
export async function insertItem(db: DB, item: NewDriveImportItem): Promise<boolean> {
  const row = await db
    .insertInto('drive_import_items')
    .values({ ...item, bytes: 0 })
    .onConflict((oc) => oc.columns(['import_id', 'file_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The next pending files of an import, in the order they were planned. */
export function pendingFiles(db: DB, importId: number, limit: number): Promise<DriveImportItemRecord[]> {
  return db
    .selectFrom('drive_import_items')
    .selectAll()
    .where('import_id', '=', importId)
    .where('status', '=', 'pending')
    .where('kind', '=', 'file')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function finishItem(
  db: DB,
  id: number,
  outcome: { status: Exclude<DriveImportItemStatus, 'pending'>; reason?: string | null; message?: string | null; asset_id?: number | null; bytes?: number },
): Promise<void> {
  await db
    .updateTable('drive_import_items')
    .set({ status: outcome.status, reason: outcome.reason ?? null, message: outcome.message ?? null, asset_id: outcome.asset_id ?? null, bytes: outcome.bytes ?? 0 })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

export interface ImportTotals {
  files: number;
  folders: number;
  pending: number;
  imported: number;
  skipped: number;
  failed: number;
  bytes: number;
}

/** Counts of the import's files by status (folders counted apart), and the bytes written so far. */
export async function importTotals(db: DB, importId: number): Promise<ImportTotals> {
  const rows = await db
    .selectFrom('drive_import_items')
    .select(['kind', 'status', (eb) => eb.fn.countAll<number | string>().as('n'), (eb) => eb.fn.sum<number | string | null>('bytes').as('bytes')])
    .where('import_id', '=', importId)
    .groupBy(['kind', 'status'])
    .execute();
  const totals: ImportTotals = { files: 0, folders: 0, pending: 0, imported: 0, skipped: 0, failed: 0, bytes: 0 };
  for (const r of rows) {
    const n = Number(r.n);
    totals.bytes += Number(r.bytes ?? 0);
    if (r.kind === 'folder') {
      totals.folders += n;
      continue;
    }
    totals.files += n;
    totals[r.status] += n;
  }
  return totals;
}

/** A page of the import's items (folders and files) in planning order, optionally of one status. */
export function listItems(db: DB, importId: number, window: { limit: number; offset: number }, status?: DriveImportItemStatus): Promise<DriveImportItemRecord[]> {
  let query = db.selectFrom('drive_import_items').selectAll().where('import_id', '=', importId);
  if (status) query = query.where('status', '=', status);
  return query.orderBy('id').limit(window.limit).offset(window.offset).execute();
}

export async function countItems(db: DB, importId: number, status?: DriveImportItemStatus): Promise<number> {
  let query = db.selectFrom('drive_import_items').select((eb) => eb.fn.countAll<number | string>().as('n')).where('import_id', '=', importId);
  if (status) query = query.where('status', '=', status);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

export interface LinkKey {
  workspace_id: number;
  provider: string;
  account_id: string;
  file_id: string;
  folder_key: number;
}

export function findLink(db: DB, key: LinkKey): Promise<DriveAssetLinkRecord | undefined> {
  return db
    .selectFrom('drive_asset_links')
    .selectAll()
    .where('workspace_id', '=', key.workspace_id)
    .where('provider', '=', key.provider)
    .where('account_id', '=', key.account_id)
    .where('file_id', '=', key.file_id)
    .where('folder_key', '=', key.folder_key)
    .executeTakeFirst();
}

/**
 * Points the drive file (in that folder) at this asset and revision. The asset is always one the file made
 * (new, or found through this very link), so only the file's key can conflict.
 */
export async function saveLink(db: DB, link: DriveAssetLinkRecord): Promise<void> {
  await db
    .insertInto('drive_asset_links')
    .values(link)
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'provider', 'account_id', 'file_id', 'folder_key']).doUpdateSet({
        asset_id: link.asset_id,
        revision: link.revision,
        imported_at: link.imported_at,
      }),
    )
    .execute();
}
