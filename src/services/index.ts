import type { AppContext } from '../context.js';
import { AuthService } from './auth-service.js';
import { CatalogService } from './catalog-service.js';
import { WorkspaceService } from './workspace-service.js';
import { StorageService } from './uploads/storage-service.js';
import { ServerUploadService } from './uploads/server-upload-service.js';
import { SearchService } from './search-service.js';
import { OverviewService } from './overview-service.js';
import { SocialAuthService } from './social-auth-service.js';
import { createObjectStore } from '../storage/index.js';
import { JobQueue } from '../jobs/queue.js';
import { lockCandidates } from '../jobs/dialects/index.js';
import { MediaLinks } from '../media/links.js';
import { AnswerCache } from '../domain/answer-cache.js';
import { FreshReads } from './fresh-reads.js';
import { VersionLifecycle } from './version-lifecycle.js';
import { VersionService } from './version-service.js';
import { RenditionService } from './rendition-service.js';
import { MediaService } from './media-service.js';
import { JobAdminService } from './job-admin-service.js';
import { IdempotencyService } from './idempotency-service.js';
import { TrashService } from './trash-service.js';
import { BulkService } from './bulk-service.js';
import { FieldService } from './custom-fields/field-service.js';
import { BulkFieldService } from './custom-fields/bulk-field-service.js';
import { ActivityService } from './activity-service.js';
import { ExifToolRunner } from '../media/exiftool.js';
import { EmbeddedMetadataService } from './embedded-metadata-service.js';
import { FileHashService } from './file-hash-service.js';
import { MetadataWriteback } from './metadata-writeback.js';
import { ImageGenerationService } from './image-generation-service.js';
import { ImageGenerationRunner } from './image-generation-runner.js';
import { createImageGenerator } from '../image-gen/index.js';
import { createSafeFetcher, policyFromConfig, type SafeFetcher } from '../fetcher/index.js';
import { ProxyLinks } from '../media/proxy-links.js';
import { ImageProxyService } from './image-proxy-service.js';
import { ConversionService } from './conversions/conversion-service.js';
import { ConversionRunner } from './conversions/conversion-runner.js';
import { ConversionResults } from './conversions/conversion-results.js';
import { VideoPreviewService } from './video-preview-service.js';
import { ShareService } from './shares/share-service.js';
import { ShareAccessService } from './shares/share-access-service.js';
import { ZipLinks } from '../zip/download-links.js';
import { ZipService } from './zip/zip-service.js';
import { ZipImportService } from './zip/zip-import-service.js';
import { ZipImportRunner } from './zip/zip-import-runner.js';
import { DriveConnections } from './drives/drive-connections.js';
import { DriveAuthService } from './drives/drive-auth-service.js';
import { DriveService } from './drives/drive-service.js';
import { DriveImportService } from './drives/drive-import-service.js';
import { DriveImportRunner } from './drives/drive-import-runner.js';
import { PaymentService } from './payment-service.js';
import { createPaymentProvider } from '../payments/index.js';
import { installWriteGuard } from './access.js';
import { createMailer } from '../mail/index.js';
import { Outbox } from './outbox.js';
import { UnreadableFiles } from './unreadable-files.js';
import { InvitationService } from './invitation-service.js';
import { AccountService } from './account-service.js';
import { UserAdminService } from './user-admin-service.js';
import { assertWritable } from './quota-service.js';
import { SweepGuard } from './sweeps/sweep-guard.js';
import { StorageSweeps } from './sweeps/storage-sweeps.js';
import { OrphanSweep } from './sweeps/orphan-sweep.js';

