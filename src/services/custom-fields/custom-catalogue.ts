import type { DB } from '../../db/database.js';
import { hasOptions, type FieldType } from '../../domain/custom-fields.js';
import { appError } from '../../errors.js';
import * as repo from '../../repositories/custom-fields.js';
import type { CustomFacet, FacetCounts } from '../../search/facets/index.js';
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

/** The fields.<key> facets of a search as the facet SQL needs them; a key no searched workspace has is 400 naming `requestField`. */
export function customFacetPlan(catalogue: CustomCatalogue, keys: readonly string[], requestField: string): Map<string, CustomFacet> {
  const plan = new Map<string, CustomFacet>();
  for (const key of keys) {
    const spec = catalogue.get(key);
    if (!spec) {
      throw appError('VALIDATION_ERROR', `${requestField}: unknown custom field "${key}" in the searched workspaces; GET /dam/fields lists them`, { field: requestField });
    }
    plan.set(key, { type: spec.type, fieldIds: spec.fieldIds });
  }
  return plan;
}

/**
 * Custom facets' values as people read them: an option's label and a user's name (with `id`), a number as written, a
 * boolean as true or false. Rows counted as ids whose option or user is gone meanwhile are left out.
 */
export async function labelCustomFacets(db: DB, counts: FacetCounts[], catalogue: CustomCatalogue): Promise<FacetCounts[]> {
  const userIds = counts.flatMap((c) => (catalogue.get(keyOf(c.field_name))?.type === 'user' ? c.counts.map((v) => Number(v.value)) : []));
  const users = await repo.userNames(db, userIds);
  return counts.map((c) => {
    const spec = catalogue.get(keyOf(c.field_name));
    if (!spec || !c.field_name.startsWith('fields.')) return c;
    const labelled = c.counts.flatMap((v) => {
      const shown = (value: string, id?: number) => [{ ...v, value, highlighted: value, ...(id === undefined ? {} : { id }) }];
      switch (spec.type) {
        case 'select':
        case 'multi_select': {
          const option = spec.options.find((o) => o.id === Number(v.value));
          return option ? shown(option.label, option.id) : [];
        }
        case 'user': {
          const name = users.get(Number(v.value));
          return name === undefined ? [] : shown(name, Number(v.value));
        }
        case 'number':
          return shown(String(Number(v.value)));
        case 'boolean':
          return shown(Number(v.value) !== 0 ? 'true' : 'false');
        default:
          return [v];
      }
    });
    return { ...c, counts: labelled };
  });
}

const keyOf = (facetName: string) => facetName.slice('fields.'.length);
