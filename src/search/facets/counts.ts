import type { FacetField } from './fields.js';
import type { FacetRow } from './sql.js';

/** One field's counts, in Typesense's shape (`facet_counts[]` of a search result). */
export interface FacetCounts {
  counts: { count: number; highlighted: string; value: string; id?: number }[];
  field_name: FacetField;
  sampled: boolean;
  stats: { total_values: number };
}

/**
 * The facet rows of sql.ts as Typesense's `facet_counts`, one entry per requested field in request
 * order (a field without values has empty counts). A sampled count is scaled from the sample to
 * `found` and rounded (never below 1: the value does occur); `total_values` then counts the
 * values seen in the sample.
 */
export function toFacetCounts(fields: readonly FacetField[], rows: readonly FacetRow[], found: number, sampled: boolean): FacetCounts[] {
  const size = Number(rows.find((r) => Number(r.f) === -1)?.n ?? 0);
  const scale = sampled && size > 0 ? found / size : 1;
  const ranked = rows
    .filter((r) => Number(r.f) >= 0)
    .map((r) => ({ f: Number(r.f), value: r.value ?? '', n: Number(r.n), total: Number(r.total), rank: Number(r.rank) }))
    .sort((a, b) => a.f - b.f || a.rank - b.rank);
  return fields.map((field_name, i) => {
    const own = ranked.filter((r) => r.f === i);
    return {
      counts: own.map((r) => ({ count: sampled ? Math.max(1, Math.round(r.n * scale)) : r.n, highlighted: r.value, value: r.value })),
      field_name,
      sampled,
      stats: { total_values: own[0]?.total ?? 0 },
    };
  });
}

/** A text query's facet rows arrive as JSON arrays `[f, value, n, total, rank]` (dialects.ts). */
export function parseFacetJson(json: string | null | undefined): FacetRow[] {
  if (!json) return [];
  return (JSON.parse(json) as [number, string | null, number, number, number][]).map(([f, value, n, total, rank]) => ({ f, value, n, total, rank }));
}