/** Every service of the app, built once per app with explicit dependencies. */
export interface Services {
  auth: AuthService;
  /** Serialized answers of repeated reads, while the database is unchanged (issue #18; SQLite only). */
  answers: AnswerCache<Buffer>;
  reads: FreshReads;
  workspaces: WorkspaceService;
  catalog: CatalogService;
  storage: StorageService;
  serverUpload: ServerUploadService;
  search: SearchService;
  /** The library's map points and timeline months (issue #27). */
  overview: OverviewService;
  social: SocialAuthService;
  jobs: JobQueue;
  versions: VersionService;
  renditions: RenditionService;
  media: MediaService;
  jobAdmin: JobAdminService;
  idempotency: IdempotencyService;
  trash: TrashService;
  bulk: BulkService;
  fields: FieldService;
  bulkFields: BulkFieldService;
  activity: ActivityService;
  /** The app's ExifTool processes (issue #12): buildApp ends them when the app closes. */
  exiftool: ExifToolRunner;
  embeddedMetadata: EmbeddedMetadataService;
  /** SHA-256 of stored files and duplicate lookups (issue #19). */
  fileHashes: FileHashService;
  imageGeneration: ImageGenerationService;
  /** The job side of image generation: provider requests, assets. */
  imageGenerationRunner: ImageGenerationRunner;
  /** The SSRF-safe fetcher of outside URLs (issue #13), shared by every feature that fetches one. */
  fetcher: SafeFetcher;
  imageProxy: ImageProxyService;
  /** Image and video conversions (issue #15): the endpoints, and the job that converts. */
  conversions: ConversionService;
  conversionRunner: ConversionRunner;
  /** Web-playable MP4 previews of video versions (issue #15). */
  videoPreviews: VideoPreviewService;
  /** Shared links (issue #14): managing them, and what their public routes answer. */
  shares: ShareService;
  shareAccess: ShareAccessService;
  /** ZIP downloads, listing and extraction of stored ZIPs (issue #14). */
  zip: ZipService;
  zipImports: ZipImportService;
  /** The job side of ZIP imports: entries to folders and assets. */
  zipImportRunner: ZipImportRunner;
  /** External drives (issue #16): connecting, browsing, downloading, uploading, importing. */
  driveAuth: DriveAuthService;
  drives: DriveService;
  driveImports: DriveImportService;
  /** The job side of drive imports: drive files to folders and assets. */
  driveImportRunner: DriveImportRunner;
  /** Plans and Stripe billing (issue #17); every operation 404 PAYMENTS_DISABLED without a Stripe key. */
  payments: PaymentService;
  /** E-mail (issue #27, src/mail/): off without DAM_SMTP_URL; buildApp gives it the app's logger. */
  outbox: Outbox;
  /** Tools' failures: their own words to the log, damaged files marked unreadable (issue #27). buildApp sets its log. */
  unreadable: UnreadableFiles;
  /** Workspace invitations (issue #27). */
  invitations: InvitationService;
  /** The user's own password and sessions, password links (issue #27). */
  accounts: AccountService;
  /** Instance administration: accounts and the registration mode (issue #27). */
  userAdmin: UserAdminService;
  /** What housekeeping sweeps may delete unconfirmed, their refusals and an admin's confirmations (issue #37). buildApp sets its log. */
  sweepGuard: SweepGuard;
  /** Housekeeping of the store's side: stale uploads, the files of deleted rows (issue #37: bounded, guarded). */
  storageSweeps: StorageSweeps;
  /** Objects no row accounts for, every DAM_ORPHAN_SWEEP_HOURS (off by default; issue #37). */
  orphanSweep: OrphanSweep;
}

