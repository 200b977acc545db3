import type { AppContext } from '../context.js';
import { AuthService } from './auth-service.js';
import { CatalogService } from './catalog-service.js';
import { WorkspaceService } from './workspace-service.js';
import { StorageService } from './storage-service.js';
import { ServerUploadService } from './server-upload-service.js';
import { createObjectStore } from '../storage/index.js';

/** Every service of the app, built once per app with explicit dependencies. */
export interface Services {
  auth: AuthService;
  workspaces: WorkspaceService;
  catalog: CatalogService;
  storage: StorageService;
  serverUpload: ServerUploadService;
}

export function buildServices(ctx: AppContext): Services {
  const store = createObjectStore(ctx.config, ctx.db, () => ctx.now());
  return {
    auth: new AuthService(ctx),
    workspaces: new WorkspaceService(ctx),
    catalog: new CatalogService(ctx),
    storage: new StorageService(ctx, store),
    serverUpload: new ServerUploadService(ctx, store),
  };
}
