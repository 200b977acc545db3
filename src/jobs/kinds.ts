import { jobKind } from './types.js';

/**
 * Every kind of job, with its payload type. Migration 0004 queues MAKE_RENDITIONS by
 * its name for versions that existed before it: keep the name.
 */
export const MAKE_RENDITIONS = jobKind<{ versionId: number }>('version.renditions');
/** Embedded metadata of a version that became current (issue #12); migration 0011 queues it by its name. */
export const READ_EMBEDDED_METADATA = jobKind<{ versionId: number }>('version.metadata');
/** AI image generation (issue #13): one job per request, making its images one by one. */
export const GENERATE_IMAGES = jobKind<{ generationId: number }>('image.generate');
/** Import of a stored ZIP archive into the library (issue #14): one job per POST /zip/extract. */
export const IMPORT_ZIP = jobKind<{ importId: number }>('zip.import');
/** An import from an external drive (issue #16): one job per POST /{provider}/import. */
export const IMPORT_DRIVE = jobKind<{ importId: number }>('drive.import');
/** An image or video conversion (issue #15): one job per POST /convert/image or /convert/video. */
export const CONVERT_ASSET = jobKind<{ conversionId: number }>('asset.convert');
/** The web-playable MP4 preview of a video version (issue #15); migration 0017 queues it by its name. */
export const MAKE_VIDEO_PREVIEW = jobKind<{ versionId: number }>('version.video_preview');
/** The SHA-256 of a stored version's file (issue #19), queued when a version becomes current and by the backfill. */
export const HASH_VERSION = jobKind<{ versionId: number }>('version.sha256');
/** Queues HASH_VERSION for versions stored without a hash, a batch at a time (issue #19); migration 0022 queues it by its name. */
export const HASH_BACKFILL = jobKind<{ afterId: number }>('version.sha256_backfill');
