import Fastify, { type FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppConfig } from './config.js';
import { unixNow, type AppContext } from './context.js';
import { openMigratedDatabase, type DatabaseHandle } from './db/database.js';
import { installAuthHook } from './http/auth-hook.js';
import { installIdempotency } from './http/idempotency.js';
import { installErrorHandler } from './http/error-handler.js';
import { FaultMonitor } from './faults/monitor.js';
import { diskPlaces, diskSpace } from './faults/disk-space.js';
import { Readiness } from './faults/readiness.js';
import { refuseUndeclaredBodies, validatorCompiler } from './http/validation.js';
import { AccessLog, loggerOptions } from './http/logging.js';
import { installBodyDeadlines } from './http/body-deadlines.js';
import { installJsonParser } from './http/json-body.js';
import { trustHops } from './domain/client-address.js';
import { BucketCors, OPEN_CORS_HEADERS, registerOpenPreflight } from './http/cors.js';
import { installUserRateLimit, signInLimits } from './http/rate-limits.js';
import { fastHealthServer } from './http/health-fast-path.js';
import { registerFixedHeaders, securityHeaders } from './http/security-headers.js';
import { storageRoutes } from './routes/uploads/storage.js';
import { storagePartRoutes } from './routes/uploads/storage-parts.js';
import { serverUploadRoutes } from './routes/uploads/server-upload.js';
import { registerOpenApi } from './http/openapi.js';
import { authRoutes } from './routes/auth.js';
import { healthRoutes } from './routes/health.js';
import { workspaceRoutes } from './routes/workspaces.js';
import { catalogRoutes } from './routes/catalog.js';
import { searchRoutes } from './routes/search.js';
import { overviewRoutes } from './routes/overview.js';
import { socialAuthRoutes } from './routes/social-auth.js';
import { registerWebClient } from './routes/web-client.js';
import { TokenSigner } from './services/tokens.js';
import { buildServices } from './services/index.js';
import { startHousekeeping } from './housekeeping.js';
import { versionRoutes } from './routes/versions.js';
import { mediaRoutes } from './routes/media.js';
import { adminJobRoutes } from './routes/admin-jobs.js';
import { adminSweepRoutes } from './routes/admin-sweeps.js';
import { activityRoutes } from './routes/activity.js';
import { browserOsRoutes } from './routes/browser-os.js';
import { phoneNumberRoutes } from './routes/phone-number.js';
import { appAssociationRoutes } from './routes/app-association.js';
import { imageGenerationRoutes } from './routes/image-generation.js';
import { duplicateRoutes } from './routes/duplicates.js';
import { imageProxyRoutes } from './routes/image-proxy.js';
import { conversionRoutes } from './routes/conversions.js';
import { shareRoutes } from './routes/shares/shares.js';
import { sharePublicRoutes } from './routes/shares/share-public.js';
import { zipRoutes } from './routes/zip.js';
import { driveRoutes } from './routes/drives.js';
import { paymentRoutes } from './routes/payments.js';
import { invitationRoutes } from './routes/invitations.js';
import { adminUserRoutes } from './routes/admin-users.js';
import { accountRoutes } from './routes/account.js';
import { createWorker } from './jobs/index.js';
import { AppMetrics, requestMetrics } from './http/metrics.js';
import { metricsRoutes } from './routes/metrics.js';
import { prepareInstance } from './instance.js';
import { rateLimitBackend } from './http/rate-limit-store.js';
import type { JobWorker } from './jobs/worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This process's job worker: started with the app, stopped by close(); tests await `drain()`. */
    jobs: JobWorker;
  }
}

export interface BuildOptions {
  /** An already-open database (tests pass one per file); otherwise opened from config.databaseUrl. */
  database?: DatabaseHandle;
  /** Clock in Unix seconds; tests move it to expire things. */
  now?: () => number;
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them to prove secrets stay out). */
  logStream?: { write(line: string): void };
  /** The built web client to serve at / (default web/dist of this checkout). */
  webDir?: string;
}

/**
 * Builds the whole HTTP application without listening. The caller owns the
 * lifetime: `await app.close()` also closes the database it opened.
 */
