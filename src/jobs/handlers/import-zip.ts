import type { ZipImportRunner } from '../../services/zip/zip-import-runner.js';
import { IMPORT_ZIP } from '../kinds.js';
import { defineHandler } from '../types.js';

/** Import of a stored ZIP (issue #14); when the job gives up, the import says 'failed' with the reason. */
export const importZip = (runner: ZipImportRunner) =>
  defineHandler(
    IMPORT_ZIP,
    ({ importId }) => runner.run(importId),
    ({ importId }, error) => runner.giveUp(importId, error),
  );
