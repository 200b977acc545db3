import { isDeepStrictEqual } from 'node:util';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database, Role } from '../../db/schema.js';
import { applyOperation, operationProblem, writable, type BulkOperation } from '../../domain/bulk-field-ops.js';
import type { FieldType } from '../../domain/custom-fields.js';
import { AppError, appError, notFound } from '../../errors.js';
import * as assets from '../../repositories/assets.js';
import * as edits from '../../repositories/bulk-field-edits.js';
import * as fieldsRepo from '../../repositories/custom-fields.js';
import type { BulkFieldsRequest, BulkFieldsResultsView, BulkUndoResultsView } from '../../contracts/bulk-fields.js';
import type { ItemResult } from '../../contracts/trash.js';
import type { CustomFieldsWrite } from '../../contracts/custom-fields.js';
import { requireRole, roleAtLeast } from '../access.js';
import { ActivityService, assetSubject } from '../activity-service.js';
import type { Caller } from '../auth-service.js';
import { checkSelection, searchedAssets } from '../bulk-selection.js';
import type { SearchService } from '../search-service.js';
import { readCustomFields, writeCustomFields } from './custom-values.js';

/** Assets written per transaction (under the workspace lock), as POST /dam/assets/bulk does. */
const CHUNK = 1000;

const invalid = (field: string, message: string) => appError('VALIDATION_ERROR', `${field} ${message}`, { field });
const failure = (id: number, err: unknown): ItemResult => {
  if (err instanceof AppError) return { id, ok: false, code: err.code, error: err.message };
  throw err;
};

/**
 * Bulk edits of custom fields (issue #30, docs/features/custom-metadata.md "Bulk edit"): operations applied to many
 * assets, each asset all-or-nothing (a value refused leaves that asset as it was and is reported), every change in
 * the activity log, and what each asset held before kept so that the edit can be undone on the assets nobody
 * changed since.
 */
export class BulkFieldService {
  constructor(
    private readonly ctx: AppContext,
    private readonly search: SearchService,
  ) {}

  async run(caller: Caller, body: BulkFieldsRequest): Promise<BulkFieldsResultsView> {
    checkSelection(body);
    const role = await requireRole(this.ctx.db, body.workspaceId, caller.id, 'manager');
    const operations = await this.checkOperations(body.workspaceId, role, body.operations);
    const ids = body.asset_ids ?? (await searchedAssets(this.ctx, this.search, caller, body));
    const editId = await edits.insertEdit(this.ctx.db, { workspace_id: body.workspaceId, user_id: caller.id, operations: JSON.stringify(operations), created_at: this.ctx.now() });
    const results: ItemResult[] = [];
    let changed = 0;
    for (let at = 0; at < ids.length; at += CHUNK) {
      const chunk = await this.runChunk(caller, role, body.workspaceId, editId, operations, ids.slice(at, at + CHUNK));
      results.push(...chunk.results);
      changed += chunk.changed;
    }
    const succeeded = results.filter((r) => r.ok).length;
    await edits.finishEdit(this.ctx.db, editId, ids.length, succeeded);
    return { id: editId, matched: ids.length, succeeded, changed, results: body.asset_ids ? results : results.filter((r) => !r.ok) };
  }

  /** Every key a field of the workspace that applies to assets, is not retired, may be edited by the caller, and takes its operation. */
  private async checkOperations(workspaceId: number, role: Role, operations: BulkOperation[]): Promise<BulkOperation[]> {
    const fields = new Map((await fieldsRepo.listFields(this.ctx.db, workspaceId, true)).map((f) => [f.key, f]));
    const seen = new Set<string>();
    operations.forEach((o, i) => {
      const at = `operations.${i}`;
      const field = fields.get(o.key);
      if (!field) throw invalid(`${at}.key`, `"${o.key}" is not a field of this workspace (GET /dam/fields lists them)`);
      if (seen.has(o.key)) throw invalid(`${at}.key`, `"${o.key}" is named twice; one operation per key`);
      seen.add(o.key);
      if (!field.applies_to.split(',').includes('assets')) throw invalid(`${at}.key`, `"${o.key}" does not apply to assets`);
      if (field.retired_at !== null) throw invalid(`${at}.key`, `"${o.key}" is retired: its values are kept and no longer set`);
      if (!roleAtLeast(role, field.editable_by)) throw appError('FORBIDDEN', `${at}.key: "${o.key}" is editable by workspace ${field.editable_by}s only`, { field: `${at}.key` });
      const problem = operationProblem(field.type as FieldType, o);
      if (problem) throw invalid(`${at}.op`, problem);
    });
    return operations;
  }

