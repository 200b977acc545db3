import { jobKind } from './types.js';

/**
 * Every kind of job, with its payload type. Migration 0004 queues MAKE_RENDITIONS by
 * its name for versions that existed before it: keep the name.
 */
export const MAKE_RENDITIONS = jobKind<{ versionId: number }>('version.renditions');
