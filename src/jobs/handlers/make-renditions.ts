import type { RenditionService } from '../../services/rendition-service.js';
import { MAKE_RENDITIONS } from '../kinds.js';
import { defineHandler } from '../types.js';

/** Thumbnail and preview of a new version (issue #5); when the job gives up, the version says 'failed'. */
export const makeRenditions = (renditions: RenditionService) =>
  defineHandler(
    MAKE_RENDITIONS,
    ({ versionId }) => renditions.make(versionId),
    ({ versionId }, error) => renditions.giveUp(versionId, error),
  );
