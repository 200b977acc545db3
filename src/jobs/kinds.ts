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
