import type { AppContext } from '../context.js';
import { AssetService } from './asset-service.js';
import { CollectionService } from './collection-service.js';
import { FolderService } from './folder-service.js';

export { toAssetView } from './asset-service.js';
export { toCollectionView } from './collection-service.js';
export { toFolderView } from './folder-service.js';

/** The catalog: assets, folders and collections of a workspace, one service each. */
export class CatalogService {
  readonly assets: AssetService;
  readonly folders: FolderService;
  readonly collections: CollectionService;

  constructor(ctx: AppContext) {
    this.assets = new AssetService(ctx);
    this.folders = new FolderService(ctx);
    this.collections = new CollectionService(ctx);
  }
}
