import type { Transaction } from 'kysely';
import type { DB } from '../../db/database.js';
import type { Database, Role } from '../../db/schema.js';
import { diffMap, type FieldChange } from '../../domain/activity.js';
import { storedValues, ValueProblem, type FieldTarget, type FieldType } from '../../domain/custom-fields.js';
import { appError } from '../../errors.js';
import * as repo from '../../repositories/custom-fields.js';
import { KIND, KIND_SLOTS } from '../../search/collections.js';
import type { CustomFieldsWrite } from '../../contracts/custom-fields.js';
import { roleAtLeast } from '../access.js';

/**
 * The custom field values of assets, folders and collections (issue #30): read for an answer (`custom_fields`,
 * `missing_fields`), and written by a PATCH's `custom_fields` inside the target's own transaction, with its
 * before/after for the activity log.
 */

export type TargetKind = 'asset' | 'folder' | 'collection';

const TARGET_OF: Record<TargetKind, { target: FieldTarget; column: repo.ValueTarget['column']; kind: number }> = {
  asset: { target: 'assets', column: 'asset_id', kind: KIND.digital_assets },
  folder: { target: 'folders', column: 'folder_id', kind: KIND.digital_assets_categories },
  collection: { target: 'collections', column: 'collection_id', kind: KIND.dam_collections },
};

export const docIdOf = (kind: TargetKind, id: number): number => id * KIND_SLOTS + TARGET_OF[kind].kind;

export type CustomValue = string | number | boolean | { id: number; label: string } | { id: number; label: string }[] | { id: number; name: string };
export interface CustomFieldsOf {
  custom_fields: Record<string, CustomValue>;
  missing_fields: string[];
}

const appliesTo = (field: repo.FieldRow, kind: TargetKind) => field.applies_to.split(',').includes(TARGET_OF[kind].target);

/** One field's rows as a read shows them. */
function readValue(field: repo.FieldRow, rows: readonly repo.DocumentValue[]): CustomValue | undefined {
  const first = rows[0];
  if (!first) return undefined;
  switch (field.type as FieldType) {
    case 'number':
      return first.num_value ?? undefined;
    case 'boolean':
      return first.num_value === null ? undefined : first.num_value !== 0;
    case 'select':
      return first.option_id === null ? undefined : { id: first.option_id, label: first.option_label ?? '' };
    case 'multi_select':
      return rows.filter((r) => r.option_id !== null).map((r) => ({ id: r.option_id!, label: r.option_label ?? '' }));
    case 'user':
      return first.user_id === null ? undefined : { id: first.user_id, name: first.user_name || first.user_email || '' };
    default:
      return first.text_value ?? undefined;
  }
}

/** The values of several targets of one kind, for answers; fields that do not apply or are deleted are left out. */
export async function readCustomFields(db: DB, workspaceId: number, kind: TargetKind, ids: readonly number[]): Promise<Map<number, CustomFieldsOf>> {
  const fields = (await repo.listFields(db, workspaceId, true)).filter((f) => appliesTo(f, kind));
  const out = new Map<number, CustomFieldsOf>();
  const byId = new Map(ids.map((id) => [docIdOf(kind, id), id]));
  const rows = fields.length ? await repo.documentValues(db, [...byId.keys()]) : [];
  const grouped = new Map<string, repo.DocumentValue[]>();
  for (const r of rows) {
    const k = `${r.doc_id}:${r.field_id}`;
    grouped.set(k, [...(grouped.get(k) ?? []), r]);
  }
  for (const [docId, id] of byId) {
    const custom: Record<string, CustomValue> = {};
    const missing: string[] = [];
    for (const f of fields) {
      const value = readValue(f, grouped.get(`${docId}:${f.id}`) ?? []);
      if (value !== undefined && !(Array.isArray(value) && value.length === 0)) custom[f.key] = value;
      else if (f.required && f.retired_at === null) missing.push(f.key);
    }
    out.set(id, { custom_fields: custom, missing_fields: missing });
  }
  return out;
}

