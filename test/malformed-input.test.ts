import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { registerUser, type Account } from './helpers/factories.js';
import { malformedCases, toJsonText, type Case, type Operation, type RequestShape, type Schema, type Where } from './helpers/malformed.js';
import { multipart } from './helpers/versions.js';
import { s3ErrorFields } from './helpers/s3-errors.js';

/**
 * Walks every operation of /openapi.json with malformed input: each parameter and body member
 * missing, of the wrong type, out of range, oversize, with control characters; malformed,
 * deeply nested and oversize JSON; malformed multipart bodies. Every answer must be a 4xx JSON
 * body naming the problem (never a 500), so an endpoint added tomorrow is covered the day it
 * appears in the document. Runs on SQLite only: it tests the validation layer, which does not
 * depend on the database.
 */

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Schema;
  /** The document moves a parameter schema's example up to the parameter. */
  example?: unknown;
}
interface OpenApiOperation {
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const content = op.requestBody?.content ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).map((p) => ({
          in: p.in as Where,
          name: p.name,
          required: Boolean(p.required),
          schema: p.example === undefined ? p.schema : { ...p.schema, examples: [p.example] },
        })),
        json: content['application/json']?.schema,
        form: content['multipart/form-data']?.schema,
      });
    }
  }
  // Whatever could end the session or remove the fixtures goes last, should a malformed request get through.
  const last = (op: Operation) => (op.path === '/auth/logout' ? 2 : op.method === 'DELETE' ? 1 : 0);
  return ops.sort((a, b) => last(a) - last(b));
}

let png: Buffer;

async function send(t: TestApp, who: Account, op: Operation, r: RequestShape) {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(r.path[name] ?? '1'));
  const query = new URLSearchParams(r.query).toString();
  const url = query ? `${path}?${query}` : path;
  const headers: Record<string, string> = { ...r.headers };
  let payload: string | Buffer | undefined;
  if (r.raw) {
    payload = r.raw.body;
    headers['content-type'] = r.raw.contentType;
  } else if (op.form) {
    const fields: Parameters<typeof multipart>[0] = { ...r.form };
    if (r.file) fields.file = { bytes: png, name: 'fixture.png', type: 'image/png' };
    const body = await multipart(fields);
    payload = body.payload;
    Object.assign(headers, body.headers);
  } else if (r.json !== undefined) {
    payload = toJsonText(r.json);
    headers['content-type'] = 'application/json';
  }
  return t.request({ method: op.method, url, headers, payload, token: who.token });
}

/**
 * What is wrong with the answer to a case, or undefined. `s3`: the operation answers S3 error documents, not JSON
 * (the local part URL, issue #38), whose <Message> and <ArgumentName> name the problem.
 */
function problem(c: Case, res: { statusCode: number; headers: Record<string, string | string[] | number | undefined>; body: string }, s3 = false): string | undefined {
  if (res.statusCode >= 500) return `answered ${res.statusCode}: ${res.body.slice(0, 200)}`;
  if (c.expect === 'lenient' && res.statusCode < 400) return undefined;
  if (c.expect === 'strict' && (res.statusCode < 400 || res.statusCode === 401)) return `answered ${res.statusCode}, expected a 4xx`;
  if (s3) {
    if (res.headers['content-type'] !== 'application/xml') return `answered ${res.statusCode} without an S3 error document`;
    const fields = s3ErrorFields(res.body);
    if (!fields.Code || !fields.Message) return `S3 error document without Code/Message: ${res.body.slice(0, 200)}`;
    const named = `${fields.Message} ${fields.ArgumentName ?? ''}`.toLowerCase();
    if (c.expect === 'strict' && c.names && fields.Code === 'InvalidArgument' && !named.includes(c.names.toLowerCase())) {
      return `answered ${res.statusCode} "${fields.Message}" without naming ${c.names}`;
    }
    return undefined;
  }
  if (!String(res.headers['content-type']).includes('application/json')) return `answered ${res.statusCode} without a JSON body`;
  let body: { error?: unknown; code?: unknown; field?: string };
  try {
    body = JSON.parse(res.body) as typeof body;
  } catch {
    return `answered ${res.statusCode} with a body that is not JSON`;
  }
  if (typeof body.error !== 'string' || body.error === '' || typeof body.code !== 'string') return `error body without error/code: ${res.body.slice(0, 200)}`;
  // Size and content-type refusals are about the body as a whole; every other refusal names its field.
  const named = `${body.error} ${String(body.field ?? '')}`.toLowerCase();
  if (c.expect === 'strict' && c.names && ![413, 415].includes(res.statusCode) && !named.includes(c.names.toLowerCase())) {
    return `answered ${res.statusCode} "${body.error}" without naming ${c.names}`;
  }
  return undefined;
}

