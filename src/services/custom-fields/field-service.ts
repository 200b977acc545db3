import type { Static } from 'typebox';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema.js';
import { diffFields } from '../../domain/activity.js';
import { convertValue, hasOptions, type FieldRule, type FieldType } from '../../domain/custom-fields.js';
import { appError, notFound } from '../../errors.js';
import * as repo from '../../repositories/custom-fields.js';
import type {
  FieldCreateBody,
  FieldDeleteQuery,
  FieldListQuery,
  FieldPatchBody,
  FieldView,
  OptionCreateBody,
  OptionPatchBody,
  OptionView,
} from '../../contracts/custom-fields.js';
import { requireRole } from '../access.js';
import { ActivityService } from '../activity-service.js';
import type { Caller } from '../auth-service.js';

/** A workspace holds at most this many fields (deleted ones not counted), and a field this many options. */
export const FIELD_LIMITS = { fields: 500, options: 10_000 } as const;

const invalid = (field: string, message: string) => appError('VALIDATION_ERROR', `${field} ${message}`, { field });
const subject = (f: { id: number; label: string }) => ({ kind: 'field' as const, id: f.id, name: f.label });

/** Parents before children, siblings by position: the order a tree is read and drawn in. */
function treeOrder(options: readonly repo.OptionRow[]): repo.OptionRow[] {
  const children = new Map<number | null, repo.OptionRow[]>();
  for (const o of options) children.set(o.parent_id, [...(children.get(o.parent_id) ?? []), o]);
  const out: repo.OptionRow[] = [];
  const walk = (parent: number | null) => {
    for (const o of (children.get(parent) ?? []).sort((a, b) => a.position - b.position || a.id - b.id)) {
      out.push(o);
      walk(o.id);
    }
  };
  walk(null);
  return out;
}

function toOptionView(o: repo.OptionRow): OptionView {
  return { id: o.id, label: o.label, parent_id: o.parent_id, position: o.position, deprecated: o.deprecated_at !== null };
}

function toFieldView(f: repo.FieldRow, options: readonly repo.OptionRow[], count: number): FieldView {
  return {
    id: f.id,
    workspace_id: f.workspace_id,
    key: f.key,
    label: f.label,
    type: f.type as FieldType,
    required: f.required === 1,
    help_text: f.help_text,
    applies_to: f.applies_to.split(',') as FieldView['applies_to'],
    editable_by: f.editable_by,
    min: f.num_min,
    max: f.num_max,
    decimals: f.type === 'number' ? (f.num_decimals ?? 0) : null,
    position: f.position,
    hidden: f.hidden === 1,
    retired: f.retired_at !== null,
    options: treeOrder(options.filter((o) => o.field_id === f.id)).map(toOptionView),
    value_count: count,
    created_at: f.created_at,
    modified_at: f.modified_at,
  };
}

/** The number settings sent for a field of `type` (min, max, decimals belong to numbers only). */
function numberSettings(type: FieldType, body: { min?: number | null; max?: number | null; decimals?: number | null }, before?: repo.FieldRow) {
  const sent = body.min !== undefined || body.max !== undefined || body.decimals !== undefined;
  if (type !== 'number') {
    if (sent && (body.min != null || body.max != null || body.decimals != null)) {
      throw invalid(body.min != null ? 'min' : body.max != null ? 'max' : 'decimals', 'applies to number fields only');
    }
    return { num_min: null, num_max: null, num_decimals: null };
  }
  const min = body.min !== undefined ? body.min : (before?.num_min ?? null);
  const max = body.max !== undefined ? body.max : (before?.num_max ?? null);
  const decimals = body.decimals !== undefined ? body.decimals : (before?.num_decimals ?? null);
  if (min !== null && max !== null && min > max) throw invalid('min', `(${min}) must not be above max (${max})`);
  return { num_min: min, num_max: max, num_decimals: decimals };
}

const rule = (f: { type: string; num_min: number | null; num_max: number | null; num_decimals: number | null }): FieldRule => ({
  type: f.type as FieldType,
  num_min: f.num_min,
  num_max: f.num_max,
  num_decimals: f.num_decimals,
});

