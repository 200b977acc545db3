import { sql, type RawBuilder } from 'kysely';
import { KIND } from '../collections.js';
import type { FacetDialect } from './dialects.js';
import { FACET_FIELDS, isCustomFacet, type FacetField } from './fields.js';

/**
 * The SQL that counts facet values (issue #12). It reads a relation `fx`
 * that the caller defines: one row per counted document with its doc_id and
 * the search_documents columns of `documentColumns` (every match, or a sample
 * of them; see repository.ts). Each field is grouped and ranked (count
 * descending, then value ascending: by number, or by bytes, as both databases
 * store these texts) and cut to the top `limit`; one more row carries how many
 * documents `fx` holds. The same SQL on SQLite and PostgreSQL.
 *
 * Rows: `f` the field's position in the request (-1 for the size of `fx`),
 * `value` as text, `n` its count, `total` the distinct values of the field,
 * `rank` from 1.
 */

/** A custom field's facet as the searched workspaces define it (issue #30): its type and the ids of its fields. */
export interface CustomFacet {
  readonly type: string;
  readonly fieldIds: readonly number[];
}

export interface FacetPlan {
  readonly fields: readonly FacetField[];
  /** fields.<key> facets: each key's fields (the service resolves them; a key missing here is not counted). */
  readonly custom?: ReadonlyMap<string, CustomFacet>;
  /** Values per field (max_facet_values). */
  readonly limit: number;
  /** Exact up to this many matches; beyond, estimated from a sample of about this many (see repository.ts). */
  readonly sample: number;
  readonly dialect: FacetDialect;
}

export interface FacetRow {
  f: number | string;
  value: string | null;
  n: number | string;
  total: number | string;
  rank: number | string;
}

/** search_documents columns the requested facets read, as `, a.col, …` (empty when none). */
export function documentColumns(plan: FacetPlan, alias: string): RawBuilder<unknown> {
  const columns = plan.fields.flatMap((name) => {
    if (isCustomFacet(name)) return [];
    const { source } = FACET_FIELDS[name];
    return source.table === 'documents' ? [source.column] : [];
  });
  return sql.raw(columns.map((c) => `, ${alias}.${c}`).join(''));
}

/** Facts (search_asset_facts) exist for assets only; on other kinds those fields have no values to count. */
function factsOf(plan: FacetPlan, kind: number) {
  if (kind !== KIND.digital_assets) return [];
  return plan.fields.flatMap((name) => {
    if (isCustomFacet(name)) return [];
    const { source } = FACET_FIELDS[name];
    return source.table === 'facts' ? [source] : [];
  });
}

/**
 * `, fa AS (…)`: the sampled documents' facts, looked up once by primary key when a facts field is asked
 * for (CROSS JOIN keeps `fx` the outer loop on SQLite; PostgreSQL reads it as a plain join).
 */
export function factsCte(plan: FacetPlan, kind: number): RawBuilder<unknown> {
  const facts = factsOf(plan, kind);
  if (facts.length === 0) return sql``;
  const columns = facts.flatMap((s) => [`a.${s.column}`, `a.${s.folded}`]);
  return sql`, fa AS (SELECT ${sql.raw(columns.join(', '))} FROM fx CROSS JOIN search_asset_facts a WHERE a.doc_id = fx.doc_id)`;
}

/**
 * A custom field's groups (issue #30), through custom_field_values' (doc_id, field_id) index per counted document:
 * options and users by id (the service puts labels and names on them), text by its folded form (shown in its first
 * spelling), dates by day and datetimes by second (shown as stored, which orders as time does), numbers and booleans by
 * value. A multi_select document counts once per option.
 */
function customGroups(facet: CustomFacet): RawBuilder<unknown> {
  const ids = sql.join(facet.fieldIds.map((id) => sql.lit(id)));
  const from = sql`FROM fx CROSS JOIN custom_field_values cv WHERE cv.doc_id = fx.doc_id AND cv.field_id IN (${ids})`;
  switch (facet.type) {
    case 'select':
    case 'multi_select':
      return sql`SELECT cv.option_id AS v, count(DISTINCT cv.doc_id) AS n ${from} GROUP BY cv.option_id`;
    case 'user':
      return sql`SELECT cv.user_id AS v, count(DISTINCT cv.doc_id) AS n ${from} GROUP BY cv.user_id`;
    case 'number':
    case 'boolean':
      return sql`SELECT cv.num_value AS v, count(*) AS n ${from} GROUP BY cv.num_value`;
    case 'date':
    case 'datetime':
      return sql`SELECT min(cv.text_value) AS v, count(*) AS n ${from} GROUP BY cv.num_value`;
    default:
      return sql`SELECT min(cv.text_value) AS v, count(*) AS n ${from} GROUP BY cv.text_folded`;
  }
}

/** One field's groups: value `v` and count `n`. */
function groups(plan: FacetPlan, name: FacetField, kind: number): RawBuilder<unknown> | null {
  if (isCustomFacet(name)) {
    const facet = plan.custom?.get(name.slice('fields.'.length));
    return facet && facet.fieldIds.length ? customGroups(facet) : null;
  }
  const { source } = FACET_FIELDS[name];
  switch (source.table) {
    case 'documents': {
      const c = sql.raw(`fx.${source.column}`);
      if (source.year) return sql`SELECT y.v, count(*) AS n FROM (SELECT ${plan.dialect.year(c)} AS v FROM fx) y WHERE y.v IS NOT NULL GROUP BY y.v`;
      return sql`SELECT ${c} AS v, count(*) AS n FROM fx WHERE ${c} IS NOT NULL GROUP BY ${c}`;
    }
    case 'tags':
      // Grouped by the folded tag, as the tags filter compares; a document with "Beach" and "beach" counts once.
      return sql`SELECT min(t.tag) AS v, count(DISTINCT t.doc_id) AS n FROM fx CROSS JOIN search_tags t WHERE t.doc_id = fx.doc_id GROUP BY t.tag_folded`;
    case 'facts': {
      if (kind !== KIND.digital_assets) return null;
      const c = sql.raw(`fa.${source.column}`);
      const folded = sql.raw(`fa.${source.folded}`);
      return sql`SELECT min(${c}) AS v, count(*) AS n FROM fa WHERE ${folded} IS NOT NULL GROUP BY ${folded}`;
    }
  }
}

/** The facet rows (see the top of this file), as one UNION ALL. */
export function facetRows(plan: FacetPlan, kind: number): RawBuilder<FacetRow> {
  const branches: RawBuilder<unknown>[] = [sql`SELECT -1 AS f, CAST(NULL AS TEXT) AS value, count(*) AS n, 0 AS total, 0 AS rank FROM fx`];
  plan.fields.forEach((name, i) => {
    const g = groups(plan, name, kind);
    if (!g) return;
    const alias = sql.raw(`r${i}`);
    branches.push(sql`SELECT ${sql.lit(i)} AS f, value, n, total, rank FROM (
      SELECT CAST(g.v AS TEXT) AS value, g.n AS n, count(*) OVER () AS total, row_number() OVER (ORDER BY g.n DESC, g.v) AS rank
      FROM (${g}) g) ${alias} WHERE rank <= ${sql.lit(plan.limit)}`);
  });
  return sql<FacetRow>`${sql.join(branches, sql` UNION ALL `)}`;
}

/** The facet rows as one JSON text value (a text query's single statement carries them in a column). */
export function facetJson(plan: FacetPlan, kind: number): RawBuilder<string> {
  return sql<string>`(SELECT ${plan.dialect.jsonRows('b')} FROM (${facetRows(plan, kind)}) b)`;
}
