import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { appError } from '../errors.js';

/** A file part of a multipart body, spooled to a temporary file (never held in memory). */
export interface SpooledFile {
  path: string;
  size: number;
  filename: string;
  mimetype: string;
}

export const SpooledFileSchema = Type.Unsafe<SpooledFile>(
  Type.Object({ path: Type.String(), size: Type.Integer(), filename: Type.String(), mimetype: Type.String() }, {
    description: 'A file part',
  }),
);

const spooled = new WeakMap<FastifyRequest, string[]>();

/**
 * Registers @fastify/multipart in the calling plugin's scope with fields attached
 * to the body as key/values (so the route's TypeBox schema validates them) and
 * every file part streamed to a temporary file under `tmpDir`, removed again
 * when the response is sent.
 */
export async function registerMultipartSpool(app: FastifyInstance, opts: { tmpDir: string; maxFileSize: number }): Promise<void> {
  await mkdir(opts.tmpDir, { recursive: true });
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: opts.maxFileSize, files: 1, fields: 20, fieldSize: 64 * 1024 },
    async onFile(this: FastifyRequest, part: MultipartFile) {
      const file = path.join(opts.tmpDir, randomBytes(12).toString('hex'));
      spooled.set(this, [...(spooled.get(this) ?? []), file]);
      let size = 0;
      part.file.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      await pipeline(part.file, createWriteStream(file));
      if (part.file.truncated) throw appError('PAYLOAD_TOO_LARGE', `The file is larger than the limit of ${opts.maxFileSize} bytes`);
      (part as MultipartFile & { value: SpooledFile }).value = { path: file, size, filename: part.filename, mimetype: part.mimetype };
    },
  });
  app.addHook('onResponse', async (request) => {
    const files = spooled.get(request);
    if (files) await Promise.all(files.map((f) => rm(f, { force: true })));
  });
}