/**
 * Field definitions and their vocabularies (issue #30, docs/features/custom-metadata.md): viewers read them, workspace
 * admins change them. A field of another workspace answers 404 like a missing one.
 */
export class FieldService {
  constructor(private readonly ctx: AppContext) {}

  async list(caller: Caller, q: Static<typeof FieldListQuery>): Promise<FieldView[]> {
    await requireRole(this.ctx.db, q.workspaceId, caller.id, 'viewer');
    const fields = await repo.listFields(this.ctx.db, q.workspaceId, q.include_retired === true);
    return this.views(this.ctx.db, fields);
  }

  async get(caller: Caller, id: number): Promise<FieldView> {
    const field = await this.load(caller, id, 'viewer');
    return (await this.views(this.ctx.db, [field]))[0]!;
  }

  async create(caller: Caller, body: Static<typeof FieldCreateBody>): Promise<FieldView> {
    const ws = body.workspace_id;
    await requireRole(this.ctx.db, ws, caller.id, 'admin');
    const type = body.type;
    const numbers = numberSettings(type, body);
    if (body.options?.length && !hasOptions(type)) throw invalid('options', 'apply to select and multi_select fields only');
    const now = this.ctx.now();
    const id = await this.ctx.db.transaction().execute(async (trx) => {
      if (await repo.keyUsed(trx, ws, body.key)) {
        throw appError('FIELD_KEY_TAKEN', `A field of this workspace has or had the key "${body.key}"; keys are never reused`, { field: 'key' });
      }
      const count = await repo.fieldCount(trx, ws);
      if (count >= FIELD_LIMITS.fields) throw invalid('workspace_id', `has ${count} fields, the most a workspace may have`);
      const fieldId = await repo.insertField(trx, {
        workspace_id: ws,
        key: body.key,
        label: body.label.trim(),
        type,
        required: body.required ? 1 : 0,
        help_text: body.help_text?.trim() ?? '',
        applies_to: (body.applies_to ?? ['assets']).join(','),
        editable_by: body.editable_by ?? 'manager',
        per_version: 0,
        ...numbers,
        position: count,
        hidden: 0,
        retired_at: null,
        deleted_at: null,
        created_at: now,
        modified_at: now,
      });
      await this.insertInitialOptions(trx, fieldId, body.options ?? [], now);
      await ActivityService.record(trx, { workspaceId: ws, actor: caller, action: 'field.create', subject: { kind: 'field', id: fieldId, name: body.label }, assetId: null, changes: { key: { before: null, after: body.key }, type: { before: null, after: type } }, at: now });
      return fieldId;
    });
    return this.get(caller, id);
  }

  private async insertInitialOptions(trx: Transaction<Database>, fieldId: number, options: Static<typeof FieldCreateBody>['options'] & object, now: number): Promise<void> {
    const ids = new Map<string, number>();
    const positions = new Map<number | null, number>();
    for (const [i, o] of options.entries()) {
      const label = o.label.trim();
      let parent: number | null = null;
      if (o.parent !== undefined) {
        const found = ids.get(o.parent.trim().toLowerCase());
        if (found === undefined) throw invalid(`options.${i}.parent`, `"${o.parent}" is not the label of an option given before this one`);
        parent = found;
      }
      if (ids.has(label.toLowerCase())) throw invalid(`options.${i}.label`, `"${label}" is given twice`);
      const position = positions.get(parent) ?? 0;
      positions.set(parent, position + 1);
      ids.set(label.toLowerCase(), await repo.insertOption(trx, { field_id: fieldId, parent_id: parent, label, position, deprecated_at: null, created_at: now }));
    }
  }

