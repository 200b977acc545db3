import type { SwaggerTransform } from '@fastify/swagger';
import { Type, type TSchema } from 'typebox';

/*
 * Multipart bodies in the OpenAPI document as a client sends them (issue #38). The route's own body schema
 * validates what the multipart hook made of the request: a file part is the spooled file's
 * {path, size, filename, mimetype}. Described that way, generated clients typed the part as that object and sent
 * it as JSON text. The document describes the part as bytes instead (`type: string, format: binary`, the OpenAPI
 * 3.0 idiom generators know, and 3.1's `contentMediaType`), with an `encoding` entry for its Content-Type; the
 * server validates exactly as before.
 */

/** The Content-Type a file part may carry: any (a claim the upload services check against the file's first bytes). */
export const FILE_PART_CONTENT_TYPE = '*/*';

/** A file part of a multipart body, as the document describes it. The document only: never a validation schema. */
export function FilePart(description: string) {
  return Type.Unsafe<Blob>({ type: 'string', format: 'binary', contentMediaType: 'application/octet-stream', description });
}

/**
 * Route config: the document describes `body` (as a client sends it) instead of the route's validation body.
 * @fastify/swagger calls this per route when it builds the document; everything else of the schema is kept.
 */
export function documentedBody(body: TSchema): { swaggerTransform: SwaggerTransform } {
  return { swaggerTransform: ({ schema, url }) => ({ schema: { ...schema, body }, url }) };
}

interface MediaType {
  schema?: { properties?: Record<string, { format?: string }> };
  encoding?: Record<string, { contentType: string }>;
}

/**
 * The document's `encoding` of every binary part of a multipart/form-data body (@fastify/swagger writes the
 * schema of a media type only). Run once, on the whole document (transformObject).
 */
export function addFilePartEncodings<D>(document: D): D {
  const paths = (document as { paths?: Record<string, Record<string, { requestBody?: { content?: Record<string, MediaType> } }>> }).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const media = operation.requestBody?.content?.['multipart/form-data'];
      const files = Object.entries(media?.schema?.properties ?? {}).filter(([, schema]) => schema.format === 'binary');
      if (!media || files.length === 0) continue;
      media.encoding = { ...media.encoding, ...Object.fromEntries(files.map(([name]) => [name, { contentType: FILE_PART_CONTENT_TYPE }])) };
    }
  }
  return document;
}
