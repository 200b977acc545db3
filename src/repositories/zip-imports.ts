import { type Insertable, type Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { ZipEntryOutcome, ZipImportEntriesTable, ZipImportStatus, ZipImportsTable } from '../db/schema.js';

/** SQL for imports of stored ZIP archives (migration 0016): the imports and what became of each entry. */

export type ZipImportRecord = Selectable<ZipImportsTable>;
export type NewZipImport = Omit<Insertable<ZipImportsTable>, 'id' | 'status' | 'error' | 'updated_at' | 'total_entries' | 'bytes_written'>;
export type ZipImportEntryRecord = Selectable<ZipImportEntriesTable>;

export async function insertImport(db: DB, values: NewZipImport): Promise<ZipImportRecord> {
  return db
    .insertInto('zip_imports')
    .values({ ...values, status: 'queued', error: null, total_entries: null, bytes_written: 0, updated_at: values.created_at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findImport(db: DB, id: number): Promise<ZipImportRecord | undefined> {
  return db.selectFrom('zip_imports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Updates an import that has not finished: a late run never reopens a finished one. */
export async function updateImport(
  db: DB,
  id: number,
  patch: { status?: ZipImportStatus; error?: string | null; total_entries?: number; bytes_written?: number },
  now: number,
): Promise<void> {
  await db
    .updateTable('zip_imports')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** Records what became of an entry, once: false when a run before this one recorded it already. */
export async function recordEntry(db: DB, entry: ZipImportEntryRecord): Promise<boolean> {
  const row = await db
    .insertInto('zip_import_entries')
    .values(entry)
    .onConflict((oc) => oc.columns(['import_id', 'entry_index']).doNothing())
    .returning('entry_index')
    .executeTakeFirst();
  return row !== undefined;
}

/** The entries recorded so far, by index (a run after a crash skips them; a directory's row gives its folder). */
export async function recordedEntries(db: DB, importId: number): Promise<Map<number, ZipImportEntryRecord>> {
  const rows = await db.selectFrom('zip_import_entries').selectAll().where('import_id', '=', importId).execute();
  return new Map(rows.map((r) => [r.entry_index, r]));
}

/** How many entries of the import ended each way. */
export async function countOutcomes(db: DB, importId: number): Promise<Record<ZipEntryOutcome, number>> {
  const rows = await db
    .selectFrom('zip_import_entries')
    .select(['outcome', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('import_id', '=', importId)
    .groupBy('outcome')
    .execute();
  const counts: Record<ZipEntryOutcome, number> = { imported: 0, skipped: 0, failed: 0 };
  for (const r of rows) counts[r.outcome] = Number(r.n);
  return counts;
}

/** A page of the recorded entries, in archive order. */
export function listEntries(db: DB, importId: number, window: { limit: number; offset: number }): Promise<ZipImportEntryRecord[]> {
  return db
    .selectFrom('zip_import_entries')
    .selectAll()
    .where('import_id', '=', importId)
    .orderBy('entry_index')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