  async update(caller: Caller, id: number, body: Static<typeof FieldPatchBody>): Promise<FieldView> {
    const field = await this.load(caller, id, 'admin');
    const now = this.ctx.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      const before = (await repo.findField(trx, id)) ?? field;
      const type = (body.type ?? before.type) as FieldType;
      const numbers = numberSettings(type, body, before);
      if (type !== before.type) await this.convertValues(trx, before, type, numbers);
      if (hasOptions(before.type as FieldType) && !hasOptions(type)) {
        await trx.deleteFrom('custom_field_options').where('field_id', '=', id).execute();
      }
      const patch = {
        ...(body.label !== undefined && { label: body.label.trim() }),
        ...(body.type !== undefined && { type }),
        ...(body.required !== undefined && { required: body.required ? 1 : 0 }),
        ...(body.help_text !== undefined && { help_text: body.help_text.trim() }),
        ...(body.applies_to !== undefined && { applies_to: body.applies_to.join(',') }),
        ...(body.editable_by !== undefined && { editable_by: body.editable_by }),
        ...(body.hidden !== undefined && { hidden: body.hidden ? 1 : 0 }),
        ...(body.retired !== undefined && { retired_at: body.retired ? (before.retired_at ?? now) : null }),
        ...numbers,
      };
      if (body.position !== undefined) await this.move(trx, before, body.position);
      await repo.updateField(trx, id, { ...patch, modified_at: now });
      const after = { ...before, ...patch };
      const shownOf = (f: repo.FieldRow) => ({ ...f, retired: f.retired_at !== null, required: f.required === 1, hidden: f.hidden === 1 });
      const changes = diffFields(shownOf(before), shownOf(after), ['label', 'type', 'required', 'help_text', 'applies_to', 'editable_by', 'hidden', 'retired', 'num_min', 'num_max', 'num_decimals']);
      await ActivityService.recordChanges(trx, { workspaceId: before.workspace_id, actor: caller, action: 'field.update', subject: subject(after), assetId: null, changes, at: now });
    });
    return this.get(caller, id);
  }

  /** Every stored value converted to `type`, or 409 FIELD_TYPE_CONFLICT naming how many would not (nothing changes). */
  private async convertValues(trx: Transaction<Database>, field: repo.FieldRow, type: FieldType, numbers: ReturnType<typeof numberSettings>): Promise<void> {
    const from = field.type as FieldType;
    const rows = await repo.fieldValues(trx, field.id);
    const target = rule({ type, ...numbers });
    const converted = rows.map((r) => ({ id: r.id, to: convertValue(from, type, r, target) }));
    let failing = converted.filter((c) => c.to === null).length;
    if (from === 'multi_select' && type === 'select') failing += await repo.multiValuedTargets(trx, field.id);
    if (failing > 0) {
      throw appError(
        'FIELD_TYPE_CONFLICT',
        `${failing} of the ${rows.length} values of "${field.key}" would not convert from ${from} to ${type}; change or clear them first`,
        { field: 'type', values: rows.length, not_converting: failing },
      );
    }
    for (const c of converted) if (c.to) await repo.updateValue(trx, c.id, c.to);
  }

  /** Puts the field at `position` (clamped to the list), the others closing up behind it. */
  private async move(trx: Transaction<Database>, field: repo.FieldRow, position: number): Promise<void> {
    const last = (await repo.fieldCount(trx, field.workspace_id)) - 1;
    const to = Math.min(position, last);
    if (to === field.position) return;
    if (to < field.position) await repo.shiftFields(trx, field.workspace_id, to, field.position - 1, 1);
    else await repo.shiftFields(trx, field.workspace_id, field.position + 1, to, -1);
    await repo.updateField(trx, field.id, { position: to });
  }

  /**
   * Deletes the field and every value of it, when `confirm` is its key; otherwise 409 CONFIRMATION_REQUIRED with the
   * count of values that would go. The key stays taken.
   */
  async remove(caller: Caller, id: number, q: Static<typeof FieldDeleteQuery>): Promise<{ id: number; key: string; values_deleted: number }> {
    const field = await this.load(caller, id, 'admin');
    if (q.confirm !== field.key) {
      const values = (await repo.valueCounts(this.ctx.db, [id])).get(id) ?? 0;
      throw appError(
        'CONFIRMATION_REQUIRED',
        `Deleting "${field.key}" deletes its ${values} values for good; send confirm=${field.key} to do it, or retire the field (PATCH retired: true) to keep them`,
        { field: 'confirm', values, confirm: field.key },
      );
    }
    const now = this.ctx.now();
    return this.ctx.db.transaction().execute(async (trx) => {
      const deleted = await repo.deleteFieldValues(trx, id);
      await trx.deleteFrom('custom_field_options').where('field_id', '=', id).execute();
      await repo.updateField(trx, id, { deleted_at: now, modified_at: now, position: -1 });
      await repo.shiftFields(trx, field.workspace_id, field.position + 1, null, -1);
      await ActivityService.record(trx, { workspaceId: field.workspace_id, actor: caller, action: 'field.delete', subject: subject(field), assetId: null, changes: { values: { before: deleted, after: 0 } }, at: now });
      return { id, key: field.key, values_deleted: deleted };
    });
  }

  // ---- options ----

  async addOption(caller: Caller, fieldId: number, body: Static<typeof OptionCreateBody>): Promise<FieldView> {
    const field = await this.loadWithOptions(caller, fieldId);
    const now = this.ctx.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      const options = await repo.listOptions(trx, [fieldId]);
      if (options.length >= FIELD_LIMITS.options) throw invalid('label', `the field has ${options.length} options, the most one may have`);
      const parent = body.parent_id ?? null;
      if (parent !== null && !options.some((o) => o.id === parent)) throw invalid('parent_id', `${parent} is not an option of this field`);
      const label = body.label.trim();
      this.assertUniqueLabel(options, parent, label, null);
      const count = await repo.childCount(trx, fieldId, parent);
      const position = Math.min(body.position ?? count, count);
      await repo.shiftOptions(trx, fieldId, parent, position, 1);
      await repo.insertOption(trx, { field_id: fieldId, parent_id: parent, label, position, deprecated_at: null, created_at: now });
      await this.touch(trx, caller, field, { options: { before: null, after: `+ ${label}` } });
    });
    return this.get(caller, fieldId);
  }

  async updateOption(caller: Caller, fieldId: number, optionId: number, body: Static<typeof OptionPatchBody>): Promise<FieldView> {
    const field = await this.loadWithOptions(caller, fieldId);
    const now = this.ctx.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      const options = await repo.listOptions(trx, [fieldId]);
      const option = options.find((o) => o.id === optionId);
      if (!option) throw notFound('Option');
      const parent = body.parent_id !== undefined ? body.parent_id : option.parent_id;
      if (parent !== null && parent !== option.parent_id) {
        if (!options.some((o) => o.id === parent)) throw invalid('parent_id', `${parent} is not an option of this field`);
        // Not below itself: walk up from the new parent.
        for (let p: number | null = parent; p !== null; p = options.find((o) => o.id === p)?.parent_id ?? null) {
          if (p === optionId) throw invalid('parent_id', `${parent} is this option or below it; an option cannot be its own ancestor`);
        }
      }
      const label = body.label?.trim() ?? option.label;
      this.assertUniqueLabel(options, parent, label, optionId);
      if (parent !== option.parent_id || body.position !== undefined) {
        await repo.shiftOptions(trx, fieldId, option.parent_id, option.position + 1, -1);
        const count = await repo.childCount(trx, fieldId, parent) - (parent === option.parent_id ? 1 : 0);
        const position = Math.min(body.position ?? count, count);
        await repo.shiftOptions(trx, fieldId, parent, position, 1);
        await repo.updateOption(trx, optionId, { parent_id: parent, position });
      }
      const deprecated = body.deprecated === undefined ? option.deprecated_at : body.deprecated ? (option.deprecated_at ?? now) : null;
      await repo.updateOption(trx, optionId, { label, deprecated_at: deprecated });
      const changes: Record<string, { before: unknown; after: unknown }> = {};
      if (label !== option.label) changes.option_label = { before: option.label, after: label };
      if ((deprecated !== null) !== (option.deprecated_at !== null)) changes.option_deprecated = { before: option.deprecated_at !== null, after: deprecated !== null };
      if (parent !== option.parent_id) changes.option_parent = { before: option.parent_id, after: parent };
      if (Object.keys(changes).length) await this.touch(trx, caller, field, changes);
    });
    return this.get(caller, fieldId);
  }

  /** Every value naming `optionId` names `into` instead; its children go under `into`; the option goes. */
  async mergeOption(caller: Caller, fieldId: number, optionId: number, into: number): Promise<{ field: FieldView; values_moved: number }> {
    const field = await this.loadWithOptions(caller, fieldId);
    if (into === optionId) throw invalid('into', 'is the option being merged; name another option of the field');
    const moved = await this.ctx.db.transaction().execute(async (trx) => {
      const options = await repo.listOptions(trx, [fieldId]);
      const source = options.find((o) => o.id === optionId);
      if (!source) throw notFound('Option');
      const target = options.find((o) => o.id === into);
      if (!target) throw invalid('into', `${into} is not an option of this field`);
      for (let p: number | null = target.parent_id; p !== null; p = options.find((o) => o.id === p)?.parent_id ?? null) {
        if (p === optionId) throw invalid('into', `${into} is below the option being merged; merge into an option outside its subtree`);
      }
      const values = await repo.moveOptionValues(trx, optionId, into);
      await repo.moveChildren(trx, optionId, into, await repo.childCount(trx, fieldId, into));
      await repo.deleteOption(trx, optionId);
      await repo.shiftOptions(trx, fieldId, source.parent_id, source.position + 1, -1);
      await ActivityService.record(trx, {
        workspaceId: field.workspace_id,
        actor: caller,
        action: 'field.merge_options',
        subject: subject(field),
        assetId: null,
        changes: { option: { before: source.label, after: target.label }, values: { before: null, after: values } },
        at: this.ctx.now(),
      });
      await repo.updateField(trx, fieldId, { modified_at: this.ctx.now() });
      return values;
    });
    return { field: await this.get(caller, fieldId), values_moved: moved };
  }

  private assertUniqueLabel(options: readonly repo.OptionRow[], parent: number | null, label: string, self: number | null): void {
    const clash = options.find((o) => o.id !== self && o.parent_id === parent && o.label.toLowerCase() === label.toLowerCase());
    if (clash) throw invalid('label', `"${label}" is already an option at this level (option ${clash.id})`);
  }

  private async touch(trx: Transaction<Database>, caller: Caller, field: repo.FieldRow, changes: Record<string, { before: unknown; after: unknown }>): Promise<void> {
    const now = this.ctx.now();
    await repo.updateField(trx, field.id, { modified_at: now });
    await ActivityService.record(trx, { workspaceId: field.workspace_id, actor: caller, action: 'field.update', subject: subject(field), assetId: null, changes, at: now });
  }

  private async loadWithOptions(caller: Caller, fieldId: number): Promise<repo.FieldRow> {
    const field = await this.load(caller, fieldId, 'admin');
    if (!hasOptions(field.type as FieldType)) throw invalid('id', `field "${field.key}" is of type ${field.type}; only select and multi_select fields have options`);
    return field;
  }

  /** A field the caller may act on at `min`; missing, deleted or of another workspace: 404 alike. */
  private async load(caller: Caller, id: number, min: 'viewer' | 'admin'): Promise<repo.FieldRow> {
    const field = await repo.findField(this.ctx.db, id);
    if (!field) throw notFound('Field');
    await requireRole(this.ctx.db, field.workspace_id, caller.id, min);
    return field;
  }

  private async views(db: typeof this.ctx.db, fields: readonly repo.FieldRow[]): Promise<FieldView[]> {
    const ids = fields.map((f) => f.id);
    const [options, counts] = await Promise.all([repo.listOptions(db, ids), repo.valueCounts(db, ids)]);
    return fields.map((f) => toFieldView(f, options, counts.get(f.id) ?? 0));
  }
}
