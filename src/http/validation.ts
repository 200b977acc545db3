import { Ajv, type ErrorObject, type FuncKeywordDefinition, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifySchemaCompiler } from 'fastify';
import { Type } from 'typebox';
import { UNSAFE_MULTILINE, UNSAFE_TEXT } from '../domain/unsafe-text.js';
import { jsonLimitViolation, type JsonLimits } from './json-limits.js';
import { convertTextValues } from './text-values.js';

// ajv-formats is CommonJS: its function is the default export's default under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;


function fail(fn: SchemaValidateFunction, keyword: string, message: string): false {
  // Ajv adds instancePath and schemaPath to the errors of a `validate` keyword.
  fn.errors = [{ keyword, message, params: {} } as ErrorObject];
  return false;
}

/**
 * `x-plain-text: true` on names (workspaces, folders, collections, assets, tags): no control
 * characters and no bidirectional overrides, which would make "gpj.exe" display as "exe.jpg".
 * `'multiline'` also allows tab, line feed and carriage return (descriptions).
 */
const plainText: FuncKeywordDefinition = {
  keyword: 'x-plain-text',
  type: 'string',
  schemaType: ['boolean', 'string'],
  errors: true,
  validate: function check(mode: boolean | 'multiline', data: string): boolean {
    if (!mode) return true;
    const unsafe = mode === 'multiline' ? UNSAFE_MULTILINE : UNSAFE_TEXT;
    if (!unsafe.test(data)) return true;
    const allowed = mode === 'multiline' ? ' other than tab and line breaks' : '';
    return fail(check as SchemaValidateFunction, 'x-plain-text', `must not contain control characters${allowed} or bidirectional override characters`);
  },
};

/** `x-json-limits: {maxDepth, maxKeys, maxBytes}` on free-form JSON (metadata); see json-limits.ts. */
const jsonLimits: FuncKeywordDefinition = {
  keyword: 'x-json-limits',
  schemaType: 'object',
  errors: true,
  validate: function check(limits: JsonLimits, data: unknown): boolean {
    const problem = jsonLimitViolation(data, limits);
    return problem ? fail(check as SchemaValidateFunction, 'x-json-limits', problem) : true;
  },
};

function createAjv(): Ajv {
  // As Fastify's defaults, but nothing is coerced (JSON bodies get exactly their declared types) and
  // unknown properties are refused by the schemas that say so rather than silently dropped.
  const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false });
  addFormats(ajv);
  ajv.addKeyword(plainText);
  ajv.addKeyword(jsonLimits);
  return ajv;
}

/** Text parts (query string, path, headers, form fields): well-formed text converted first (text-values.ts). */
function textValidator(validate: ValidateFunction, schema: Record<string, unknown>): ValidateFunction {
  const wrapped = ((data: unknown) => {
    convertTextValues(schema, data);
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

// One instance for every app of the process: compiled validators are cached per schema object.
const ajv = createAjv();

/** Multipart scopes use this one for every part: form fields are text, like the query string. */
export const formValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema }) =>
  textValidator(ajv.compile(schema as object), schema as Record<string, unknown>);

/** JSON bodies are validated exactly as declared; the text parts of a request after a strict conversion. */
export const validatorCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? ajv.compile(route.schema as object) : formValidatorCompiler(route);

/** The body of an operation that takes none: nothing, or an empty JSON object (what many clients send with a POST). */
const NoBody = Type.Union([Type.Null(), Type.Object({}, { additionalProperties: false })], {
  description: 'This operation takes no body; an empty JSON object is accepted',
});

/**
 * POST, PATCH and DELETE routes that declare no body refuse one with members (400), rather than
 * ignoring whatever a confused client sent. PUT is left alone: the presigned part upload's body
 * is the part itself, streamed, never parsed.
 */
export function refuseUndeclaredBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (!methods.some((m) => m === 'POST' || m === 'PATCH' || m === 'DELETE')) return;
    const schema = (route.schema ?? {}) as { body?: unknown; hide?: boolean };
    if (schema.body !== undefined || schema.hide) return;
    route.schema = { ...route.schema, body: NoBody };
  });
}
