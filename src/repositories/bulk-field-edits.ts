import type { Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { BulkFieldEditsTable } from '../db/schema.js';

/** SQL of bulk custom-field edits (migration 0034, issue #30): the edit and, per asset it changed, before and after. */

export type BulkEditRow = Selectable<BulkFieldEditsTable>;

export async function insertEdit(db: DB, row: { workspace_id: number; user_id: number; operations: string; created_at: number }): Promise<number> {
  const { id } = await db
    .insertInto('bulk_field_edits')
    .values({ ...row, matched: 0, succeeded: 0, undone_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function finishEdit(db: DB, id: number, matched: number, succeeded: number): Promise<void> {
  await db.updateTable('bulk_field_edits').set({ matched, succeeded }).where('id', '=', id).execute();
}

export function findEdit(db: DB, id: number): Promise<BulkEditRow | undefined> {
  return db.selectFrom('bulk_field_edits').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Marks the edit undone, unless it already was: answers whether this call did it. */
export async function markUndone(db: DB, id: number, at: number): Promise<boolean> {
  const res = await db.updateTable('bulk_field_edits').set({ undone_at: at }).where('id', '=', id).where('undone_at', 'is', null).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function clearUndone(db: DB, id: number): Promise<void> {
  await db.updateTable('bulk_field_edits').set({ undone_at: null }).where('id', '=', id).execute();
}

export async function insertItem(db: DB, editId: number, assetId: number, before: Record<string, unknown>, after: Record<string, unknown>): Promise<void> {
  await db.insertInto('bulk_field_edit_items').values({ edit_id: editId, asset_id: assetId, before: JSON.stringify(before), after: JSON.stringify(after) }).execute();
}

/** The assets an edit changed (those deleted since are gone with them), in id order. */
export async function editItems(db: DB, editId: number): Promise<{ asset_id: number; before: Record<string, unknown>; after: Record<string, unknown> }[]> {
  const rows = await db.selectFrom('bulk_field_edit_items').selectAll().where('edit_id', '=', editId).orderBy('asset_id').execute();
  return rows.map((r) => ({ asset_id: r.asset_id, before: JSON.parse(r.before) as Record<string, unknown>, after: JSON.parse(r.after) as Record<string, unknown> }));
}