export async function buildApp(config: AppConfig, options: BuildOptions = {}): Promise<FastifyInstance> {
  const database = options.database ?? (await openMigratedDatabase(config.databaseUrl, config.database));
  let secrets: AppContext['secrets'];
  try {
    secrets = await prepareInstance(config, database);
  } catch (err) {
    if (!options.database) await database.close();
    throw err;
  }
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    tokens: new TokenSigner(secrets),
    secrets,
    faults: new FaultMonitor(),
    now: options.now ?? unixNow,
  };
  const services = buildServices(ctx);

  const headers = securityHeaders(config);
  // Every API answer's fixed headers: the security headers and the open CORS policy (seed 1).
  const apiHeaders = Object.freeze({ ...headers.api, ...OPEN_CORS_HEADERS });
  // GET /metrics (issue #18): every answer is recorded (by the access log's completion), 404s and refusals included.
  // Issue #37: where the service writes, for /readyz's disk check and GET /metrics' dam_disk_free_bytes.
  const disks = diskPlaces(config);
  const metrics = new AppMetrics({
    database,
    jobStats: () => services.jobs.stats(),
    now: () => ctx.now(),
    answerCache: () => services.answers.stats(),
    faults: () => ctx.faults.stats(),
    sweeps: services.sweepGuard,
    disk: { space: () => diskSpace(disks), minFreeBytes: config.readyMinFreeBytes },
  });
  const readiness = new Readiness({ database, store: services.storage.store, faults: ctx.faults, places: disks, minFreeBytes: config.readyMinFreeBytes });
  const app = Fastify({
    serverFactory: fastHealthServer(apiHeaders),
    // Always a logger ('silent' when the caller wants none): Fastify tells the log controller, which records the
    // request metrics, of an answer only when there is one (or an onResponse hook).
    logger: loggerOptions(options.logger === false ? 'silent' : config.logLevel, options.logStream),
    logController: new AccessLog(requestMetrics(metrics)),
    // A hop count as a function: Fastify 5 refuses to trust any forwarded address for a bare number (issue #28).
    trustProxy: typeof config.trustProxy === 'number' ? trustHops(config.trustProxy) : config.trustProxy,
    bodyLimit: 1024 * 1024,
    // Long enough for every declared path parameter, so an overlong one is a 400 naming it rather than a bare 414.
    routerOptions: { maxParamLength: 1024 },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  // Issue #28: bodies nested absurdly deep are refused before JSON.parse builds them; slow bodies are cut.
  installJsonParser(app);
  installBodyDeadlines(app, { bodyMs: config.bodyTimeoutMs, uploadIdleMs: config.uploadIdleTimeoutMs });
  // One log line per fault incident (issue #37), in this app's log.
  ctx.faults.log = app.log;
  app.addHook('onClose', () => ctx.faults.close());
  // A pooled connection PostgreSQL closed while idle (a restart, a failover) opens the incident too, before any request fails.
  const unheard = database.support.onConnectionError?.((err) => ctx.faults.report('database_unavailable', err, 'database connection'));
  app.addHook('onClose', () => {
    unheard?.();
  });
  // A failed e-mail is logged, never answered as a failure (issue #27).
  services.outbox.log = app.log;
  // Tools' own output (it may name server paths) is logged, never answered (issue #27).
  services.unreadable.log = app.log;
  // A sweep refused for deleting too much is logged once (issue #37).
  services.sweepGuard.log = app.log;
  refuseUndeclaredBodies(app);

  if (!options.database) app.addHook('onClose', () => database.close());
  // DAM_ROLE=api: HTTP only; the worker processes sweep and run jobs (issue #18).
  if (config.role !== 'api') startHousekeeping(app, ctx, services);
  const worker = createWorker(ctx, services, app.log, (kind, outcome, seconds) => metrics.observeJob(kind, outcome, seconds));
  app.decorate('jobs', worker);
  // Before the database closes (onClose): the jobs in flight finish, queued ones stay for the next start.
  app.addHook('preClose', () => worker.stop());
  // After the worker stopped: no job reads a file any more; no ExifTool (Perl) process outlives the app.
  app.addHook('onClose', () => services.exiftool.end());
  if (config.role === 'worker') {
    // DAM_ROLE=worker: jobs and housekeeping; no API, only /healthz and /readyz on PORT for the orchestrator.
    installErrorHandler(app, config.env === 'development', ctx.faults);
    await app.register(healthRoutes, { readiness });
    await app.register(metricsRoutes, { metrics, token: config.metricsToken });
    worker.start();
    return app;
  }

  // seed 1: any origin, any request header, ETag exposed, on preflights and real responses;
  // the local part-upload route applies the stored bucket rules instead (src/http/cors.ts).
  registerOpenPreflight(app);
  const bucketCors = services.storage.store.kind === 'local' ? new BucketCors(() => services.storage.store.getCorsRules()) : undefined;
  services.storage.onCorsChange = () => bucketCors?.invalidate();
  registerFixedHeaders(app, apiHeaders);
  // Counted in PostgreSQL or Redis, so that every process shares each limit (issue #18).
  const rateLimitStore = await rateLimitBackend(config, database, app.log);
  app.addHook('onClose', () => rateLimitStore.close());
  await app.register(rateLimit, { global: false, ...rateLimitStore.options });
  const limits = signInLimits(app, config, rateLimitStore.signInStore);
  installErrorHandler(app, config.env === 'development', ctx.faults);
  installAuthHook(app, services.auth);
  // After the auth hook: counts per authenticated user.
  installUserRateLimit(app, config, rateLimitStore.userStore);
  // Keys are per user; claimed in a route-level preHandler, after every instance-level hook.
  installIdempotency(app, services.idempotency);
  // Before every other route: it reserves their path prefixes from its SPA fallback.
  await registerWebClient(app, { webDir: options.webDir, pageHeaders: headers.page });
  await registerOpenApi(app, config);

  await app.register(healthRoutes, { readiness });
  await app.register(metricsRoutes, { metrics, token: config.metricsToken });
  await app.register(authRoutes, { auth: services.auth, limits });
  await app.register(socialAuthRoutes, { social: services.social, limits });
  await app.register(workspaceRoutes, { services });
  await app.register(catalogRoutes, { services });
  await app.register(searchRoutes, { search: services.search, answers: services.answers });
  await app.register(overviewRoutes, { overview: services.overview, map: config.map });
  await app.register(storageRoutes, { storage: services.storage });
  await app.register(storagePartRoutes, { storage: services.storage, bucketCors, faults: ctx.faults });
  await app.register(serverUploadRoutes, { uploads: services.serverUpload, config });
  await app.register(versionRoutes, { versions: services.versions, config });
  await app.register(mediaRoutes, { media: services.media });
  await app.register(adminJobRoutes, { jobAdmin: services.jobAdmin });
  await app.register(adminSweepRoutes, { guard: services.sweepGuard });
  await app.register(activityRoutes, { activity: services.activity });
  await app.register(browserOsRoutes);
  await app.register(phoneNumberRoutes);
  await app.register(appAssociationRoutes, { config: config.appAssociation });
  await app.register(imageGenerationRoutes, { imageGeneration: services.imageGeneration });
  await app.register(duplicateRoutes, { fileHashes: services.fileHashes });
  await app.register(imageProxyRoutes, { imageProxy: services.imageProxy, config });
  await app.register(conversionRoutes, { conversions: services.conversions });
  await app.register(shareRoutes, { shares: services.shares });
  await app.register(sharePublicRoutes, { access: services.shareAccess, config: config.shares });
  await app.register(zipRoutes, { zip: services.zip, zipImports: services.zipImports, config });
  await app.register(driveRoutes, { driveAuth: services.driveAuth, drives: services.drives, driveImports: services.driveImports });
  await app.register(paymentRoutes, { payments: services.payments });
  await app.register(invitationRoutes, { invitations: services.invitations, limits });
  await app.register(adminUserRoutes, { admin: services.userAdmin });
  await app.register(accountRoutes, { accounts: services.accounts, limits, ctx, mailEnabled: () => services.outbox.enabled });
  if (config.role === 'all') worker.start();

  return app;
}

