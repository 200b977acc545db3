import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.js';
import type { Services } from '../services/index.js';
import { makeRenditions } from './handlers/make-renditions.js';
import { readEmbeddedMetadata } from './handlers/read-embedded-metadata.js';
import { generateImages } from './handlers/generate-images.js';
import { importZip } from './handlers/import-zip.js';
import { importDrive } from './handlers/import-drive.js';
import { convertAsset } from './handlers/convert-asset.js';
import { makeVideoPreview } from './handlers/make-video-preview.js';
import { hashBackfill, hashVersion } from './handlers/hash-version.js';
import { JobWorker, type JobRunObserver } from './worker.js';

/** This process's worker with every handler registered. buildApp starts it and stops it on close. */
export function createWorker(ctx: AppContext, services: Services, log: FastifyBaseLogger, observe?: JobRunObserver): JobWorker {
  return new JobWorker(services.jobs, ctx.config.jobs, log, observe, ctx.faults)
    .register(makeRenditions(services.renditions))
    .register(readEmbeddedMetadata(services.embeddedMetadata, log))
    .register(generateImages(services.imageGenerationRunner))
    .register(importZip(services.zipImportRunner))
    .register(importDrive(services.driveImportRunner))
    .register(convertAsset(services.conversionRunner))
    .register(makeVideoPreview(services.videoPreviews))
    .register(hashVersion(services.fileHashes))
    .register(hashBackfill(services.fileHashes));
}
