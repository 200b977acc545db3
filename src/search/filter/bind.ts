import { FilterError, type Condition, type FilterNode, type ListItem, type ValueText } from './ast.js';
import { FIELD_NAMES, FILTER_FIELDS, type FieldSpec } from './fields.js';
import { foldAscii } from '../../domain/ascii-fold.js';
import { bindCustom, CUSTOM_PREFIX, unboundCustom, type BoundCustom, type CustomCatalogue, type UnboundCustom } from './custom.js';

/** A filter checked against the fields: every value has the field's type and every operator is allowed on it. */
export type Predicate =
  | { readonly type: 'and' | 'or'; readonly children: readonly Predicate[] }
  | { readonly type: 'text'; readonly field: FieldSpec; readonly test: 'equals' | 'contains'; readonly negate: boolean; readonly values: readonly string[] }
  | { readonly type: 'tags'; readonly field: FieldSpec; readonly test: 'equals' | 'contains'; readonly negate: boolean; readonly values: readonly string[] }
  | { readonly type: 'geo'; readonly negate: boolean; readonly box: GeoBox }
  | { readonly type: 'collection'; readonly negate: boolean; readonly values: readonly number[] }
  | { readonly type: 'hash'; readonly negate: boolean; readonly values: readonly string[] }
  | { readonly type: 'duplicate'; readonly negate: boolean; readonly values: readonly number[] }
  /** Issue #27, unreadable:true: `negate` turns it into "not unreadable". */
  | { readonly type: 'flag'; readonly field: FieldSpec; readonly negate: boolean }
  | { readonly type: 'compare'; readonly field: FieldSpec; readonly op: '>' | '>=' | '<' | '<='; readonly value: number }
  | { readonly type: 'number'; readonly field: FieldSpec; readonly negate: boolean; readonly values: readonly number[]; readonly ranges: readonly (readonly [number, number])[] }
  /** Issue #30, fields.<key>: unbound until the searched workspaces' fields are known (resolveCustomFields), then bound. */
  | UnboundCustom
  | BoundCustom;

/**
 * A latitude/longitude box in degrees: south <= north; west > east is a box
 * across the antimeridian (RFC 7946 5.2, as GeoJSON bounding boxes), e.g.
 * west 170, east -170 is the 20 degrees around longitude 180.
 */
export interface GeoBox {
  readonly south: number;
  readonly west: number;
  readonly north: number;
  readonly east: number;
}

export { foldAscii };

function integer(v: ValueText, field: string): number {
  const n = /^-?\d{1,16}$/.test(v.text) ? Number(v.text) : NaN;
  if (!Number.isSafeInteger(n)) throw new FilterError(`${field} needs an integer, found "${v.text}"`, v.position);
  return n;
}

/** Degrees as decimals (`-33.86`, `151.2`): no exponent, no sign but '-', at most 15 decimals. */
function degrees(v: ValueText, what: string, limit: number): number {
  const n = /^-?\d{1,3}(\.\d{1,15})?$/.test(v.text) ? Number(v.text) : NaN;
  if (!(Math.abs(n) <= limit)) throw new FilterError(`${what} needs degrees from -${limit} to ${limit}, found "${v.text}"`, v.position);
  return n;
}

/** gps:[south, west, north, east] (the south-west corner, then the north-east one). */
function bindGeo(c: Condition): Predicate {
  if (c.operator !== ':=' && c.operator !== ':' && c.operator !== ':!=') {
    throw new FilterError(`${c.field} is a position: use := (inside) or :!= (outside) with [south, west, north, east]`, c.operatorPosition);
  }
  const values = plainValues(c, 'a box [south, west, north, east]');
  if (!c.isList || values.length !== 4) {
    throw new FilterError(`${c.field} needs a box of four numbers [south, west, north, east], found ${values.length}`, c.operatorPosition);
  }
  const [south, west, north, east] = values as [ValueText, ValueText, ValueText, ValueText];
  const box = { south: degrees(south, 'a latitude', 90), west: degrees(west, 'a longitude', 180), north: degrees(north, 'a latitude', 90), east: degrees(east, 'a longitude', 180) };
  if (box.south > box.north) throw new FilterError(`the box's south edge ${box.south} is north of its north edge ${box.north}`, south.position);
  return { type: 'geo', negate: c.operator === ':!=', box };
}

function plainValues(c: Condition, what: string): ValueText[] {
  return c.items.map((item: ListItem) => {
    if (item.kind === 'range') throw new FilterError(`a range (a..b) needs a numeric field; ${c.field} is ${what}`, item.from.position);
    return item.value;
  });
}

/** taken_year (issue #12): the years a date has, as the index's taken_year (UTC; none before 1 or after 9999). */
const FIRST_YEAR = 1;
const LAST_YEAR = 9999;

function yearStart(year: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, 0, 1); // not Date.UTC, which reads the years 0 to 99 as 1900 to 1999
  return d.getTime() / 1000;
}

/** The seconds from the start of year `from` to the end of year `to`, within 1..9999; null when that is empty. */
function yearSeconds(from: number, to: number): readonly [number, number] | null {
  const [a, b] = [Math.max(from, FIRST_YEAR), Math.min(to, LAST_YEAR)];
  return a > b ? null : [yearStart(a), yearStart(b + 1) - 1];
}

/**
 * A condition on years as ranges of the seconds column (so it reads the same B-tree as taken_at):
 * `taken_year:=2020` is taken_at in [2020-01-01T00:00:00Z, 2020-12-31T23:59:59Z].
 */