export function buildServices(ctx: AppContext): Services {
  // issue #17: a past_due workspace past its grace period is read-only for every write requireRole checks.
  installWriteGuard(ctx.db, (db, workspaceId) => assertWritable(ctx, db, workspaceId));
  // A body that fails after its download began reaches no error handler: the incident is reported here (issue #37).
  const store = createObjectStore(ctx.config, ctx.db, () => ctx.now(), ctx.secrets, (err) => ctx.faults.report('storage_unavailable', err, 'object body'));
  // Session, memberships and roles of repeated requests, while the database is unchanged (issue #18).
  const reads = new FreshReads(ctx);
  const auth = new AuthService(ctx, reads);
  const jobs = new JobQueue(ctx.db, lockCandidates[ctx.database.dialect], ctx.config.jobs, () => ctx.now());
  const lifecycle = new VersionLifecycle(ctx, jobs);
  const links = new MediaLinks(ctx.secrets, ctx.config.publicUrl, ctx.config.mediaUrlTtl, () => ctx.now());
  const exiftool = new ExifToolRunner();
  const writeback = new MetadataWriteback(ctx, store, exiftool);
  const versions = new VersionService(ctx, store, lifecycle, links, writeback);
  const fetcher = createSafeFetcher(policyFromConfig(ctx.config.proxy));
  const proxyLinks = new ProxyLinks(ctx.secrets, ctx.config.publicUrl, ctx.config.proxy.urlTtl, () => ctx.now());
  const unreadable = new UnreadableFiles(ctx);
  const conversionRunner = new ConversionRunner(ctx, store, new ConversionResults(ctx, store, lifecycle), unreadable);
  const catalog = new CatalogService(ctx);
  const serverUpload = new ServerUploadService(ctx, store, lifecycle);
  const driveConnections = new DriveConnections(ctx);
  const workspaces = new WorkspaceService(ctx);
  const outbox = new Outbox(createMailer(ctx.config.mail));
  const search = new SearchService(ctx, (ids, grant) => versions.currentLinks(ids, grant), reads);
  const accounts = new AccountService(ctx, auth, outbox);
  const sweepGuard = new SweepGuard(ctx);
  return {
    auth,
    reads,
    // Answers kept encoded: a hit is sent without converting its JSON to bytes again.
    answers: new AnswerCache<Buffer>(ctx.database.support.changeToken?.bind(ctx.database.support), () => ctx.now(), undefined, (body) => body.length),
    workspaces,
    catalog,
    storage: new StorageService(ctx, store, lifecycle, writeback),
    serverUpload,
    search,
    overview: new OverviewService(ctx, search),
    social: new SocialAuthService(ctx, auth),
    jobs,
    versions,
    renditions: new RenditionService(ctx, store, unreadable),
    media: new MediaService(ctx, store, links),
    jobAdmin: new JobAdminService(ctx),
    idempotency: new IdempotencyService(ctx),
    trash: new TrashService(ctx, (ids, grant) => versions.currentLinks(ids, grant), sweepGuard),
    bulk: new BulkService(ctx, search),
    fields: new FieldService(ctx),
    bulkFields: new BulkFieldService(ctx, search),
    activity: new ActivityService(ctx),
    exiftool,
    embeddedMetadata: new EmbeddedMetadataService(ctx, store, exiftool),
    fileHashes: new FileHashService(ctx, store, jobs),
    imageGeneration: new ImageGenerationService(ctx, jobs),
    imageGenerationRunner: new ImageGenerationRunner(ctx, store, lifecycle, createImageGenerator(ctx.config.imageGen), fetcher),
    fetcher,
    imageProxy: new ImageProxyService(ctx, fetcher, proxyLinks),
    conversions: new ConversionService(ctx, jobs, conversionRunner),
    conversionRunner,
    videoPreviews: new VideoPreviewService(ctx, store, unreadable),
    shares: new ShareService(ctx),
    shareAccess: new ShareAccessService(ctx, store, links),
    zip: new ZipService(ctx, store, new ZipLinks(ctx.secrets, ctx.config.publicUrl, ctx.config.zip.linkTtl, () => ctx.now())),
    zipImports: new ZipImportService(ctx, store, jobs),
    zipImportRunner: new ZipImportRunner(ctx, store, serverUpload, catalog.folders),
    driveAuth: new DriveAuthService(ctx, driveConnections),
    drives: new DriveService(ctx, store, driveConnections),
    driveImports: new DriveImportService(ctx, driveConnections, jobs),
    driveImportRunner: new DriveImportRunner(ctx, driveConnections, serverUpload, versions, catalog.folders),
    payments: new PaymentService(ctx, createPaymentProvider(ctx.config.payments)),
    outbox,
    unreadable,
    invitations: new InvitationService(ctx, auth, workspaces, outbox),
    accounts,
    userAdmin: new UserAdminService(ctx, auth, accounts, () => outbox.enabled),
    sweepGuard,
    storageSweeps: new StorageSweeps(ctx, store, lifecycle, sweepGuard),
    orphanSweep: new OrphanSweep(ctx, store, sweepGuard),
  };
}
