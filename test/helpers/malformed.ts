import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { UNSAFE_TEXT } from '../../src/domain/unsafe-text.js';

/**
 * Builds, from an operation of /openapi.json, one valid-looking request and the malformed
 * variants of it that test/malformed-input.test.ts sends: each variant breaks one thing (a
 * parameter, a body member, the body as a whole) and says what the answer must be.
 */
export type Schema = Record<string, unknown>;
export type Where = 'path' | 'query' | 'header' | 'json' | 'form';

export interface Operation {
  method: string;
  path: string;
  params: { in: Where; name: string; required: boolean; schema: Schema }[];
  json?: Schema;
  form?: Schema;
}

export interface RequestShape {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /** Raw body and content type, for malformed bodies. */
  raw?: { body: string | Buffer; contentType: string };
  /** A file part of form bodies (always sent unless a case removes it). */
  file: boolean;
}

export interface Case {
  label: string;
  request: RequestShape;
  /** strict: a 4xx naming `names` (when given); lenient: anything but a 5xx. */
  expect: 'strict' | 'lenient';
  names?: string;
}

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv({ strict: false, validateFormats: true });
addFormats(ajv);
ajv.addKeyword({ keyword: 'x-plain-text' });
ajv.addKeyword({ keyword: 'x-json-limits' });

const valid = (schema: Schema, value: unknown): boolean => ajv.validate<unknown>(schema, value);

const TEXT_CANDIDATES = ['abc', '1', 'image/png', 'a@example.com', 'image.svg', '1/digital_assets/1', 'v1', 'search_name'];

function typesOf(schema: Schema): string[] {
  const t = schema.type;
  if (Array.isArray(t)) return t.map(String);
  if (typeof t === 'string') return [t];
  const branches = [...((schema.anyOf as Schema[]) ?? []), ...((schema.oneOf as Schema[]) ?? [])];
  return branches.flatMap(typesOf);
}

/** A value the schema accepts (first branch that yields one). */
export function sample(schema: Schema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined && valid(schema, schema.default)) return schema.default;
  // A schema's own example (a token of a fixed shape, a host name) when it is valid.
  const example = Array.isArray(schema.examples) ? (schema.examples as unknown[])[0] : undefined;
  if (example !== undefined && valid(schema, example)) return example;
  for (const branch of [...((schema.anyOf as Schema[]) ?? []), ...((schema.oneOf as Schema[]) ?? [])]) {
    const value = sample(branch);
    if (valid(branch, value)) return value;
  }
  switch (schema.type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, Math.min(1, Number(schema.maximum ?? 1))) : 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'string':
      return TEXT_CANDIDATES.find((c) => valid(schema, c)) ?? 'abc';
    case 'array': {
      const n = Number(schema.minItems ?? 0);
      return Array.from({ length: n }, () => sample((schema.items as Schema) ?? {}));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      for (const name of (schema.required as string[]) ?? []) out[name] = sample(props[name] ?? {});
      return out;
    }
    default:
      return 'abc';
  }
}

/**
 * Deep values cannot be built as objects and stringified (JSON.stringify recurses): a marker
 * string stands for them and `toJsonText` writes the nesting as text.
 */
const DEEP = '\u0001deep:';
const deep = (levels: number): string => `${DEEP}${levels}`;

/** JSON text of a request body, with deep markers written out as objects nested that many levels. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001deep:(\d+)"/g, (_, n: string) => deepJson(Number(n)));
}
export const deepJson = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** JSON values of the wrong kind, or out of range, for a member declared by `schema`. */
function badJsonValues(schema: Schema): { label: string; value: unknown }[] {
  const out: { label: string; value: unknown }[] = [
    { label: 'a number', value: 123 },
    { label: 'a numeric string', value: '12' },
    { label: 'true', value: true },
    { label: 'null', value: null },
    { label: 'an array', value: ['x'] },
    { label: 'an object', value: { x: 1 } },
    { label: '1.5', value: 1.5 },
    { label: '1e30', value: 1e30 },
    { label: '-1', value: -1 },
    { label: '0', value: 0 },
  ];
  if (typeof schema.maxLength === 'number') out.push({ label: 'over maxLength', value: 'x'.repeat(schema.maxLength + 1) });
  if (typeof schema.maxItems === 'number' && typeof schema.items === 'object') {
    const items = schema.items as Schema;
    const many = Array.from({ length: schema.maxItems + 1 }, (_, i) => (typesOf(items).includes('integer') ? i + 1 : `v${i}`));
    out.push({ label: 'over maxItems', value: many });
  }
  if (schema['x-plain-text']) {
    out.push({ label: 'a NUL byte', value: 'a\u0000b' }, { label: 'a right-to-left override', value: 'gpj\u202eexe.png' });
  }
  if (schema['x-json-limits'] || JSON.stringify(schema).includes('x-json-limits')) {
    out.push(
      { label: 'nested 10,000 levels', value: deep(10_000) },
      { label: 'nested 100,000 levels', value: deep(100_000) },
      { label: 'too many keys', value: Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`k${i}`, i])) },
      { label: 'too large', value: { big: 'x'.repeat(70 * 1024) } },
    );
  }
  if (typesOf(schema).includes('object') && schema.additionalProperties === false) {
    out.push({ label: 'an unknown member', value: { ...(sample(schema) as object), not_a_member: 1 } });
  }
  return out.filter((v) => (typeof v.value === 'string' && v.value.startsWith(DEEP)) || !valid(schema, v.value));
}