function bySeconds(p: Extract<Predicate, { type: 'number' | 'compare' }>): Predicate {
  const ranges =
    p.type === 'number'
      ? [...p.values.map((v) => yearSeconds(v, v)), ...p.ranges.map(([a, b]) => yearSeconds(a, b))]
      : [
          p.op === '>' ? yearSeconds(p.value + 1, LAST_YEAR)
          : p.op === '>=' ? yearSeconds(p.value, LAST_YEAR)
          : p.op === '<' ? yearSeconds(FIRST_YEAR, p.value - 1)
          : yearSeconds(FIRST_YEAR, p.value),
        ];
  const seconds = ranges.filter((r): r is readonly [number, number] => r !== null);
  return { type: 'number', field: p.field, negate: p.type === 'number' && p.negate, values: [], ranges: seconds };
}

function bindCondition(c: Condition): Predicate {
  if (c.field.startsWith(CUSTOM_PREFIX)) return unboundCustom(c);
  const bound = bindField(c);
  const field = FILTER_FIELDS[c.field];
  return field?.years && (bound.type === 'number' || bound.type === 'compare') ? bySeconds(bound) : bound;
}

function bindField(c: Condition): Predicate {
  const field = FILTER_FIELDS[c.field];
  if (!field) throw new FilterError(`unknown field "${c.field}"; filterable fields: ${FIELD_NAMES.join(', ')}, and fields.<key> for custom fields`, c.position);
  const negate = c.operator === ':!=';
  if (field.kind === 'collection') {
    if (c.operator !== ':=' && c.operator !== ':!=') {
      throw new FilterError(`${c.field} is membership: use := or :!= with collection ids`, c.operatorPosition);
    }
    return { type: 'collection', negate, values: plainValues(c, 'a list of collection ids').map((v) => integer(v, c.field)) };
  }
  if (field.kind === 'geo') return bindGeo(c);
  if (field.kind === 'hash' || field.kind === 'duplicate') return bindHash(c, field.kind);
  if (field.kind === 'flag') return bindFlag(c, field);
  if (field.kind !== 'number') {
    if (c.operator !== ':=' && c.operator !== ':!=' && c.operator !== ':') {
      throw new FilterError(`${c.operator} compares numbers; ${c.field} is text: use :=, :!= or :`, c.operatorPosition);
    }
    const values = plainValues(c, field.kind === 'tags' ? 'an array of strings' : 'text').map((v) => foldAscii(v.text));
    const test = c.operator === ':' ? 'contains' : 'equals';
    return field.kind === 'tags' ? { type: 'tags', field, test, negate, values } : { type: 'text', field, test, negate, values };
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

/** unreadable:true, unreadable:=false, unreadable:!=true (issue #27): one value, true or false. */
function bindFlag(c: Condition, field: FieldSpec): Predicate {
  if (c.operator !== ':=' && c.operator !== ':!=' && c.operator !== ':') throw new FilterError(`${c.field} is true or false: use :, := or :!=`, c.operatorPosition);
  const values = plainValues(c, 'true or false');
  const only = values[0];
  if (c.isList || values.length !== 1 || !only) throw new FilterError(`${c.field} takes one value, true or false`, c.operatorPosition);
  const text = foldAscii(only.text);
  if (text !== 'true' && text !== 'false') throw new FilterError(`${c.field} needs true or false, found "${only.text.slice(0, 80)}"`, only.position);
  return { type: 'flag', field, negate: (text === 'false') !== (c.operator === ':!=') };
}

const SHA256 = /^[0-9a-f]{64}$/;

/** sha256:=hex (any case) and duplicate_of:=assetId, as membership (issue #19). */
function bindHash(c: Condition, kind: 'hash' | 'duplicate'): Predicate {
  const what = kind === 'hash' ? 'SHA-256 hashes' : 'asset ids';
  if (c.operator !== ':=' && c.operator !== ':!=') throw new FilterError(`${c.field} takes ${what}: use := or :!=`, c.operatorPosition);
  const negate = c.operator === ':!=';
  const values = plainValues(c, `a list of ${what}`);
  if (kind === 'duplicate') return { type: 'duplicate', negate, values: values.map((v) => integer(v, c.field)) };
  return {
    type: 'hash',
    negate,
    values: values.map((v) => {
      const hex = foldAscii(v.text);
      if (!SHA256.test(hex)) throw new FilterError(`${c.field} needs 64 hex digits, found "${v.text.slice(0, 80)}"`, v.position);
      return hex;
    }),
  };
}

/** Checks a parsed filter against the field catalogue. Throws FilterError at the offending position. */
export function bindFilter(node: FilterNode): Predicate {
  if (node.type === 'condition') return bindCondition(node);
  return { type: node.type, children: node.children.map(bindFilter) };
}

/** The custom field keys a filter names (fields.<key>), to load their definitions. */
export function customKeys(p: Predicate | null): string[] {
  if (!p) return [];
  if (p.type === 'and' || p.type === 'or') return [...new Set(p.children.flatMap(customKeys))];
  return p.type === 'custom' ? [p.key] : [];
}

/** The filter with every fields.<key> condition checked against its field (FilterError otherwise). */
export function resolveCustomFields(p: Predicate, catalogue: CustomCatalogue): Predicate {
  if (p.type === 'and' || p.type === 'or') return { type: p.type, children: p.children.map((c) => resolveCustomFields(c, catalogue)) };
  return p.type === 'custom' ? bindCustom(p, catalogue) : p;
}
