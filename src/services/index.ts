import type { AppContext } from '../context.js';
import { AuthService } from './auth-service.js';
import { CatalogService } from './catalog-service.js';
import { WorkspaceService } from './workspace-service.js';

/** Every service of the app, built once per app with explicit dependencies. */
export interface Services {
  auth: AuthService;
  workspaces: WorkspaceService;
  catalog: CatalogService;
}

export function buildServices(ctx: AppContext): Services {
  return {
    auth: new AuthService(ctx),
    workspaces: new WorkspaceService(ctx),
    catalog: new CatalogService(ctx),
  };
}
