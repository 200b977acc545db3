import type { ConversionRunner } from '../../services/conversions/conversion-runner.js';
import { CONVERT_ASSET } from '../kinds.js';
import { defineHandler } from '../types.js';

/** Image and video conversions (issue #15); when the job gives up, the conversion says 'failed' with the reason. */
export const convertAsset = (runner: ConversionRunner) =>
  defineHandler(
    CONVERT_ASSET,
    ({ conversionId }) => runner.run(conversionId),
    ({ conversionId }, error) => runner.giveUp(conversionId, error),
  );