/** Text (query, path, form field) that is not a well-formed value of `schema`. */
function badTextValues(schema: Schema, where: Where): { label: string; value: string; strict: boolean }[] {
  const types = typesOf(schema);
  const out: { label: string; value: string; strict: boolean }[] = [];
  if (types.includes('integer') || types.includes('number')) {
    for (const value of ['abc', '1.5', '0x10', '1e3', ' 1', '-1', '99999999999999999999', '9007199254740993', 'Infinity', '1e30', 'NaN']) {
      out.push({ label: `integer ${JSON.stringify(value)}`, value, strict: true });
    }
    if (where !== 'path') out.push({ label: 'empty', value: '', strict: true });
  }
  if (types.includes('boolean')) for (const value of ['yes', '1', 'TRUE']) out.push({ label: `boolean ${value}`, value, strict: true });
  if (types.includes('string') || types.length === 0) {
    if (typeof schema.maxLength === 'number') out.push({ label: 'over maxLength', value: 'x'.repeat(schema.maxLength + 1), strict: true });
    const plain = Boolean(schema['x-plain-text']);
    out.push({ label: 'a NUL byte', value: 'a\u0000b', strict: plain }, { label: 'a right-to-left override', value: 'a\u202eb', strict: plain });
  }
  if (Array.isArray(schema.enum) || schema.const !== undefined) out.push({ label: 'not one of the values', value: 'not-a-value', strict: true });
  // Only what the schema really refuses (e.g. "-1" where negatives are allowed is not malformed).
  const refused = out.filter((v) => !acceptsText(schema, v.value));
  if (where === 'form' && JSON.stringify(schema).includes('x-json-limits')) {
    // A JSON text field nested ~29,000 levels in under 60 KB (what a version upload's metadata field may carry).
    refused.push({ label: 'JSON nested 29,000 levels', value: '{"a":' + '['.repeat(29_000) + ']'.repeat(29_000) + '}', strict: true });
  }
  return refused;
}

/** Whether `text`, converted the strict way the service converts text, is valid for `schema`. */
function acceptsText(schema: Schema, text: string): boolean {
  const candidates: unknown[] = [text];
  if (/^-?(0|[1-9][0-9]*)$/.test(text)) candidates.push(Number(text));
  if (text === 'true' || text === 'false') candidates.push(text === 'true');
  return candidates.some((c) => valid(schema, c) && !(schema['x-plain-text'] && UNSAFE_TEXT.test(text)));
}

export function baseline(op: Operation): RequestShape {
  const request: RequestShape = { path: {}, query: {}, headers: {}, file: Boolean(op.form) };
  for (const p of op.params) {
    if (p.in === 'header') continue; // optional headers (Idempotency-Key) are left out of the baseline
    const value = String(sample(p.schema));
    if (p.in === 'path') request.path[p.name] = value;
    else if (p.required) request.query[p.name] = value;
  }
  if (op.json) request.json = sample(op.json);
  if (op.form) {
    request.form = {};
    const props = (op.form.properties ?? {}) as Record<string, Schema>;
    for (const name of (op.form.required as string[]) ?? []) if (name !== 'file') request.form[name] = String(sample(props[name] ?? {}));
  }
  return request;
}

const clone = (r: RequestShape): RequestShape => structuredClone(r);