  private async runChunk(caller: Caller, role: Role, ws: number, editId: number, operations: readonly BulkOperation[], ids: readonly number[]) {
    return this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'workspaces', ws);
      const found = new Map((await assets.assetsInWorkspace(trx, ws, ids)).map((a) => [a.id, a]));
      const current = await readCustomFields(trx, ws, 'asset', [...found.keys()]);
      const results: ItemResult[] = [];
      let changed = 0;
      for (const id of ids) {
        const asset = found.get(id);
        if (!asset) {
          results.push({ id, ok: false, code: 'NOT_FOUND', error: `Asset ${id} not found` });
          continue;
        }
        const values = current.get(id)?.custom_fields ?? {};
        const patch: CustomFieldsWrite = {};
        for (const o of operations) {
          const next = applyOperation(o, values[o.key]);
          if (next !== undefined) patch[o.key] = next as CustomFieldsWrite[string];
        }
        try {
          if (await this.write(trx, caller, role, asset, patch, (before, after) => edits.insertItem(trx, editId, id, before, after))) changed += 1;
          results.push({ id, ok: true });
        } catch (err) {
          results.push(failure(id, err));
        }
      }
      return { results, changed };
    });
  }

  /**
   * Writes one asset's patch (nothing when it changes nothing), logs it and hands before/after (the keys written, as
   * PATCH takes them) to `keep`. Answers whether anything changed. A refused value throws before anything is written.
   */
  private async write(
    trx: Transaction<Database>,
    caller: Caller,
    role: Role,
    asset: assets.AssetRecord,
    patch: CustomFieldsWrite,
    keep: (before: Record<string, unknown>, after: Record<string, unknown>) => Promise<void>,
  ): Promise<boolean> {
    const keys = Object.keys(patch);
    if (keys.length === 0) return false;
    let before: Record<string, unknown> = {};
    let after: Record<string, unknown> = {};
    const change = await writeCustomFields(trx, asset.workspace_id, 'asset', asset.id, role, patch, (b, a) => {
      [before, after] = [b, a];
    });
    if (!change) return false;
    const now = this.ctx.now();
    await assets.updateAsset(trx, asset.workspace_id, asset.id, {}, now);
    await ActivityService.record(trx, { workspaceId: asset.workspace_id, actor: caller, action: 'asset.update', subject: assetSubject(asset), changes: { custom_fields: change }, at: now });
    const pick = (m: Record<string, unknown>) => Object.fromEntries(keys.map((k) => [k, writable(m[k])]));
    await keep(pick(before), pick(after));
    return true;
  }

  /**
   * Puts back what the edit replaced, on each asset whose values of those keys are still what the edit left; the
   * others are reported (CONFLICT: changed since; VALIDATION_ERROR: the old value is no longer accepted, e.g. a
   * deprecated option or a field made required). Once only: a second undo is 409.
   */
  async undo(caller: Caller, editId: number): Promise<BulkUndoResultsView> {
    const edit = await edits.findEdit(this.ctx.db, editId);
    if (!edit) throw notFound('Bulk edit');
    const role = await requireRole(this.ctx.db, edit.workspace_id, caller.id, 'manager');
    if (!(await edits.markUndone(this.ctx.db, editId, this.ctx.now()))) throw appError('CONFLICT', `Bulk edit ${editId} was undone already`);
    try {
      return await this.restore(caller, role, edit, await edits.editItems(this.ctx.db, editId));
    } catch (err) {
      // Not undone after all (the database went away mid-way): it may be asked again; assets already restored then
      // read as changed since the edit and are left alone.
      await edits.clearUndone(this.ctx.db, editId).catch(() => undefined);
      throw err;
    }
  }

  private async restore(caller: Caller, role: Role, edit: edits.BulkEditRow, items: Awaited<ReturnType<typeof edits.editItems>>): Promise<BulkUndoResultsView> {
    const results: ItemResult[] = [];
    let restored = 0;
    for (let at = 0; at < items.length; at += CHUNK) {
      const chunk = items.slice(at, at + CHUNK);
      await this.ctx.db.transaction().execute(async (trx) => {
        await this.ctx.database.support.lockRow(trx, 'workspaces', edit.workspace_id);
        const found = new Map((await assets.assetsInWorkspace(trx, edit.workspace_id, chunk.map((i) => i.asset_id))).map((a) => [a.id, a]));
        const current = await readCustomFields(trx, edit.workspace_id, 'asset', [...found.keys()]);
        for (const item of chunk) {
          const asset = found.get(item.asset_id);
          if (!asset) {
            results.push({ id: item.asset_id, ok: false, code: 'NOT_FOUND', error: `Asset ${item.asset_id} not found` });
            continue;
          }
          const values = current.get(asset.id)?.custom_fields ?? {};
          const now = Object.fromEntries(Object.keys(item.after).map((k) => [k, writable(values[k])]));
          if (!isDeepStrictEqual(now, item.after)) {
            results.push({ id: asset.id, ok: false, code: 'CONFLICT', error: `Asset ${asset.id} was changed since the edit; left as it is` });
            continue;
          }
          try {
            await this.write(trx, caller, role, asset, item.before as CustomFieldsWrite, () => Promise.resolve());
            restored += 1;
          } catch (err) {
            results.push(failure(asset.id, err));
          }
        }
      });
    }
    return { id: edit.id, restored, results };
  }
}