/** Schemas of every input (parameters and body members, recursively) of the document. */
function inputSchemas(doc: OpenApiDoc): { where: string; schema: Schema }[] {
  const out: { where: string; schema: Schema }[] = [];
  const walk = (where: string, schema: Schema | undefined): void => {
    if (!schema || typeof schema !== 'object') return;
    out.push({ where, schema });
    for (const [name, member] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) walk(`${where}.${name}`, member);
    if (typeof schema.items === 'object') walk(`${where}[]`, schema.items as Schema);
    if (typeof schema.additionalProperties === 'object') walk(`${where}.*`, schema.additionalProperties as Schema);
    for (const branch of [...((schema.anyOf as Schema[]) ?? []), ...((schema.oneOf as Schema[]) ?? [])]) walk(where, branch);
  };
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      for (const p of op.parameters ?? []) walk(`${method.toUpperCase()} ${path} ${p.in} ${p.name}`, p.schema);
      for (const [type, content] of Object.entries(op.requestBody?.content ?? {})) walk(`${method.toUpperCase()} ${path} ${type}`, content.schema);
    }
  }
  return out;
}

describe('malformed input on every operation of /openapi.json', () => {
  let t: TestApp;
  let owner: Account;
  let doc: OpenApiDoc;

  beforeAll(async () => {
    t = await startTestApp();
    owner = await registerUser(t);
    png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#336699' } }).png().toBuffer();
    // Fixtures with id 1 of each kind, so that well-formed ids reach the handlers.
    const post = (url: string, payload: object) => t.request({ method: 'POST', url, payload, token: owner.token });
    expect((await post('/dam/folders', { workspace_id: owner.workspaceId, name: 'Folder' })).statusCode).toBe(201);
    expect((await post('/dam/collections', { workspace_id: owner.workspaceId, name: 'Collection' })).statusCode).toBe(201);
    const form = await multipart({ workspaceId: String(owner.workspaceId), file: { bytes: png, name: 'a.png', type: 'image/png' } });
    const upload = await t.request({ method: 'POST', url: '/api/upload-asset', payload: form.payload, headers: form.headers, token: owner.token });
    expect(upload.statusCode).toBe(201);
    doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json<OpenApiDoc>();
  });
  afterAll(() => t.close());

  it('declares bounds on every input: integers a minimum and maximum, strings a maximum length, arrays a maximum size', () => {
    const unbounded: string[] = [];
    for (const { where, schema } of inputSchemas(doc)) {
      if (schema.type === 'integer' || schema.type === 'number') {
        if (typeof schema.minimum !== 'number' || typeof schema.maximum !== 'number') unbounded.push(`${where}: ${JSON.stringify(schema)}`);
      }
      // A file part (`format: binary`) is bytes, bounded by DAM_MAX_FILE_SIZE (413), not by a length of text.
      const text = schema.type === 'string' && schema.format !== 'binary';
      if (text && schema.const === undefined && schema.enum === undefined && typeof schema.maxLength !== 'number') {
        unbounded.push(`${where}: ${JSON.stringify(schema)}`);
      }
      if (schema.type === 'array' && typeof schema.maxItems !== 'number') unbounded.push(`${where}: ${JSON.stringify(schema)}`);
    }
    expect(unbounded).toEqual([]);
  });

  it('answers every malformed request with a 4xx JSON error naming the problem, never a 500', { timeout: 240_000 }, async () => {
    const operations = operationsOf(doc);
    expect(operations.length).toBeGreaterThan(50);
    const failures: string[] = [];
    let sent = 0;
    for (const op of operations) {
      const cases = malformedCases(op);
      // Every operation has something that can be malformed: a parameter, a body, or at least an unknown route shape.
      if (op.params.length > 0 || op.json || op.form) expect(cases.length, `${op.method} ${op.path}`).toBeGreaterThan(0);
      for (const c of cases) {
        const res = await send(t, owner, op, c.request);
        sent += 1;
        const wrong = problem(c, res, op.path.startsWith('/storage/parts/'));
        if (wrong) failures.push(`${op.method} ${op.path} — ${c.label}: ${wrong}`);
      }
    }
    expect(sent).toBeGreaterThan(1000);
    expect(failures).toEqual([]);
  });

  it('still serves the fixtures afterwards: nothing malformed got through to change them', async () => {
    const res = await t.request({ method: 'GET', url: `/dam/assets?workspaceId=${owner.workspaceId}`, token: owner.token });
    expect(res.statusCode).toBe(200);
    const page = res.json<{ data: { items: { id: number; display_file_name: string; folder_id: number | null; visibility: number; tags: string[] }[] } }>().data;
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ display_file_name: 'a.png', folder_id: null, visibility: 0, tags: [] });
    const folders = await t.request({ method: 'GET', url: `/dam/folders?workspaceId=${owner.workspaceId}`, token: owner.token });
    expect(folders.json<{ data: { items: { name: string }[] } }>().data.items.map((f) => f.name)).toEqual(['Folder']);
  });
});
