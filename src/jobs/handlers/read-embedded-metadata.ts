import type { FastifyBaseLogger } from 'fastify';
import type { EmbeddedMetadataService } from '../../services/embedded-metadata-service.js';
import { READ_EMBEDDED_METADATA } from '../kinds.js';
import { defineHandler } from '../types.js';

/** EXIF, IPTC and XMP of a version that became current (issue #12); what could not be read is logged, never fatal. */
export const readEmbeddedMetadata = (embedded: EmbeddedMetadataService, log: FastifyBaseLogger) =>
  defineHandler(READ_EMBEDDED_METADATA, async ({ versionId }) => {
    const problems = await embedded.extract(versionId);
    if (problems.length > 0) log.warn({ versionId, problems }, 'embedded metadata: parts of the file could not be read');
  });
