import { isFieldKey } from '../../domain/custom-fields.js';
import { appError } from '../../errors.js';

/**
 * The fields a search can count values of (`facet_by`, issue #12), and where
 * each value is read. Every facet counts documents of the filtered result;
 * a document without a value (no orientation, no camera, a folder's date
 * taken) is not counted. Strings are grouped as filters compare them (ASCII
 * letters folded), so a count is what `field:=value` then finds; the value
 * shown is the group's smallest spelling in byte order.
 */
export type FacetSource =
  /** A column of search_documents (null on kinds without it); `year`: counted by its UTC year (dialects.ts). */
  | { readonly table: 'documents'; readonly column: 'file_type' | 'orientation' | 'visibility' | 'taken_at'; readonly year?: true }
  /** search_tags: one row per (document, tag); a document counts once per folded tag. */
  | { readonly table: 'tags' }
  /** A text column of search_asset_facts (migration 0012): assets only. `folded` is what it is grouped by. */
  | { readonly table: 'facts'; readonly column: 'camera_model' | 'creator'; readonly folded: string };

export interface FacetSpec {
  readonly source: FacetSource;
  /** Numbers order by value where counts tie; text by its bytes. */
  readonly numeric: boolean;
}

/** In the order the OpenAPI description lists them. */
export const FACET_NAMES = ['file_type', 'tags', 'orientation', 'visibility', 'camera_model', 'creator', 'taken_year'] as const;
export type FacetName = (typeof FACET_NAMES)[number];

export const FACET_FIELDS: Readonly<Record<FacetName, FacetSpec>> = {
  file_type: { source: { table: 'documents', column: 'file_type' }, numeric: false },
  tags: { source: { table: 'tags' }, numeric: false },
  orientation: { source: { table: 'documents', column: 'orientation' }, numeric: false },
  visibility: { source: { table: 'documents', column: 'visibility' }, numeric: true },
  camera_model: { source: { table: 'facts', column: 'camera_model', folded: 'camera_model_folded' }, numeric: false },
  creator: { source: { table: 'facts', column: 'creator', folded: 'creator_folded' }, numeric: false },
  // From search_documents.taken_at, which the matches carry anyway: no lookup in search_asset_facts.
  taken_year: { source: { table: 'documents', column: 'taken_at', year: true }, numeric: true },
};

const isFacetName = (name: string): name is FacetName => Object.hasOwn(FACET_FIELDS, name);

/** A custom field's facet (issue #30): `fields.<key>`, counted by the field the searched workspaces give that key. */
export type CustomFacetName = `fields.${string}`;
export type FacetField = FacetName | CustomFacetName;
export const CUSTOM_FACET_PREFIX = 'fields.';
export const isCustomFacet = (name: string): name is CustomFacetName => name.startsWith(CUSTOM_FACET_PREFIX);
const isCustomFacetName = (name: string): name is CustomFacetName => isCustomFacet(name) && isFieldKey(name.slice(CUSTOM_FACET_PREFIX.length));

/**
 * `facet_by` as Typesense writes it: field names separated by commas, spaces
 * around them allowed; `fields.<key>` names a custom field (checked against the workspaces later). Blank is no facets; a name twice counts once, in the
 * order first given. An unknown or empty name is 400 naming the request field.
 */
export function parseFacetBy(text: string | undefined, requestField: string): FacetField[] {
  if (text === undefined || text.trim() === '') return [];
  const names: FacetField[] = [];
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (!isFacetName(name) && !isCustomFacetName(name)) {
      const what = name === '' ? 'an empty field name' : `unknown facet field "${name.slice(0, 64)}"`;
      throw appError('VALIDATION_ERROR', `${requestField}: ${what}; facet fields: ${FACET_NAMES.join(', ')}, and fields.<key> for custom fields`, { field: requestField });
    }
    if (!names.includes(name)) names.push(name);
  }
  return names;
}
