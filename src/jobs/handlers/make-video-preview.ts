import type { VideoPreviewService } from '../../services/video-preview-service.js';
import { MAKE_VIDEO_PREVIEW } from '../kinds.js';
import { defineHandler } from '../types.js';

/** The web-playable preview of a video version (issue #15); when the job gives up, the version's video preview says 'failed'. */
export const makeVideoPreview = (previews: VideoPreviewService) =>
  defineHandler(
    MAKE_VIDEO_PREVIEW,
    ({ versionId }) => previews.make(versionId),
    ({ versionId }, error) => previews.giveUp(versionId, error),
  );
