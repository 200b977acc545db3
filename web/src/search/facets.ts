import type { FacetCounts, FacetField, SearchRequest } from '../api/types';
import { translate } from '../i18n';
import { searchRequest, type LibraryQuery } from './filters';

/**
 * Facet counts of the library's filters (issue #12): how many assets each filter value finds.
 * A facet counts in the result of every other filter and the search words, never of its own: its
 * numbers then say what choosing a value finds (another file type added to the any-of, another
 * orientation instead of the chosen one), and the chosen value's number is the result's. Tags are
 * all-of, so the current result is already the right one for them: a tag's count is what adding it
 * finds.
 */
export const FACET_FIELDS: readonly FacetField[] = ['file_type', 'tags', 'orientation', 'visibility', 'camera_model', 'creator', 'taken_year'];

/** The state without the facet's own filter; null when it has none set (or, for tags, needs none removed). */
const WITHOUT_OWN: Record<FacetField, (q: LibraryQuery) => LibraryQuery | null> = {
  file_type: (q) => (q.fileTypes.length ? { ...q, fileTypes: [] } : null),
  tags: () => null,
  orientation: (q) => (q.orientation ? { ...q, orientation: '' } : null),
  visibility: (q) => (q.visibility ? { ...q, visibility: '' } : null),
  camera_model: (q) => (q.camera ? { ...q, camera: '' } : null),
  creator: (q) => (q.creator ? { ...q, creator: '' } : null),
  taken_year: (q) => (q.takenFrom || q.takenTo ? { ...q, takenFrom: '', takenTo: '' } : null),
};

export interface FacetPlan {
  /** Counted by the grid's own search. */
  main: FacetField[];
  /** Each counted by a search of its own, without its own filter (one hit, page 1). */
  apart: { field: FacetField; request: SearchRequest }[];
}

export function facetPlan(query: LibraryQuery, workspaceId: number): FacetPlan {
  const plan: FacetPlan = { main: [], apart: [] };
  for (const field of FACET_FIELDS) {
    const other = WITHOUT_OWN[field](query);
    if (!other) {
      plan.main.push(field);
      continue;
    }
    const request = searchRequest({ ...other, page: 1 }, workspaceId, [field]);
    request.commonSearchParams = { ...request.commonSearchParams, per_page: 1 };
    plan.apart.push({ field, request });
  }
  return plan;
}

export type FacetValue = { value: string; count: number };
/** Counts by field; a field that is absent was not counted (no numbers are shown for it). */
export type Facets = Partial<Record<FacetField, FacetValue[]>>;

export function facetsOf(counts: readonly FacetCounts[] | undefined): Facets {
  const out: Facets = {};
  for (const facet of counts ?? []) {
    if ((FACET_FIELDS as readonly string[]).includes(facet.field_name)) {
      out[facet.field_name as FacetField] = facet.counts.map(({ value, count }) => ({ value, count }));
    }
  }
  return out;
}

/** Text values compare as the server's filters do: ASCII letters case-folded. */
const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** The number of `value`: undefined when the field was not counted, 0 when the value is not among its counts. */
export function countOf(facets: Facets, field: FacetField, value: string): number | undefined {
  const values = facets[field];
  if (!values) return undefined;
  return values.find((v) => fold(v.value) === fold(value))?.count ?? 0;
}

/** Public is visibility 0; private is any other value. */
export function visibilityCount(facets: Facets, which: 'public' | 'private'): number | undefined {
  const values = facets.visibility;
  if (!values) return undefined;
  return values.filter((v) => (v.value === '0') === (which === 'public')).reduce((sum, v) => sum + v.count, 0);
}

/**
 * The options of a select over a text facet (camera, creator): its counted values, most frequent
 * first, and the chosen one even when it is not among them.
 */
export function facetOptions(facets: Facets, field: FacetField, chosen: string): FacetValue[] {
  const values = [...(facets[field] ?? [])];
  if (chosen && !values.some((v) => fold(v.value) === fold(chosen))) values.unshift({ value: chosen, count: countOf(facets, field, chosen) ?? 0 });
  return values;
}

/** The years taken, newest first. */
export function takenYears(facets: Facets): FacetValue[] {
  return [...(facets.taken_year ?? [])].sort((a, b) => Number(b.value) - Number(a.value));
}

/** A label with its count in parentheses, for <option>s: "Landscape (4)". */
export const withCount = (label: string, count: number | undefined) => (count === undefined ? label : translate('search.withCount', { label, n: count }));
