import { foldAscii } from '../../domain/ascii-fold.js';
import { dayNumber, isFieldKey, parseDateTime, type FieldType } from '../../domain/custom-fields.js';
import { FilterError, type Condition, type ValueText } from './ast.js';

/**
 * Filters on custom fields (issue #30): `fields.<key>` in the filter grammar. The parser accepts any key; once the
 * searched workspaces are known, the search service hands in their fields (a CustomCatalogue) and each condition is
 * checked against its field's type: text types compare folded text (:= equals, : contains), number/date/datetime
 * compare numbers (:=, ranges [a..b], :> :>= :< :<=), boolean true/false, select and multi_select options by label or
 * id (an option also matches its descendants in a tree vocabulary), user a member's id.
 */

/** One key as the searched workspaces define it (the same key in several workspaces must have one type). */
export interface CustomFieldSpec {
  readonly key: string;
  readonly type: FieldType;
  readonly fieldIds: readonly number[];
  /** select, multi_select: every option of those fields. */
  readonly options: readonly { readonly id: number; readonly label: string; readonly parentId: number | null }[];
}

export type CustomCatalogue = ReadonlyMap<string, CustomFieldSpec>;

/** A condition on a custom field before its type is known. */
export interface UnboundCustom {
  readonly type: 'custom';
  readonly key: string;
  readonly condition: Condition;
}

export type CustomColumn = 'text_folded' | 'num_value' | 'option_id' | 'user_id';

/** A checked condition on a custom field: rows of custom_field_values of `fieldIds` that pass `test`. */
export interface BoundCustom {
  readonly type: 'custom-bound';
  readonly fieldIds: readonly number[];
  readonly column: CustomColumn;
  /** `:!=`: the documents without such a value (none at all included). */
  readonly negate: boolean;
  readonly test:
    | { readonly kind: 'in'; readonly values: readonly (string | number)[]; readonly ranges: readonly (readonly [number, number])[] }
    | { readonly kind: 'contains'; readonly values: readonly string[] }
    | { readonly kind: 'compare'; readonly op: '>' | '>=' | '<' | '<='; readonly value: number };
}

export const CUSTOM_PREFIX = 'fields.';

/** `fields.<key>`: the condition kept for binding once the fields are known. */
export function unboundCustom(c: Condition): UnboundCustom {
  const key = c.field.slice(CUSTOM_PREFIX.length);
  if (!isFieldKey(key)) throw new FilterError(`"${c.field}" is not a custom field name: fields.<key>, the key as GET /dam/fields lists it`, c.position);
  return { type: 'custom', key, condition: c };
}

const NUMBER = /^-?\d{1,16}(\.\d{1,10})?$/;

/** A value of a numeric kind of field as the number its column holds. */
function numberOf(v: ValueText, spec: CustomFieldSpec): number {
  const t = v.text.trim();
  let n: number | null = null;
  if (spec.type === 'number') n = NUMBER.test(t) ? Number(t) : null;
  else if (spec.type === 'date') n = dayNumber(t);
  else if (spec.type === 'datetime') n = /^-?\d{1,12}$/.test(t) ? Number(t) : (parseDateTime(t)?.seconds ?? null);
  if (n === null || !Number.isFinite(n)) {
    const want = spec.type === 'date' ? 'a date (YYYY-MM-DD)' : spec.type === 'datetime' ? 'a date and time with an offset, or Unix seconds' : 'a number';
    throw new FilterError(`fields.${spec.key} needs ${want}, found "${t.slice(0, 80)}"`, v.position);
  }
  return n;
}

