import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { DB } from '../db/database.js';
import { foldAscii } from '../domain/ascii-fold.js';
import type { CustomFieldOptionsTable, CustomFieldsTable, CustomFieldValuesTable } from '../db/schema.js';

/** SQL of custom metadata (migration 0033, issue #30): field definitions, their options, and the values. */

export type FieldRow = Selectable<CustomFieldsTable>;
export type OptionRow = Selectable<CustomFieldOptionsTable>;
export type ValueRow = Selectable<CustomFieldValuesTable>;
export type NewValue = Omit<Insertable<CustomFieldValuesTable>, 'id'>;

/** Where values live: the row's own id column, and its search document key. */
export interface ValueTarget {
  column: 'asset_id' | 'folder_id' | 'collection_id';
  id: number;
  docId: number;
}

const folded = (s: string | null | undefined) => (s == null ? null : foldAscii(s));

// ---- fields ----

/** The workspace's fields (deleted ones never), in their order. */
export function listFields(db: DB, workspaceId: number, includeRetired: boolean): Promise<FieldRow[]> {
  let q = db.selectFrom('custom_fields').selectAll().where('workspace_id', '=', workspaceId).where('deleted_at', 'is', null);
  if (!includeRetired) q = q.where('retired_at', 'is', null);
  return q.orderBy('position').orderBy('id').execute();
}

