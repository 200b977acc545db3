import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, appError } from '../errors.js';
import { formValidatorCompiler } from './validation.js';
import { discardRestOfBody } from './discard-body.js';

/** A file part of a multipart body, spooled to a temporary file (never held in memory). */
export interface SpooledFile {
  path: string;
  size: number;
  filename: string;
  mimetype: string;
  /**
   * SHA-256 of the bytes, hex, computed as they were spooled (always, for a part of a request): nothing needs to
   * read the file again for it. Files that imports stand in as parts may have none.
   */
  sha256?: string;
}

export const SpooledFileSchema = Type.Unsafe<SpooledFile>(
  Type.Object(
    {
      path: Type.String({ maxLength: 4096 }),
      size: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
      // What the client's part header says; upload services keep the base name only.
      filename: Type.String({ maxLength: 4096 }),
      mimetype: Type.String({ maxLength: 4096 }),
    },
    { description: 'A file part (the file itself; what the service validates is the part as it was received)' },
  ),
);

const spooled = new WeakMap<FastifyRequest, string[]>();

/** Paths of the files this request's multipart body spooled (a body value naming another path is not one). */
export function spooledPaths(request: FastifyRequest): readonly string[] {
  return spooled.get(request) ?? [];
}

/**
 * A failure of the body itself (no boundary, bytes that are not multipart, a body cut before its
 * closing boundary) is the client's: 400 naming the problem. @fastify/multipart passes busboy's
 * errors on as plain Errors, which would otherwise be 500s; its own limit errors carry a status.
 */
function malformedBody(err: unknown): unknown {
  if (err instanceof AppError || (typeof (err as { statusCode?: unknown }).statusCode === 'number' && (err as { statusCode: number }).statusCode < 500)) return err;
  return appError('VALIDATION_ERROR', `The multipart/form-data body is malformed: ${(err as Error).message}`, { field: 'body' });
}

/**
 * Registers @fastify/multipart in the calling plugin's scope, with the fields put on the body as
 * key/values (so the route's TypeBox schema validates them, as text: see validation.ts) and every
 * file part streamed to a temporary file under `tmpDir`, removed again when the response is sent
 * or the request is aborted, whatever happened in between.
 */
export async function registerMultipartSpool(app: FastifyInstance, opts: { tmpDir: string; maxFileSize: number }): Promise<void> {
  await mkdir(opts.tmpDir, { recursive: true });
  app.setValidatorCompiler(formValidatorCompiler);
  await app.register(multipart, { limits: { fileSize: opts.maxFileSize, files: 1, fields: 20, fieldSize: 64 * 1024 } });

  const spool = async (request: FastifyRequest, part: MultipartFile): Promise<SpooledFile> => {
    const file = path.join(opts.tmpDir, randomBytes(12).toString('hex'));
    spooled.set(request, [...(spooled.get(request) ?? []), file]);
    let size = 0;
    // Hashed on the way to disk (idempotency fingerprints, duplicate detection): the chunks are in memory anyway.
    const hash = createHash('sha256');
    part.file.on('data', (chunk: Buffer) => {
      size += chunk.length;
      hash.update(chunk);
    });
    try {
      await pipeline(part.file, createWriteStream(file));
    } catch (err) {
      // A failure to write the temporary file is ours (a system error: ENOSPC, EACCES, ...); any other
      // failure of the stream is the body ending early or not being multipart at all.
      throw typeof (err as NodeJS.ErrnoException).syscall === 'string' ? err : malformedBody(err);
    }
    if (part.file.truncated) throw appError('PAYLOAD_TOO_LARGE', `The file is larger than the limit of ${opts.maxFileSize} bytes`);
    return { path: file, size, filename: part.filename, mimetype: part.mimetype, sha256: hash.digest('hex') };
  };

  const readParts = async (request: FastifyRequest): Promise<Record<string, unknown>> => {
    const body: Record<string, unknown> = {};
    const add = (name: string, value: unknown) => {
      const earlier = body[name];
      body[name] = earlier === undefined ? value : Array.isArray(earlier) ? [...(earlier as unknown[]), value] : [earlier, value];
    };
    let parts: AsyncIterator<Multipart>;
    try {
      parts = request.parts()[Symbol.asyncIterator]();
    } catch (err) {
      throw malformedBody(err);
    }
    for (;;) {
      const next = await parts.next().catch((err: unknown) => {
        throw malformedBody(err);
      });
      if (next.done) break;
      const part = next.value;
      if (part.type === 'file') add(part.fieldname, await spool(request, part));
      else add(part.fieldname, part.value);
    }
    return body;
  };

  app.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    try {
      request.body = await readParts(request);
    } catch (err) {
      // A body that failed half-way (a full disk under the spool): the client still sending reads the answer.
      discardRestOfBody(request);
      throw err;
    }
  });

  const removeSpooled = async (request: FastifyRequest) => {
    const files = spooled.get(request);
    if (files) await Promise.all(files.map((f) => rm(f, { force: true })));
  };
  // Before the answer leaves (the handler is done with the files), so a client that reads the answer
  // never finds them; again after it and on an abort, for answers that skipped onSend.
  app.addHook('onSend', async (request, _reply, payload) => {
    await removeSpooled(request);
    return payload;
  });
  app.addHook('onResponse', removeSpooled);
  app.addHook('onRequestAbort', removeSpooled);
}
