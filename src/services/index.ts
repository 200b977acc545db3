import type { AppContext } from '../context.js';
import { AuthService } from './auth-service.js';
import { CatalogService } from './catalog-service.js';
import { WorkspaceService } from './workspace-service.js';
import { StorageService } from './storage-service.js';
import { ServerUploadService } from './server-upload-service.js';
import { SearchService } from './search-service.js';
import { SocialAuthService } from './social-auth-service.js';
import { createObjectStore } from '../storage/index.js';
import { JobQueue } from '../jobs/queue.js';
import { lockCandidates } from '../jobs/dialects/index.js';
import { MediaLinks } from '../media/links.js';
import { VersionLifecycle } from './version-lifecycle.js';
import { VersionService } from './version-service.js';
import { RenditionService } from './rendition-service.js';
import { MediaService } from './media-service.js';
import { JobAdminService } from './job-admin-service.js';
import { IdempotencyService } from './idempotency-service.js';
import { TrashService } from './trash-service.js';
import { BulkService } from './bulk-service.js';
import { ActivityService } from './activity-service.js';
import { ExifToolRunner } from '../media/exiftool.js';
import { EmbeddedMetadataService } from './embedded-metadata-service.js';
import { MetadataWriteback } from './metadata-writeback.js';
import { ImageGenerationService } from './image-generation-service.js';
import { ImageGenerationRunner } from './image-generation-runner.js';
import { createImageGenerator } from '../image-gen/index.js';
import { createSafeFetcher, policyFromConfig, type SafeFetcher } from '../fetcher/index.js';
import { ProxyLinks } from '../media/proxy-links.js';
import { ImageProxyService } from './image-proxy-service.js';

/** Every service of the app, built once per app with explicit dependencies. */
export interface Services {
  auth: AuthService;
  workspaces: WorkspaceService;
  catalog: CatalogService;
  storage: StorageService;
  serverUpload: ServerUploadService;
  search: SearchService;
  social: SocialAuthService;
  jobs: JobQueue;
  versions: VersionService;
  renditions: RenditionService;
  media: MediaService;
  jobAdmin: JobAdminService;
  idempotency: IdempotencyService;
  trash: TrashService;
  bulk: BulkService;
  activity: ActivityService;
  /** The app's ExifTool processes (issue #12): buildApp ends them when the app closes. */
  exiftool: ExifToolRunner;
  embeddedMetadata: EmbeddedMetadataService;
  imageGeneration: ImageGenerationService;
  /** The job side of image generation: provider requests, assets. */
  imageGenerationRunner: ImageGenerationRunner;
  /** The SSRF-safe fetcher of outside URLs (issue #13), shared by every feature that fetches one. */
  fetcher: SafeFetcher;
  imageProxy: ImageProxyService;
}

export function buildServices(ctx: AppContext): Services {
  const store = createObjectStore(ctx.config, ctx.db, () => ctx.now());
  const auth = new AuthService(ctx);
  const jobs = new JobQueue(ctx.db, lockCandidates[ctx.database.dialect], ctx.config.jobs, () => ctx.now());
  const lifecycle = new VersionLifecycle(ctx, jobs);
  const links = new MediaLinks(ctx.config.jwtSecret, ctx.config.publicUrl, ctx.config.mediaUrlTtl, () => ctx.now());
  const exiftool = new ExifToolRunner();
  const writeback = new MetadataWriteback(ctx, store, exiftool);
  const versions = new VersionService(ctx, store, lifecycle, links, writeback);
  const fetcher = createSafeFetcher(policyFromConfig(ctx.config.proxy));
  const proxyLinks = new ProxyLinks(ctx.config.jwtSecret, ctx.config.publicUrl, ctx.config.proxy.urlTtl, () => ctx.now());
  return {
    auth,
    workspaces: new WorkspaceService(ctx),
    catalog: new CatalogService(ctx),
    storage: new StorageService(ctx, store, lifecycle, writeback),
    serverUpload: new ServerUploadService(ctx, store, lifecycle),
    search: new SearchService(ctx, (ids) => versions.currentLinks(ids)),
    social: new SocialAuthService(ctx, auth),
    jobs,
    versions,
    renditions: new RenditionService(ctx, store),
    media: new MediaService(ctx, store, links),
    jobAdmin: new JobAdminService(ctx),
    idempotency: new IdempotencyService(ctx),
    trash: new TrashService(ctx, (ids) => versions.currentLinks(ids)),
    bulk: new BulkService(ctx),
    activity: new ActivityService(ctx),
    exiftool,
    embeddedMetadata: new EmbeddedMetadataService(ctx, store, exiftool),
    imageGeneration: new ImageGenerationService(ctx, jobs),
    imageGenerationRunner: new ImageGenerationRunner(ctx, store, lifecycle, createImageGenerator(ctx.config.imageGen), fetcher),
    fetcher,
    imageProxy: new ImageProxyService(ctx, fetcher, proxyLinks),
  };
}