export async function readOne(db: DB, workspaceId: number, kind: TargetKind, id: number): Promise<CustomFieldsOf> {
  return (await readCustomFields(db, workspaceId, kind, [id])).get(id)!;
}

const problem = (key: string, message: string) => appError('VALIDATION_ERROR', `custom_fields.${key} ${message}`, { field: `custom_fields.${key}` });

/** What the activity log shows of a value: labels and names, not ids. */
function shown(value: CustomValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.map((o) => o.label);
  if (typeof value === 'object') return 'label' in value ? value.label : value.name;
  return value;
}

/**
 * Sets and clears the keys of `patch` on one target, in the caller's transaction, after checking every key (nothing is
 * written when one fails). `role` is the caller's role in the workspace. Answers the activity change of
 * `custom_fields` (keys before/after, labels for options), or undefined when nothing changed.
 */
export async function writeCustomFields(
  trx: Transaction<Database>,
  workspaceId: number,
  kind: TargetKind,
  id: number,
  role: Role,
  patch: CustomFieldsWrite,
  /** Hears the target's values before and after the write (bulk edits keep them for undo), when it wrote. */
  written?: (before: CustomFieldsOf['custom_fields'], after: CustomFieldsOf['custom_fields']) => void,
): Promise<FieldChange | undefined> {
  const keys = Object.keys(patch);
  if (keys.length === 0) return undefined;
  const fields = new Map((await repo.listFields(trx, workspaceId, true)).map((f) => [f.key, f]));
  const target: repo.ValueTarget = { column: TARGET_OF[kind].column, id, docId: docIdOf(kind, id) };
  const before = await readOne(trx, workspaceId, kind, id);
  const selected = [...fields.values()].filter((f) => keys.includes(f.key));
  const options = await repo.listOptions(trx, selected.map((f) => f.id));
  const userIds = keys.flatMap((k) => {
    const v = patch[k];
    const uid = typeof v === 'object' && v !== null && !Array.isArray(v) ? v.id : v;
    return typeof uid === 'number' && fields.get(k)?.type === 'user' ? [uid] : [];
  });
  const members = await repo.membersAmong(trx, workspaceId, userIds);

  const writes: { field: repo.FieldRow; values: ReturnType<typeof storedValues> }[] = [];
  for (const key of keys) {
    const field = fields.get(key);
    if (!field) throw problem(key, `is not a field of this workspace (GET /dam/fields lists them)`);
    if (!appliesTo(field, kind)) throw problem(key, `does not apply to ${TARGET_OF[kind].target} (applies_to: ${field.applies_to.replaceAll(',', ', ')})`);
    if (field.retired_at !== null) throw problem(key, 'is retired: its values are kept and no longer set');
    if (!roleAtLeast(role, field.editable_by)) {
      throw appError('FORBIDDEN', `custom_fields.${key} is editable by workspace ${field.editable_by}s only`, { field: `custom_fields.${key}` });
    }
    const current = before.custom_fields[key];
    const currentOptions = new Set(Array.isArray(current) ? current.map((o) => o.id) : current && typeof current === 'object' && 'label' in current ? [current.id] : []);
    let values;
    try {
      values = storedValues({ ...field, type: field.type as FieldType }, patch[key], {
        options: options.filter((o) => o.field_id === field.id).map((o) => ({ id: o.id, label: o.label, deprecated: o.deprecated_at !== null })),
        current: currentOptions,
        isMember: (uid) => members.has(uid),
      });
    } catch (err) {
      if (err instanceof ValueProblem) throw problem(key, err.message);
      throw err;
    }
    if (values.length === 0 && field.required) throw problem(key, 'is required and cannot be cleared');
    writes.push({ field, values });
  }
  for (const w of writes) await repo.replaceValues(trx, workspaceId, w.field.id, target, w.values);

  const after = await readOne(trx, workspaceId, kind, id);
  const pick = (m: CustomFieldsOf) => Object.fromEntries(keys.filter((k) => m.custom_fields[k] !== undefined).map((k) => [k, shown(m.custom_fields[k])]));
  const change = diffMap(pick(before), pick(after));
  written?.(before.custom_fields, after.custom_fields);
  return change;
}
