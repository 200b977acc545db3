import type { DB } from '../../db/database.js';
import { hasOptions, type FieldType } from '../../domain/custom-fields.js';
import { appError } from '../../errors.js';
import * as repo from '../../repositories/custom-fields.js';
import type { CustomCatalogue, CustomFieldSpec } from '../../search/filter/index.js';

/**
 * The custom fields a search filter names (fields.<key>, issue #30), as the searched workspaces define them: each key
 * with its type, the ids of its fields and, for select types, their options. A key with different types in two
 * searched workspaces is 400 naming the request field (a filter value cannot mean both).
 */
export async function loadCustomCatalogue(db: DB, workspaceIds: readonly number[], keys: readonly string[], requestField: string): Promise<CustomCatalogue> {
  const fields = await repo.fieldsWithKeys(db, workspaceIds, keys);
  const options = await repo.listOptions(db, fields.filter((f) => hasOptions(f.type as FieldType)).map((f) => f.id));
  const catalogue = new Map<string, CustomFieldSpec>();
  for (const f of fields) {
    const seen = catalogue.get(f.key);
    if (seen && seen.type !== f.type) {
      throw appError(
        'VALIDATION_ERROR',
        `${requestField}: fields.${f.key} is ${seen.type} in one searched workspace and ${f.type} in another; search one workspace (workspace_id_filter)`,
        { field: requestField },
      );
    }
    const own = options.filter((o) => o.field_id === f.id).map((o) => ({ id: o.id, label: o.label, parentId: o.parent_id }));
    catalogue.set(f.key, {
      key: f.key,
      type: f.type as FieldType,
      fieldIds: [...(seen?.fieldIds ?? []), f.id],
      options: [...(seen?.options ?? []), ...own],
    });
  }
  return catalogue;
}
