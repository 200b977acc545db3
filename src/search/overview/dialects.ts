import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from '../../db/dialects/types.js';
import { YEAR_RANGE } from '../index-schema/sources.js';

/** Where the timeline's SQL differs between the databases: naming the month of a date. */
export interface OverviewDialect {
  /**
   * `YYYY-MM` of Unix seconds in UTC. Dates before year 1 or after 9999 (which neither database's date functions take)
   * count in the first or the last month, where the taken_at order puts them too.
   */
  month(seconds: RawBuilder<unknown>): RawBuilder<string>;
}

const [FIRST, LAST] = YEAR_RANGE.map((s) => sql.lit(s));
const clamped = (s: RawBuilder<unknown>) => sql`CASE WHEN ${s} < ${FIRST} THEN ${FIRST} WHEN ${s} > ${LAST} THEN ${LAST} ELSE ${s} END`;

export const overviewDialects: Readonly<Record<DialectName, OverviewDialect>> = {
  sqlite: { month: (s) => sql<string>`strftime('%Y-%m', ${clamped(s)}, 'unixepoch')` },
  postgres: { month: (s) => sql<string>`to_char(to_timestamp(${clamped(s)}) AT TIME ZONE 'UTC', 'YYYY-MM')` },
};