/** Options named by id or label (folded), each with every option below it. */
function optionIds(values: readonly ValueText[], spec: CustomFieldSpec): number[] {
  const children = new Map<number | null, number[]>();
  for (const o of spec.options) children.set(o.parentId, [...(children.get(o.parentId) ?? []), o.id]);
  const out = new Set<number>();
  const add = (id: number) => {
    if (out.has(id)) return;
    out.add(id);
    for (const c of children.get(id) ?? []) add(c);
  };
  for (const v of values) {
    const text = v.text.trim();
    const matches = /^\d{1,10}$/.test(text)
      ? spec.options.filter((o) => o.id === Number(text))
      : spec.options.filter((o) => foldAscii(o.label) === foldAscii(text));
    if (matches.length === 0) throw new FilterError(`"${text.slice(0, 80)}" is not an option of fields.${spec.key}`, v.position);
    for (const m of matches) add(m.id);
  }
  return [...out];
}

/** Checks an unbound condition against its field. Throws FilterError at the offending position. */
export function bindCustom(u: UnboundCustom, catalogue: CustomCatalogue): BoundCustom {
  const c = u.condition;
  const spec = catalogue.get(u.key);
  if (!spec) throw new FilterError(`unknown custom field "${u.key}" in the searched workspaces; GET /dam/fields lists them`, c.position);
  const negate = c.operator === ':!=';
  const base = { type: 'custom-bound' as const, fieldIds: spec.fieldIds, negate };
  const values = (): ValueText[] =>
    c.items.map((item) => {
      if (item.kind === 'range') throw new FilterError(`a range (a..b) needs a number or date field; fields.${spec.key} is ${spec.type}`, item.from.position);
      return item.value;
    });
  const equality = c.operator === ':=' || c.operator === ':!=' || c.operator === ':';
  const compare = !equality;
  switch (spec.type) {
    case 'number':
    case 'date':
    case 'datetime': {
      if (compare) {
        const only = c.items[0];
        if (c.isList || !only || only.kind !== 'value') throw new FilterError(`${c.operator} takes one value, not a list; use [a..b] with := for ranges`, c.operatorPosition);
        return { ...base, column: 'num_value', test: { kind: 'compare', op: c.operator.slice(1) as '>' | '>=' | '<' | '<=', value: numberOf(only.value, spec) } };
      }
      const list: number[] = [];
      const ranges: (readonly [number, number])[] = [];
      for (const item of c.items) {
        if (item.kind === 'value') list.push(numberOf(item.value, spec));
        else {
          const range = [numberOf(item.from, spec), numberOf(item.to, spec)] as const;
          if (range[0] > range[1]) throw new FilterError(`the range ${item.from.text}..${item.to.text} is empty: its start is above its end`, item.from.position);
          ranges.push(range);
        }
      }
      return { ...base, column: 'num_value', test: { kind: 'in', values: list, ranges } };
    }
    default:
      break;
  }
  if (compare) throw new FilterError(`${c.operator} compares numbers and dates; fields.${spec.key} is ${spec.type}: use :=, :!= or :`, c.operatorPosition);
  switch (spec.type) {
    case 'boolean': {
      const v = values();
      const only = v[0];
      if (c.isList || v.length !== 1 || !only) throw new FilterError(`fields.${spec.key} takes one value, true or false`, c.operatorPosition);
      const text = foldAscii(only.text.trim());
      if (text !== 'true' && text !== 'false') throw new FilterError(`fields.${spec.key} needs true or false, found "${only.text.slice(0, 80)}"`, only.position);
      return { ...base, column: 'num_value', test: { kind: 'in', values: [text === 'true' ? 1 : 0], ranges: [] } };
    }
    case 'select':
    case 'multi_select':
      return { ...base, column: 'option_id', test: { kind: 'in', values: optionIds(values(), spec), ranges: [] } };
    case 'user':
      return {
        ...base,
        column: 'user_id',
        test: {
          kind: 'in',
          values: values().map((v) => {
            if (!/^\d{1,10}$/.test(v.text.trim())) throw new FilterError(`fields.${spec.key} needs user ids, found "${v.text.slice(0, 80)}"`, v.position);
            return Number(v.text.trim());
          }),
          ranges: [],
        },
      };
    default: {
      const folded = values().map((v) => foldAscii(v.text));
      return { ...base, column: 'text_folded', test: c.operator === ':' ? { kind: 'contains', values: folded } : { kind: 'in', values: folded, ranges: [] } };
    }
  }
}
