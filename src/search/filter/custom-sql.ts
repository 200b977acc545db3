import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { BoundCustom } from './custom.js';
import { any, containsPattern, oneOf, OPERATORS, type Condition } from './sql-parts.js';

/**
 * Issue #30: the documents whose custom field values pass every one of the tests (custom_field_values carries the
 * search index's doc_id). The field ids are the searched workspaces' own, so no other workspace's rows are read.
 *
 * One test is the driver: its rows are read through (option_id, doc_id) or (field_id, <column>, doc_id); each other
 * test of the same AND is a probe of that document's values through the covering (doc_id, field_id, num_value,
 * option_id) index. Written as one `IN` per test instead, SQLite built a list of every value that passes each (a budget
 * range: 350,000 rows at 1M assets) before comparing them, 20 times the cost of the probes (docs/benchmarks.md, custom
 * fields); PostgreSQL plans the one subquery as well as the several.
 *
 * Options are read by id alone: an option belongs to one field (the bound test names only the fields' own options),
 * and both planners then estimate from option_id's own statistics; with `field_id = ?` beside it, PostgreSQL multiplied
 * two selectivities that are not independent and guessed a fifth of the rows. No `IS NOT NULL`: every test is false
 * on NULL, and no index here is partial.
 */
export function customMatches(tests: readonly BoundCustom[]): RawBuilder<unknown> {
  const driver = [...tests].sort((a, b) => breadth(a) - breadth(b))[0]!;
  const probes = tests.filter((t) => t !== driver);
  const where = [driverTest(driver)];
  probes.forEach((t, i) => {
    const w = sql.raw(`w${i}`);
    where.push(sql<SqlBool>`EXISTS (SELECT 1 FROM custom_field_values ${w}
      WHERE ${w}.doc_id = v.doc_id AND ${oneOf(sql.ref(`w${i}.field_id`), t.fieldIds)} AND ${valueTest(t, `w${i}`)})`);
  });
  return sql`SELECT v.doc_id FROM custom_field_values v WHERE ${sql.join(where, sql` AND `)}`;
}

/**
 * How many rows a test is likely to read, roughly, for the choice of a driver: equality on a few values reads fewest,
 * then more values, then ranges, comparisons and contains. Ties keep the filter's order.
 */
function breadth(t: BoundCustom): number {
  if (t.test.kind !== 'in' || t.test.ranges.length) return 1_000;
  return t.test.values.length;
}

function driverTest(t: BoundCustom): Condition {
  if (t.column === 'option_id') return valueTest(t, 'v');
  return sql<SqlBool>`${oneOf(sql.ref('v.field_id'), t.fieldIds)} AND ${valueTest(t, 'v')}`;
}

function valueTest(t: BoundCustom, alias: string): Condition {
  const target = sql.ref(`${alias}.${t.column}`);
  if (t.test.kind === 'contains') return any(t.test.values.map((v) => sql<SqlBool>`${target} LIKE ${containsPattern(v)} ESCAPE '\\'`));
  if (t.test.kind === 'compare') return sql<SqlBool>`${target} ${OPERATORS[t.test.op]} ${t.test.value}`;
  const parts = t.test.values.length ? [oneOf(target, t.test.values)] : [];
  for (const [from, to] of t.test.ranges) parts.push(sql<SqlBool>`${target} BETWEEN ${from} AND ${to}`);
  return any(parts);
}