/** A field that is not deleted. */
export function findField(db: DB, id: number): Promise<FieldRow | undefined> {
  return db.selectFrom('custom_fields').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

/** Whether a field of the workspace has or had this key (deleted ones included: keys are never reused). */
export async function keyUsed(db: DB, workspaceId: number, key: string): Promise<boolean> {
  const row = await db.selectFrom('custom_fields').select('id').where('workspace_id', '=', workspaceId).where('key', '=', key).executeTakeFirst();
  return row !== undefined;
}

export async function fieldCount(db: DB, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('custom_fields')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertField(db: DB, row: Omit<Insertable<CustomFieldsTable>, 'id'>): Promise<number> {
  const { id } = await db.insertInto('custom_fields').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function updateField(db: DB, id: number, patch: Updateable<CustomFieldsTable>): Promise<void> {
  await db.updateTable('custom_fields').set(patch).where('id', '=', id).execute();
}

/** Moves the live fields at positions [from, to] (to: null, all from `from` on) by `delta` (a field moved across them makes room). */
export async function shiftFields(db: DB, workspaceId: number, from: number, to: number | null, delta: 1 | -1): Promise<void> {
  let q = db
    .updateTable('custom_fields')
    .set({ position: sql`position + ${delta}` })
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .where('position', '>=', from);
  if (to !== null) q = q.where('position', '<=', to);
  await q.execute();
}

// ---- options ----

/** The options of these fields, parents before children is the caller's job; by field, then position. */
export function listOptions(db: DB, fieldIds: readonly number[]): Promise<OptionRow[]> {
  if (fieldIds.length === 0) return Promise.resolve([]);
  return db.selectFrom('custom_field_options').selectAll().where('field_id', 'in', fieldIds).orderBy('field_id').orderBy('position').orderBy('id').execute();
}

export function findOption(db: DB, fieldId: number, optionId: number): Promise<OptionRow | undefined> {
  return db.selectFrom('custom_field_options').selectAll().where('id', '=', optionId).where('field_id', '=', fieldId).executeTakeFirst();
}

export async function insertOption(db: DB, row: Omit<Insertable<CustomFieldOptionsTable>, 'id'>): Promise<number> {
  const { id } = await db.insertInto('custom_field_options').values(row).returning('id').executeTakeFirstOrThrow();
  return id;
}

export async function updateOption(db: DB, id: number, patch: Updateable<CustomFieldOptionsTable>): Promise<void> {
  await db.updateTable('custom_field_options').set(patch).where('id', '=', id).execute();
}

export async function deleteOption(db: DB, id: number): Promise<void> {
  await db.deleteFrom('custom_field_options').where('id', '=', id).execute();
}

/** Siblings at positions >= from move by delta (under `parentId` in the field). */
export async function shiftOptions(db: DB, fieldId: number, parentId: number | null, from: number, delta: 1 | -1): Promise<void> {
  await db
    .updateTable('custom_field_options')
    .set({ position: sql`position + ${delta}` })
    .where('field_id', '=', fieldId)
    .where((eb) => (parentId === null ? eb('parent_id', 'is', null) : eb('parent_id', '=', parentId)))
    .where('position', '>=', from)
    .execute();
}

export async function childCount(db: DB, fieldId: number, parentId: number | null): Promise<number> {
  const row = await db
    .selectFrom('custom_field_options')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('field_id', '=', fieldId)
    .where((eb) => (parentId === null ? eb('parent_id', 'is', null) : eb('parent_id', '=', parentId)))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The children of `from` go under `into`, after its own. */
export async function moveChildren(db: DB, fromId: number, intoId: number, offset: number): Promise<void> {
  await db
    .updateTable('custom_field_options')
    .set({ parent_id: intoId, position: sql`position + ${offset}` })
    .where('parent_id', '=', fromId)
    .execute();
}

/**
 * The values naming option `from` name `into` instead; where a target already has `into` (a multi_select), the `from`
 * row goes. Answers how many values now name `into` that named `from`.
 */
export async function moveOptionValues(db: DB, fromId: number, intoId: number): Promise<number> {
  await db
    .deleteFrom('custom_field_values as v')
    .where('v.option_id', '=', fromId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('custom_field_values as w')
          .select('w.id')
          .where('w.option_id', '=', intoId)
          .whereRef('w.doc_id', '=', 'v.doc_id')
          .whereRef('w.field_id', '=', 'v.field_id'),
      ),
    )
    .execute();
  const moved = await db.updateTable('custom_field_values').set({ option_id: intoId }).where('option_id', '=', fromId).executeTakeFirst();
  return Number(moved.numUpdatedRows);
}

// ---- values ----

/** Values stored per field (for the definitions' value_count). */
export async function valueCounts(db: DB, fieldIds: readonly number[]): Promise<Map<number, number>> {
  if (fieldIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('custom_field_values')
    .select(['field_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('field_id', 'in', fieldIds)
    .groupBy('field_id')
    .execute();
  return new Map(rows.map((r) => [r.field_id, Number(r.n)]));
}

/** Every value of a field (a type change checks and converts them). */
export function fieldValues(db: DB, fieldId: number): Promise<ValueRow[]> {
  return db.selectFrom('custom_field_values').selectAll().where('field_id', '=', fieldId).orderBy('id').execute();
}

/** Targets of a multi_select that hold more than one option (they do not fit a select). */
export async function multiValuedTargets(db: DB, fieldId: number): Promise<number> {
  const rows = await db
    .selectFrom('custom_field_values')
    .select('doc_id')
    .where('field_id', '=', fieldId)
    .groupBy('doc_id')
    .having((eb) => eb.fn.countAll(), '>', 1)
    .execute();
  return rows.length;
}

/** A value's columns after a type change (text_folded follows text_value). */
export async function updateValue(db: DB, id: number, patch: Omit<Updateable<CustomFieldValuesTable>, 'text_folded'>): Promise<void> {
  const fold = patch.text_value === undefined ? {} : { text_folded: folded(patch.text_value) };
  await db.updateTable('custom_field_values').set({ ...patch, ...fold }).where('id', '=', id).execute();
}

export async function deleteFieldValues(db: DB, fieldId: number): Promise<number> {
  const res = await db.deleteFrom('custom_field_values').where('field_id', '=', fieldId).executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** The values of these documents, with what a read shows of options and users. */
export function documentValues(db: DB, docIds: readonly number[]) {
  if (docIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('custom_field_values as v')
    .leftJoin('custom_field_options as o', 'o.id', 'v.option_id')
    .leftJoin('users as u', 'u.id', 'v.user_id')
    .select(['v.doc_id', 'v.field_id', 'v.text_value', 'v.num_value', 'v.option_id', 'v.user_id', 'o.label as option_label', 'o.position as option_position', 'u.name as user_name', 'u.email as user_email'])
    .where('v.doc_id', 'in', docIds)
    .orderBy('v.doc_id')
    .orderBy('v.field_id')
    .orderBy('o.position')
    .orderBy('v.id')
    .execute();
}
export type DocumentValue = Awaited<ReturnType<typeof documentValues>>[number];

/** Replaces a target's values of one field. */
export async function replaceValues(
  db: DB,
  workspaceId: number,
  fieldId: number,
  target: ValueTarget,
  values: readonly Omit<NewValue, 'field_id' | 'workspace_id' | 'doc_id' | 'asset_id' | 'folder_id' | 'collection_id' | 'text_folded'>[],
): Promise<void> {
  await db.deleteFrom('custom_field_values').where('doc_id', '=', target.docId).where('field_id', '=', fieldId).execute();
  if (values.length === 0) return;
  await db
    .insertInto('custom_field_values')
    .values(
      values.map((v) => ({
        ...v,
        text_folded: folded(v.text_value),
        field_id: fieldId,
        workspace_id: workspaceId,
        doc_id: target.docId,
        asset_id: target.column === 'asset_id' ? target.id : null,
        folder_id: target.column === 'folder_id' ? target.id : null,
        collection_id: target.column === 'collection_id' ? target.id : null,
      })),
    )
    .execute();
}

/** Whether the user is a member of the workspace (a `user` field's value). */
export async function membersAmong(db: DB, workspaceId: number, userIds: readonly number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await db.selectFrom('workspace_members').select('user_id').where('workspace_id', '=', workspaceId).where('user_id', 'in', userIds).execute();
  return new Set(rows.map((r) => r.user_id));
}

/** The live fields (retired ones included) of these workspaces with one of these keys. */
export function fieldsWithKeys(db: DB, workspaceIds: readonly number[], keys: readonly string[]): Promise<FieldRow[]> {
  if (workspaceIds.length === 0 || keys.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('custom_fields')
    .selectAll()
    .where('workspace_id', 'in', workspaceIds)
    .where('key', 'in', keys)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
}

/** Users' display names (name, else e-mail) by id. */
export async function userNames(db: DB, ids: readonly number[]): Promise<Map<number, string>> {
  const wanted = [...new Set(ids.filter((id) => Number.isInteger(id)))];
  if (wanted.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'name', 'email']).where('id', 'in', wanted).execute();
  return new Map(rows.map((r) => [r.id, r.name || r.email]));
}
