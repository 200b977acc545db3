import type { ImageGenerationRunner } from '../../services/image-generation-runner.js';
import { GENERATE_IMAGES } from '../kinds.js';
import { defineHandler } from '../types.js';

/** AI image generation (issue #13); when the job gives up, the generation says 'failed' with the reason. */
export const generateImages = (runner: ImageGenerationRunner) =>
  defineHandler(
    GENERATE_IMAGES,
    ({ generationId }) => runner.run(generationId),
    ({ generationId }, error) => runner.giveUp(generationId, error),
  );
