/**
 * Query strings, path parameters, headers and multipart form fields arrive as text. A value is
 * converted to the type its schema declares only when it is written the one plain way:
 * decimal digits for integers (`12`, `-3`), a decimal number for numbers, `true`/`false` for
 * booleans, and a single value where a list is declared becomes a list of one. Anything else
 * stays text and fails validation, naming the field.
 *
 * Written here rather than left to Ajv's `coerceTypes`, because Ajv converts any string that
 * JavaScript's `Number()` reads (`0x10`, `1e3`, ` 12 `, `Infinity` for numbers) and turns
 * `0`/`""` into null where null is allowed; it has no option to restrict that.
 */
type Schema = Record<string, unknown>;

const INTEGER = /^-?(0|[1-9][0-9]*)$/;
const DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** The JSON types a schema can accept; `text` is true only for a general string (not a const or an enum). */
function accepted(schema: Schema | undefined): { types: Set<string>; text: boolean; items: Schema | undefined } {
  const types = new Set<string>();
  let text = false;
  let items: Schema | undefined;
  const visit = (s: Schema | undefined): void => {
    if (!s || typeof s !== 'object') return;
    const declared = s.type;
    for (const t of Array.isArray(declared) ? declared : declared === undefined ? [] : [declared]) {
      types.add(String(t));
      if (t === 'string' && s.const === undefined && s.enum === undefined) text = true;
      if (t === 'array' && typeof s.items === 'object') items = s.items as Schema;
    }
    for (const branch of [...((s.anyOf as Schema[]) ?? []), ...((s.oneOf as Schema[]) ?? [])]) visit(branch);
  };
  visit(schema);
  return { types, text, items };
}

function convert(schema: Schema | undefined, value: unknown): unknown {
  const { types, text, items } = accepted(schema);
  if (Array.isArray(value)) return types.has('array') ? value.map((v) => convert(items, v)) : value;
  if (typeof value !== 'string' || text) return value;
  if ((types.has('integer') || types.has('number')) && INTEGER.test(value)) return Number(value);
  if (types.has('number') && DECIMAL.test(value)) return Number(value);
  if (types.has('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  if (types.has('array')) return [convert(items, value)];
  return value;
}

/** Converts the well-formed text members of `data` (an object of text values) in place, per `schema`. */
export function convertTextValues(schema: Schema, data: unknown): void {
  if (data === null || typeof data !== 'object') return;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const extra = typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined;
  const record = data as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const member = properties[key] ?? extra;
    if (member) record[key] = convert(member, record[key]);
  }
}
