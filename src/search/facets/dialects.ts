import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from '../../db/dialects/types.js';
import { YEAR_RANGE } from '../index-schema/sources.js';

/**
 * Where facet SQL differs between the databases: a text query counts its
 * facets in the same statement as its page (repository.ts), so the facet rows
 * travel as one JSON text column, built by each database's own aggregate.
 */
export interface FacetDialect {
  /** JSON text of an array holding one array `[f, value, n, total, rank]` per row of `b`. */
  jsonRows(b: string): RawBuilder<string>;
  /** The UTC year of Unix seconds, null outside years 1 to 9999: as the index computes taken_year (index-schema/). */
  year(seconds: RawBuilder<unknown>): RawBuilder<number | null>;
}

const [FIRST, LAST] = YEAR_RANGE.map((s) => sql.lit(s));

const columns = (b: string) => sql.raw(['f', 'value', 'n', 'total', 'rank'].map((c) => `${b}.${c}`).join(', '));

export const facetDialects: Readonly<Record<DialectName, FacetDialect>> = {
  sqlite: {
    jsonRows: (b) => sql<string>`json_group_array(json_array(${columns(b)}))`,
    year: (s) => sql`CASE WHEN ${s} BETWEEN ${FIRST} AND ${LAST} THEN CAST(strftime('%Y', ${s}, 'unixepoch') AS INTEGER) END`,
  },
  postgres: {
    jsonRows: (b) => sql<string>`CAST(json_agg(json_build_array(${columns(b)})) AS text)`,
    year: (s) => sql`CASE WHEN ${s} BETWEEN ${FIRST} AND ${LAST} THEN CAST(extract(year FROM to_timestamp(${s}) AT TIME ZONE 'UTC') AS integer) END`,
  },
};
