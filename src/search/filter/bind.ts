import { FilterError, type Condition, type FilterNode, type ListItem, type ValueText } from './ast.js';
import { FIELD_NAMES, FILTER_FIELDS, type FieldSpec } from './fields.js';

/** A filter checked against the fields: every value has the field's type and every operator is allowed on it. */
export type Predicate =
  | { readonly type: 'and' | 'or'; readonly children: readonly Predicate[] }
  | { readonly type: 'text'; readonly field: FieldSpec; readonly test: 'equals' | 'contains'; readonly negate: boolean; readonly values: readonly string[] }
  | { readonly type: 'tags'; readonly test: 'equals' | 'contains'; readonly negate: boolean; readonly values: readonly string[] }
  | { readonly type: 'collection'; readonly negate: boolean; readonly values: readonly number[] }
  | { readonly type: 'compare'; readonly field: FieldSpec; readonly op: '>' | '>=' | '<' | '<='; readonly value: number }
  | { readonly type: 'number'; readonly field: FieldSpec; readonly negate: boolean; readonly values: readonly number[]; readonly ranges: readonly (readonly [number, number])[] };

/**
 * Strings compare with ASCII letters folded to lower case, on both dialects
 * (SQLite's lower() folds ASCII only, so PostgreSQL does the same).
 */
export function foldAscii(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function integer(v: ValueText, field: string): number {
  const n = /^-?\d{1,16}$/.test(v.text) ? Number(v.text) : NaN;
  if (!Number.isSafeInteger(n)) throw new FilterError(`${field} needs an integer, found "${v.text}"`, v.position);
  return n;
}

function plainValues(c: Condition, what: string): ValueText[] {
  return c.items.map((item: ListItem) => {
    if (item.kind === 'range') throw new FilterError(`a range (a..b) needs a numeric field; ${c.field} is ${what}`, item.from.position);
    return item.value;
  });
}

function bindCondition(c: Condition): Predicate {
  const field = FILTER_FIELDS[c.field];
  if (!field) throw new FilterError(`unknown field "${c.field}"; filterable fields: ${FIELD_NAMES.join(', ')}`, c.position);
  const negate = c.operator === ':!=';
  if (field.kind === 'collection') {
    if (c.operator !== ':=' && c.operator !== ':!=') {
      throw new FilterError(`${c.field} is membership: use := or :!= with collection ids`, c.operatorPosition);
    }
    return { type: 'collection', negate, values: plainValues(c, 'a list of collection ids').map((v) => integer(v, c.field)) };
  }
  if (field.kind !== 'number') {
    if (c.operator !== ':=' && c.operator !== ':!=' && c.operator !== ':') {
      throw new FilterError(`${c.operator} compares numbers; ${c.field} is text: use :=, :!= or :`, c.operatorPosition);
    }
    const values = plainValues(c, field.kind === 'tags' ? 'an array of strings' : 'text').map((v) => foldAscii(v.text));
    const test = c.operator === ':' ? 'contains' : 'equals';
    return field.kind === 'tags' ? { type: 'tags', test, negate, values } : { type: 'text', field, test, negate, values };
  }
  if (c.operator === ':=' || c.operator === ':!=' || c.operator === ':') {
    const values: number[] = [];
    const ranges: (readonly [number, number])[] = [];
    for (const item of c.items) {
      if (item.kind === 'value') {
        values.push(integer(item.value, c.field));
        continue;
      }
      const range = [integer(item.from, c.field), integer(item.to, c.field)] as const;
      if (range[0] > range[1]) throw new FilterError(`the range ${range[0]}..${range[1]} is empty: its start is above its end`, item.from.position);
      ranges.push(range);
    }
    return { type: 'number', field, negate, values, ranges };
  }
  const only = c.items[0];
  if (c.isList || !only || only.kind !== 'value') {
    throw new FilterError(`${c.operator} takes one value, not a list; use [a..b] with := for ranges`, c.operatorPosition);
  }
  return { type: 'compare', field, op: c.operator.slice(1) as '>' | '>=' | '<' | '<=', value: integer(only.value, c.field) };
}

/** Checks a parsed filter against the field catalogue. Throws FilterError at the offending position. */
export function bindFilter(node: FilterNode): Predicate {
  if (node.type === 'condition') return bindCondition(node);
  return { type: node.type, children: node.children.map(bindFilter) };
}
