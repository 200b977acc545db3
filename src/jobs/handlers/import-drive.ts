import type { DriveImportRunner } from '../../services/drives/drive-import-runner.js';
import { IMPORT_DRIVE } from '../kinds.js';
import { defineHandler } from '../types.js';

/** Import from an external drive (issue #16); when the job gives up, the import says 'failed' with the reason. */
export const importDrive = (runner: DriveImportRunner) =>
  defineHandler(
    IMPORT_DRIVE,
    ({ importId }) => runner.run(importId),
    ({ importId }, error) => runner.giveUp(importId, error),
  );
