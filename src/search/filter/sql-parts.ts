import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** Pieces of SQL conditions shared by sql.ts and custom-sql.ts: every value a bound parameter. */

export type Condition = RawBuilder<SqlBool>;

/** LIKE pattern for "contains": the value's own % _ \ are escaped. */
export function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, '\\$&')}%`;
}

export function any(parts: Condition[]): Condition {
  // None: a list of years that are all outside 1..9999 (bind.ts) matches nothing.
  if (parts.length === 0) return sql<SqlBool>`1 = 0`;
  return parts.length === 1 ? parts[0]! : sql<SqlBool>`(${sql.join(parts, sql` OR `)})`;
}

/**
 * A number as BIGINT: a value outside PostgreSQL's integer range compared with an
 * integer column is then a plain comparison (no match), not an out-of-range error.
 */
export const big = (n: number) => sql`CAST(${n} AS BIGINT)`;

export function oneOf(target: RawBuilder<unknown>, values: readonly (string | number)[]): Condition {
  const bound = values.map((v) => (typeof v === 'number' ? big(v) : sql`${v}`));
  return bound.length === 1 ? sql<SqlBool>`${target} = ${bound[0]}` : sql<SqlBool>`${target} IN (${sql.join(bound)})`;
}

export const OPERATORS = { '>': sql.raw('>'), '>=': sql.raw('>='), '<': sql.raw('<'), '<=': sql.raw('<=') } as const;
