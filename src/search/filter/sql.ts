import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Predicate } from './bind.js';
import { KIND } from '../collections.js';
import type { FieldSpec } from './fields.js';

/**
 * Compiles a checked filter into a parameterised SQL condition over
 * `search_documents d`. Every value is a bound parameter; the only SQL text
 * that varies is column names and comparison operators taken from fixed
 * tables (fields.ts, bind.ts), never from the request. The same SQL runs on
 * SQLite and PostgreSQL.
 */

type Condition = RawBuilder<SqlBool>;

const column = (field: FieldSpec) => sql.ref(`d.${field.column ?? 'doc_id'}`);

/** LIKE pattern for "contains": the value's own % _ \ are escaped. */
export function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, '\\$&')}%`;
}

function any(parts: Condition[]): Condition {
  return parts.length === 1 ? parts[0]! : sql<SqlBool>`(${sql.join(parts, sql` OR `)})`;
}

/**
 * A number as BIGINT: a value outside PostgreSQL's integer range compared with an
 * integer column is then a plain comparison (no match), not an out-of-range error.
 */
const big = (n: number) => sql`CAST(${n} AS BIGINT)`;

function oneOf(target: RawBuilder<unknown>, values: readonly (string | number)[]): Condition {
  const bound = values.map((v) => (typeof v === 'number' ? big(v) : sql`${v}`));
  return bound.length === 1 ? sql<SqlBool>`${target} = ${bound[0]}` : sql<SqlBool>`${target} IN (${sql.join(bound)})`;
}

/** `:!=`: none of the values; a document without a value (NULL) is not equal to any. */
function negated(condition: Condition, field: FieldSpec | null): Condition {
  return field?.nullable ? sql<SqlBool>`(${column(field)} IS NULL OR NOT ${condition})` : sql<SqlBool>`NOT ${condition}`;
}

function textTest(target: RawBuilder<unknown>, test: 'equals' | 'contains', values: readonly string[]): Condition {
  if (test === 'equals') return oneOf(target, values);
  return any(values.map((v) => sql<SqlBool>`${target} LIKE ${containsPattern(v)} ESCAPE '\\'`));
}

const OPERATORS = { '>': sql.raw('>'), '>=': sql.raw('>='), '<': sql.raw('<'), '<=': sql.raw('<=') } as const;

export function predicateSql(p: Predicate): Condition {
  switch (p.type) {
    case 'and':
    case 'or':
      return sql<SqlBool>`(${sql.join(p.children.map(predicateSql), p.type === 'and' ? sql` AND ` : sql` OR `)})`;
    case 'compare':
      return sql<SqlBool>`${column(p.field)} ${OPERATORS[p.op]} ${big(p.value)}`;
    case 'number': {
      const parts = p.values.length ? [oneOf(column(p.field), p.values)] : [];
      for (const [from, to] of p.ranges) parts.push(sql<SqlBool>`${column(p.field)} BETWEEN ${big(from)} AND ${big(to)}`);
      const test = any(parts);
      return p.negate ? negated(sql<SqlBool>`(${test})`, p.field) : test;
    }
    case 'text': {
      const test = textTest(column(p.field), p.test, p.values);
      return p.negate ? negated(sql<SqlBool>`(${test})`, p.field) : test;
    }
    case 'tags': {
      // "has a tag that ..." through the tags table; :!= is "has no tag that ...".
      const tagged = sql`SELECT t.doc_id FROM search_tags t WHERE ${textTest(sql.ref('t.tag_folded'), p.test, p.values)}`;
      return p.negate ? sql<SqlBool>`d.doc_id NOT IN (${tagged})` : sql<SqlBool>`d.doc_id IN (${tagged})`;
    }
    case 'collection': {
      // Members are assets; their doc_id is asset_id * 4 + the assets' kind (collections.ts). A collection
      // in the trash has no members here (its trashed members are not in the index anyway).
      const members = sql`SELECT CAST(ca.asset_id AS BIGINT) * 4 + ${sql.lit(KIND.digital_assets)} FROM collection_assets ca
        JOIN collections mc ON mc.id = ca.collection_id AND mc.deleted_at IS NULL WHERE ${oneOf(sql.ref('ca.collection_id'), p.values)}`;
      return p.negate ? sql<SqlBool>`d.doc_id NOT IN (${members})` : sql<SqlBool>`d.doc_id IN (${members})`;
    }
  }
}