/** Every malformed variant of one operation. */
export function malformedCases(op: Operation): Case[] {
  const base = baseline(op);
  const cases: Case[] = [];
  const hasBody = ['POST', 'PUT', 'PATCH', 'DELETE'].includes(op.method);

  for (const p of op.params) {
    if (p.in === 'header') {
      cases.push({ label: `header ${p.name} over 255 characters`, request: { ...clone(base), headers: { [p.name]: 'k'.repeat(300) } }, expect: 'strict', names: p.name });
      continue;
    }
    if (p.required && p.in === 'query') {
      const r = clone(base);
      delete r.query[p.name];
      cases.push({ label: `query ${p.name} missing`, request: r, expect: 'strict', names: p.name });
    }
    for (const bad of badTextValues(p.schema, p.in)) {
      const r = clone(base);
      if (p.in === 'path') r.path[p.name] = bad.value;
      else r.query[p.name] = bad.value;
      cases.push({ label: `${p.in} ${p.name}: ${bad.label}`, request: r, expect: bad.strict ? 'strict' : 'lenient', names: p.name });
    }
  }

  if (op.json) {
    for (const { path, schema, required } of members(op.json)) {
      const leaf = path[path.length - 1]!;
      for (const bad of badJsonValues(schema)) {
        const r = clone(base);
        r.json = setAt(r.json, path, bad.value, schema);
        cases.push({ label: `body ${path.join('.')}: ${bad.label}`, request: r, expect: 'strict', names: leaf });
      }
      if (required) {
        const r = clone(base);
        r.json = setAt(r.json, path, undefined, schema);
        cases.push({ label: `body ${path.join('.')} missing`, request: r, expect: 'strict', names: leaf });
      }
    }
    for (const bad of badJsonValues(op.json)) {
      cases.push({ label: `body: ${bad.label}`, request: { ...clone(base), json: bad.value }, expect: 'strict' });
    }
  }

  if (op.form) {
    const props = (op.form.properties ?? {}) as Record<string, Schema>;
    for (const [name, schema] of Object.entries(props)) {
      if (name === 'file') {
        cases.push({ label: 'form without a file part', request: { ...clone(base), file: false }, expect: 'strict', names: 'file' });
        continue;
      }
      if (((op.form.required as string[]) ?? []).includes(name)) {
        const r = clone(base);
        delete r.form![name];
        cases.push({ label: `form ${name} missing`, request: r, expect: 'strict', names: name });
      }
      for (const bad of badTextValues(schema, 'form')) {
        const r = clone(base);
        r.form![name] = bad.value;
        cases.push({ label: `form ${name}: ${bad.label}`, request: r, expect: bad.strict ? 'strict' : 'lenient', names: name });
      }
    }
    const boundary = 'x-boundary-1234';
    const raw = (body: string | Buffer, contentType: string): RequestShape => ({ ...clone(base), raw: { body, contentType } });
    cases.push(
      { label: 'multipart without a boundary', request: raw('--x\r\n\r\n', 'multipart/form-data'), expect: 'strict' },
      {
        label: 'multipart: boundary then random bytes',
        request: raw(Buffer.concat([Buffer.from(`--${boundary}\r\n`), Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 7919) % 256))]), `multipart/form-data; boundary=${boundary}`),
        expect: 'strict',
      },
      {
        label: 'multipart cut before its closing boundary',
        request: raw(
          `--${boundary}\r\nContent-Disposition: form-data; name="workspaceId"\r\n\r\n1\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\nabcdef`,
          `multipart/form-data; boundary=${boundary}`,
        ),
        expect: 'strict',
      },
      { label: 'a JSON body instead of multipart', request: raw('{"file": {"path": "/etc/passwd"}}', 'application/json'), expect: 'strict' },
    );
  }

  if (hasBody && !op.form && !op.path.startsWith('/storage/parts/')) {
    const raw = (body: string | Buffer, contentType: string): RequestShape => ({ ...clone(base), raw: { body, contentType } });
    cases.push(
      { label: 'malformed JSON', request: raw('{"a": ', 'application/json'), expect: 'strict' },
      { label: 'JSON nested 100,000 levels', request: raw('{"a":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}', 'application/json'), expect: 'strict' },
      { label: 'JSON with __proto__ nested deep', request: raw('{"a":' + '['.repeat(50_000) + '{"__proto__":{"x":1}}' + ']'.repeat(50_000) + '}', 'application/json'), expect: 'strict' },
      { label: 'a body over 1 MiB', request: raw(JSON.stringify({ a: 'x'.repeat(1_100_000) }), 'application/json'), expect: 'strict' },
    );
    if (op.json) cases.push({ label: 'text/plain body', request: raw('hello', 'text/plain'), expect: 'strict' });
  }
  return cases;
}

/** Members of an object schema, depth first, with their paths (objects inside objects included). */
function members(schema: Schema, prefix: string[] = []): { path: string[]; schema: Schema; required: boolean }[] {
  const out: { path: string[]; schema: Schema; required: boolean }[] = [];
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[]) ?? []);
  for (const [name, member] of Object.entries(props)) {
    const path = [...prefix, name];
    out.push({ path, schema: member, required: required.has(name) });
    if (member.type === 'object' && member.properties) out.push(...members(member, path));
  }
  return out;
}

/** A copy of `root` with the member at `path` set to `value` (or removed when undefined), creating parents. */
function setAt(root: unknown, path: string[], value: unknown, _schema: Schema): unknown {
  const copy = structuredClone((root ?? {}) as Record<string, unknown>);
  let node = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const leaf = path[path.length - 1]!;
  if (value === undefined) delete node[leaf];
  else node[leaf] = value;
  return copy;
}
