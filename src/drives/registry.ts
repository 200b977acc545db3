import type { DrivesConfig } from '../config.js';
import { dropbox } from './dropbox/index.js';
import { googleDrive } from './google/index.js';
import { oneDrive } from './onedrive/index.js';
import type { DriveModule, DriveProvider, DriveProviderId } from './types.js';

/**
 * Every external-drive provider this build knows, in the order GET /drives lists them. Routes are
 * generated for each (`/{id}/auth`, `/{id}/files`, ...), configured or not: an unconfigured one answers
 * 404 DRIVE_NOT_CONFIGURED. A new provider is a folder beside google/ exporting a DriveModule, added here.
 */
export const DRIVE_MODULES: readonly DriveModule[] = [googleDrive, dropbox, oneDrive];

/** The configured providers of this instance, by id. */
export function configuredDrives(config: DrivesConfig): Map<DriveProviderId, DriveProvider> {
  const out = new Map<DriveProviderId, DriveProvider>();
  for (const module of DRIVE_MODULES) {
    const provider = module.create(config);
    if (provider) out.set(module.id, provider);
  }
  return out;
}
