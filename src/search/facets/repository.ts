import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DB } from '../../db/database.js';
import { KIND_SLOTS } from '../collections.js';
import { documentColumns, factsCte, facetJson, facetRows, type FacetPlan, type FacetRow } from './sql.js';

/**
 * Facet counts over the filtered result (issue #12), SQL only. Exact up to
 * `plan.sample` matches. Beyond, every match would cost a lookup per tag and
 * per fact (seconds at a million), so the counts are estimated from a sample
 * of about `plan.sample` matches and scaled to `found` (`sampled: true`):
 *
 * - A text query has its matches materialised already (repository.ts): the
 *   sample is every k-th id among them, k = ceil(found / sample), in the
 *   same statement (`textFacets`).
 * - A listing (no words) counts its matches from an index without reading
 *   them, and reading them all again would cost more than the count. Its
 *   sample is read by primary key instead: evenly spaced windows of 64 ids
 *   over the kind's ids, as many as needed for about `sample` matches when
 *   the matches are spread like the ids; when they are too few of the ids
 *   for that (over 256 windows), every k-th id among the matches, as for text.
 *
 * Ids follow upload order, so both samples spread over the library's whole
 * history. The same rows on both databases, so both estimate alike.
 */

/** How a listing's sample is read: ids per window, and the most windows (256 x 64 ids: 16,384 primary-key entries). */
export interface WindowShape {
  readonly ids: number;
  readonly max: number;
}
const WINDOWS: WindowShape = { ids: 64, max: 256 };

export interface FacetResult {
  rows: FacetRow[];
  /** The counts come from a sample and are to be scaled to `found`. */
  sampled: boolean;
}

/** What a listing's facets need of its plan: the kind, its catalog table and the listing's WHERE over `search_documents d`. */
export interface ListedScope {
  kind: number;
  catalog: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}

/** Windows of `shape.ids` ids evenly spread over 1..maxId (doc_id ranges of `kind`), enough for about `sample` of `found` matches. */
function windows(kind: number, maxId: number, found: number, sample: number, shape: WindowShape): RawBuilder<SqlBool> | null {
  const count = Math.ceil((sample * maxId) / found / shape.ids);
  if (count > shape.max) return null;
  const ranges = Array.from({ length: count }, (_, i) => {
    const first = Math.floor((i * maxId) / count) + 1;
    return sql<SqlBool>`d.doc_id BETWEEN ${first * KIND_SLOTS + kind} AND ${(first + shape.ids - 1) * KIND_SLOTS + kind}`;
  });
  return sql<SqlBool>`(${sql.join(ranges, sql` OR `)})`;
}

/** Facets of a listing whose count is `found` (known first: it decides between exact and sampled). `shape`: tests make it small. */
export async function listedFacets(db: DB, plan: FacetPlan, scope: ListedScope, found: number, shape = WINDOWS): Promise<FacetResult> {
  if (found === 0) return { rows: [], sampled: false };
  let sample: RawBuilder<SqlBool> | null = null;
  if (found > plan.sample) {
    const { rows } = await sql<{ id: number | string | null }>`SELECT max(c.id) AS id FROM ${scope.catalog} c`.execute(db);
    const maxId = Number(rows[0]?.id ?? 0);
    const k = Math.ceil(found / plan.sample);
    // doc_id % (4k) = kind exactly when ref_id % k = 0 (doc_id = ref_id * 4 + kind): an index-only test.
    sample = windows(scope.kind, maxId, found, plan.sample, shape) ?? sql<SqlBool>`d.doc_id % ${k * KIND_SLOTS} = ${scope.kind}`;
  }
  const where = sample ? sql<SqlBool>`${scope.where} AND ${sample}` : scope.where;
  const { rows } = await sql<FacetRow>`
    WITH fx AS MATERIALIZED (SELECT d.doc_id${documentColumns(plan, 'd')} FROM search_documents d WHERE ${where})${factsCte(plan, scope.kind)}
    ${facetRows(plan, scope.kind)}`.execute(db);
  return { rows, sampled: sample !== null };
}

/**
 * The pieces a text query's statement (repository.ts) adds for facets over its materialised matches `m`
 * (which carry `doc_id`, `ref_id` and `matchColumns`): the CTEs after its own, and the JSON column.
 * Every k-th id when there are more than `plan.sample` matches (k computed in the statement).
 */
export function textFacets(plan: FacetPlan, kind: number) {
  const s = sql.lit(plan.sample);
  const k = sql`(SELECT CASE WHEN count(*) > ${s} THEN (count(*) + ${s} - 1) / ${s} ELSE 1 END FROM m)`;
  return {
    matchColumns: documentColumns(plan, 'd'),
    ctes: sql`, fx AS (SELECT m.doc_id${documentColumns(plan, 'm')} FROM m WHERE m.ref_id % ${k} = 0)${factsCte(plan, kind)}`,
    json: facetJson(plan, kind),
  };
}
