import { availableParallelism } from 'node:os';
import { OSM_ATTRIBUTION, OSM_TILE_URL } from '../domain/map-tiles.js';
import { baseUrl, boolean, httpUrl, integer, oneOf, readVar, text, type Env, type ValueOf, type Var } from './declare.js';
import * as format from './formats.js';

/**
 * Every environment variable the service reads, declared once (issue #29): load.ts reads them only through
 * `read` below, and docs/configuration.md and `--help-config` are rendered from this table (docs.ts,
 * `npm run docs:config`; test/config-docs.test.ts fails when the page is stale or a variable is orphaned).
 * Descriptions are Markdown; the type, range and default are written by the constructors (declare.ts).
 */

export interface Section {
  readonly id: string;
  readonly title: string;
  /** Markdown shown under the section's heading. */
  readonly intro?: string;
}

export const SECTIONS: readonly Section[] = [
  { id: 'server', title: 'Server' },
  { id: 'data', title: 'Data and database' },
  { id: 'accounts', title: 'Accounts and sessions' },
  { id: 'rate-limits', title: 'Rate limits', intro: 'The limits of shared links and of the image proxy are in their own sections.' },
  {
    id: 'mail',
    title: 'E-mail',
    intro:
      'Invitations, "added to a workspace" notices, password resets and account-setup links are e-mailed through SMTP (nodemailer). ' +
      'Without `DAM_SMTP_URL` no e-mail is sent: invitation and setup links are answered to the admin to pass on, and forgotten-password links are off.',
  },
  { id: 'storage', title: 'Storage and uploads' },
  { id: 'jobs', title: 'Background jobs', intro: 'Thumbnails, previews and conversions run as jobs of a queue kept in the database.' },
  { id: 'media', title: 'Previews and conversions' },
  { id: 'library', title: 'Trash, search and the map' },
  { id: 'shares', title: 'Shared links' },
  { id: 'zip', title: 'ZIP archives' },
  {
    id: 'proxy',
    title: 'Outside URLs and the image proxy',
    intro: 'The image proxy and every other fetch of an outside URL (for example generated images answered as URLs) go through the same checks and limits.',
  },
  { id: 'image-gen', title: 'Image generation', intro: 'AI image generation through an OpenAI-compatible Images API, off unless `DAM_IMAGE_GEN_API_KEY` is set.' },
  {
    id: 'social',
    title: 'Sign in with Google',
    intro: 'Off unless `DAM_SOCIAL_GOOGLE_CLIENT_ID` is set. See "Sign in with Google" in [features/teams.md](features/teams.md) for the Google Cloud side.',
  },
  {
    id: 'drives',
    title: 'External drives',
    intro:
      'Each provider is off unless its client id (Dropbox: app key) is set; while it is off, its routes (`/drive-ext-N/...`) answer 404 `DRIVE_NOT_CONFIGURED`. ' +
      'Every `*_URL` of a drive is a base URL: scheme, host, port and an optional path prefix, no query; they default to the provider\'s own. ' +
      'Client secrets are sent only to the provider\'s token endpoint, never shown or logged. Setting up each provider: [features/drives.md](features/drives.md).',
  },
  { id: 'payments', title: 'Plans and payments', intro: 'Plans, Stripe and the limits they set: [features/payments.md](features/payments.md).' },
  {
    id: 'apps',
    title: 'Mobile apps',
    intro:
      "Universal links (iOS) and App Links (Android) open share and asset pages in the apps, which may also use the site's saved passwords: " +
      '[features/app-links.md](features/app-links.md).',
  },
];

const DAY = 24 * 3600;

export const VARS = {
  // --- Server
  PORT: integer({ section: 'server', default: 8080, min: 0, max: 65_535, description: 'HTTP port.' }),
  HOST: text({ section: 'server', default: '0.0.0.0', description: 'Address to listen on.' }),
  NODE_ENV: oneOf({
    section: 'server',
    values: ['development', 'production', 'test'],
    default: 'production',
    description: '`development` adds `stack` to 500 answers.',
  }),
  LOG_LEVEL: oneOf({
    section: 'server',
    values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    description:
      'pino log level. At `info` one access line per answer (method, URL with secrets cut, address, status, time), none for `/healthz`, `/readyz` and `/metrics`.',
  }),
  DAM_PUBLIC_URL: httpUrl({
    section: 'server',
    trimSlash: true,
    defaultNote: '`http://localhost:$PORT`',
    description:
      "Base URL clients reach this server at (the OpenAPI document's `servers`); presigned part URLs of the local store are built on it. " +
      "When it is `https://`, answers carry `Strict-Transport-Security` and the web client's Content-Security-Policy upgrades insecure requests.",
  }),
  DAM_ROLE: oneOf({
    section: 'server',
    values: ['all', 'api', 'worker'],
    default: 'all',
    description:
      '`all`: API, background jobs and housekeeping. `api`: HTTP only. `worker`: jobs and housekeeping, answering only `/healthz`, `/readyz` and `/metrics` on `PORT`. ' +
      'See "Several processes" in [install.md](install.md).',
  }),
  DAM_TRUST_PROXY: text({
    section: 'server',
    default: 'false',
    format: '`false`, `true` (one proxy), a hop count from 1 to 10, or a comma list of proxy addresses/CIDRs',
    parse: format.trustProxy,
    description:
      'Whose `X-Forwarded-For` to believe for the client address (rate limits, logs). The address taken is the rightmost entry that no trusted proxy wrote ' +
      '(the leftmost is whatever the client sent): give the number of proxies in front (`true` means `1`), or the proxies\' addresses. ' +
      'Leave `false` unless a reverse proxy sets the header (anyone could forge it); with `true` behind two proxies, every client looks like the outer proxy.',
  }),
  DAM_METRICS_TOKEN: text({
    section: 'server',
    secret: true,
    defaultNote: 'unset (loopback clients only)',
    format: '16 to 512 characters without whitespace',
    parse: format.metricsToken,
    description: 'Bearer token that `GET /metrics` requires. Unset, `/metrics` answers loopback clients only (403 to others).',
  }),
  DAM_BODY_TIMEOUT: integer({
    section: 'server',
    default: 30,
    min: 1,
    max: 3600,
    unit: 'seconds',
    description:
      'Seconds a request may take to send an ordinary (non-file) body; a slower one gets 408 and its connection is closed. Headers must arrive within 30 s.',
  }),
  DAM_UPLOAD_IDLE_TIMEOUT: integer({
    section: 'server',
    default: 60,
    min: 1,
    max: 3600,
    unit: 'seconds',
    description: 'Seconds a part or file upload may go without sending a byte (slow but steady uploads are never cut).',
  }),

  // --- Data and database
  DAM_DATA_DIR: text({
    section: 'data',
    type: 'path',
    default: './data',
    parse: format.resolvedPath,
    description:
      'Where the SQLite database, stored objects (local store), the generated JWT secret (SQLite) and the `instance-id` marker live; ' +
      'relative to the working directory. Several processes on the local store must share it.',
  }),
  DATABASE_URL: text({
    section: 'data',
    type: 'url',
    secret: true,
    defaultNote: '`sqlite:$DAM_DATA_DIR/dam.sqlite`',
    format: '`sqlite:<path>` or `postgres://user:pass@host:port/db` (`postgresql://` too)',
    parse: format.databaseUrl,
    description: 'The database: SQLite (one machine) or PostgreSQL (needed to run several processes). See "PostgreSQL, S3 and Redis" in [install.md](install.md).',
  }),
  DAM_DB_CONNECT_TIMEOUT: integer({
    section: 'data',
    default: 5,
    min: 1,
    max: 300,
    unit: 'seconds',
    description:
      'PostgreSQL: the longest a request, job or sweep waits for a database connection, a new one or a free one of the pool (10 per process). ' +
      'Past it, and at once when PostgreSQL refuses connections (restarting, failing over), requests answer 503 `DATABASE_UNAVAILABLE` with `Retry-After` ' +
      'and jobs wait without using an attempt. See "Faults" in [operations.md](operations.md).',
  }),
  DAM_DB_STATEMENT_TIMEOUT: integer({
    section: 'data',
    default: 30,
    min: 0,
    max: 3600,
    unit: 'seconds',
    description:
      "PostgreSQL: `statement_timeout` of the service's connections; a statement running longer (a lock held by a stuck transaction included) is " +
      'cancelled and the request answers 503 `DATABASE_UNAVAILABLE`. The service gives up waiting 5 s after it (a server gone without closing the ' +
      'connection) and opens a new connection. Migrations run without it. `0`: none.',
  }),
  DAM_REDIS_URL: text({
    section: 'data',
    type: 'url',
    secret: true,
    defaultNote: 'unset (off)',
    format: 'a `redis://` or `rediss://` URL',
    parse: format.redisUrl,
    description:
      'Rate-limit counters in Redis (ioredis, keys `dam-rate-limit-*`, one per window with its expiry) instead of PostgreSQL (or, on SQLite, process memory), ' +
      'the per-user limit included.\n\n' +
      'Redis down, hanging or unreachable at start never refuses or stalls a request: a request waits at most 0.5 s for Redis, then every limit is counted as without ' +
      '`DAM_REDIS_URL` (PostgreSQL: shared in the database; SQLite: in each process) until Redis answers again (retried in the background, and by one request every 2 s), ' +
      'counts restarting from zero on each switch. The process logs one warning when Redis fails (URL without its password) and one line when it is back, ' +
      'and starts when Redis is unreachable.',
  }),
  DAM_READY_MIN_FREE_BYTES: integer({
    section: 'data',
    default: 512 * 1024 ** 2,
    min: 0,
    unit: 'bytes',
    description:
      'Free space `GET /readyz` requires on the file system of `$DAM_DATA_DIR` (and of its `tmp/` and `storage/` when they are mounts of their own); ' +
      'below it the process answers 503 naming the disk, so that a load balancer stops sending it uploads before the disk is full. `0`: the check is off ' +
      '(the free space is still shown, and on `GET /metrics` as `dam_disk_free_bytes`).',
  }),

  // --- Accounts and sessions
  DAM_JWT_SECRET: text({
    section: 'accounts',
    secret: true,
    defaultNote: 'unset (generated once and kept)',
    format: 'at least 32 characters',
    parse: format.signingSecret,
    description:
      'Signs session tokens, signed URLs and share tokens, and keys the encryption of drive tokens. When set, the same on every process.\n\n' +
      'Unset, it is generated once: on SQLite kept in `$DAM_DATA_DIR/jwt-secret`; on PostgreSQL kept in the database and read by every process.',
  }),
  DAM_JWT_SECRET_PREVIOUS: text({
    section: 'accounts',
    type: 'list',
    secret: true,
    defaultNote: 'unset (none)',
    format: 'a comma list of at most 8 secrets, each at least 32 characters',
    parse: format.previousSecrets,
    description:
      'Rotation: retired secrets that still verify (never sign) for a grace period. See "Several processes" in [install.md](install.md).',
  }),
  DAM_SESSION_TTL: integer({ section: 'accounts', default: 7 * DAY, min: 60, unit: 'seconds', description: 'Session token lifetime in seconds.' }),
  DAM_ALLOW_REGISTRATION: boolean({
    section: 'accounts',
    default: false,
    description:
      'The registration mode until an instance admin sets one (`PATCH /admin/settings`): `true` is `open` (anyone may register), ' +
      '`false` is `invite` (accounts come from invitations and admins). The first user may always register ([teams](features/teams.md#registration-modes)).',
  }),
  DAM_INVITE_TTL: integer({
    section: 'accounts',
    default: 7 * DAY,
    min: 60,
    unit: 'seconds',
    description: 'Seconds a workspace invitation link and an account-setup link (made by an instance admin) stay valid.',
  }),
  DAM_MAX_WORKSPACES_PER_USER: integer({
    section: 'accounts',
    default: 10,
    min: 0,
    max: 1_000_000,
    description:
      'Workspaces one account may create (its personal workspace included; deleted ones do not count), since each has its own plan and free quota; ' +
      'past it `POST /workspaces` answers 403 `WORKSPACE_LIMIT_REACHED`. `0`: no limit. Instance admins are not limited.',
  }),

  // --- Rate limits
  DAM_LOGIN_RATE_LIMIT: integer({
    section: 'rate-limits',
    default: 10,
    min: 1,
    description:
      'Failed sign-in attempts per window and client address (an IPv6 address counts by its /64): login, registration, the social-login callback ' +
      'and the password and invitation forms share one count; successful attempts are not counted, but all attempts are limited to ten times this.\n\n' +
      'Failures per account never refuse (that would let anyone keep an owner out): past this number they hold each further sign-in of the account back, ' +
      'from 250 ms doubling to 5 s.',
  }),
  DAM_LOGIN_RATE_WINDOW: integer({ section: 'rate-limits', default: 15 * 60, min: 1, unit: 'seconds', description: 'Window of the sign-in limit in seconds.' }),
  DAM_USER_RATE_LIMIT: integer({
    section: 'rate-limits',
    default: 1200,
    min: 1,
    description:
      'Requests per window per authenticated user (every route that needs a token), counted in each process (in Redis with `DAM_REDIS_URL`); ' +
      'over it, 429 `RATE_LIMITED` with `Retry-After`.',
  }),
  DAM_USER_RATE_WINDOW: integer({ section: 'rate-limits', default: 60, min: 1, unit: 'seconds', description: 'Window of the per-user limit in seconds.' }),

  // --- E-mail
  DAM_SMTP_URL: text({
    section: 'mail',
    type: 'url',
    secret: true,
    defaultNote: 'unset (no e-mail is sent)',
    format: '`smtp://user:pass@host:587` or `smtps://user:pass@host:465`',
    parse: format.smtpUrl,
    description:
      'The SMTP server. `smtp://` uses STARTTLS when the server offers it (add `?requireTLS=true` to insist on it); `smtps://` speaks TLS from the start. ' +
      'Percent-encode special characters of the user and password; the password is never shown or logged.\n\n' +
      'Each send waits at most 10 s per step (connect, greeting, each answer) and 30 s in all; a failed send never fails the request (`emailed: false`).',
  }),
  DAM_SMTP_FROM: text({
    section: 'mail',
    onlyWith: 'DAM_SMTP_URL',
    defaultNote: '`DAM <no-reply@host of DAM_PUBLIC_URL>`',
    format: 'an address, optionally after a name',
    parse: format.mailFrom,
    description: 'From of the e-mails, e.g. `Acme Assets <assets@acme.example>`.',
  }),

  // --- Storage and uploads
  DAM_STORAGE: oneOf({
    section: 'storage',
    values: ['local', 's3'],
    default: 'local',
    description: 'Where objects are stored: `local` (files under `$DAM_DATA_DIR/storage`) or `s3` (an S3 bucket; see "PostgreSQL, S3 and Redis" in [install.md](install.md)).',
  }),
  DAM_S3_BUCKET: text({ section: 'storage', onlyWith: 'DAM_STORAGE=s3', description: 'Bucket name; required with `DAM_STORAGE=s3`.' }),
  DAM_S3_ENDPOINT: httpUrl({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    defaultNote: "unset (AWS's own)",
    description: 'Endpoint of an S3-compatible store, e.g. `http://minio:9000`.',
  }),
  DAM_S3_REGION: text({ section: 'storage', onlyWith: 'DAM_STORAGE=s3', default: 'us-east-1', description: 'Region of the bucket.' }),
  DAM_S3_ACCESS_KEY_ID: text({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    defaultNote: "the AWS SDK's default credential chain",
    description: 'Access key id of the credentials.',
  }),
  DAM_S3_SECRET_ACCESS_KEY: text({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    secret: true,
    defaultNote: "the AWS SDK's default credential chain",
    description: 'Secret access key of the credentials.',
  }),
  DAM_S3_FORCE_PATH_STYLE: boolean({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    default: false,
    description: 'Path-style addressing (MinIO, Ceph, s3rver).',
  }),
  DAM_S3_MAX_ATTEMPTS: integer({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    default: 3,
    min: 1,
    max: 10,
    description:
      'Attempts per S3 request, the first included: a 5xx, `SlowDown`, a reset connection or a timeout is tried again after an exponential backoff with jitter ' +
      "(the SDK's retry quota stops retrying while most attempts fail). When the last attempt fails, the request is answered 503 `STORAGE_UNAVAILABLE` " +
      'with `Retry-After`, and a job waits and runs again. See "The object store errs, stalls or loses packets" in [operations.md](operations.md).',
  }),
  DAM_S3_RETRY_MODE: oneOf({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    values: ['standard', 'adaptive'],
    default: 'standard',
    description:
      "The AWS SDK's retry mode: `standard` (backoff with jitter and a retry quota) or `adaptive` (the same, and a client-side rate limit that slows down while the store answers `SlowDown`).",
  }),
  DAM_S3_CONNECT_TIMEOUT: integer({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    default: 5,
    min: 1,
    max: 300,
    unit: 'seconds',
    description: 'Seconds to open a connection to the store before the attempt counts as failed (and is retried).',
  }),
  DAM_S3_REQUEST_TIMEOUT: integer({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    default: 30,
    min: 1,
    max: 3600,
    unit: 'seconds',
    description:
      'Seconds an S3 request may go without a byte moving (sending its body, waiting for the answer, reading it) before the attempt counts as failed; ' +
      'an object streamed to a client (a download) is cut after this long without a byte from the store while the client is waiting for one. ' +
      'A request to a stalled store therefore fails after about `DAM_S3_MAX_ATTEMPTS` times this.',
  }),
  DAM_S3_MAX_SOCKETS: integer({
    section: 'storage',
    onlyWith: 'DAM_STORAGE=s3',
    default: 50,
    min: 1,
    max: 1000,
    description: 'Connections to the store this process keeps at most (reused, keep-alive); further requests wait for one.',
  }),
  DAM_UPLOAD_TTL: integer({
    section: 'storage',
    default: DAY,
    min: 60,
    unit: 'seconds',
    description: 'Seconds an untouched upload is kept before it is aborted with its parts.',
  }),
  DAM_UPLOAD_MAX_LIFETIME: integer({
    section: 'storage',
    default: 7 * DAY,
    min: 60,
    unit: 'seconds',
    description:
      'Seconds from `start-upload` after which an unfinished upload gets no more part URLs (410 `UPLOAD_EXPIRED`) and is aborted with its parts by housekeeping, ' +
      'however recently it was touched; part URLs never outlive it.',
  }),
  DAM_PART_URL_TTL: integer({
    section: 'storage',
    default: 3600,
    min: 1,
    // S3 signs a presigned URL for at most 7 days.
    max: 7 * DAY,
    unit: 'seconds',
    description:
      "Seconds a presigned part URL (`get-upload-url`) stays valid (at most S3's own maximum of 7 days), never past the upload's lifetime. " +
      'An expired one answers S3\'s 403 `AccessDenied` "Request has expired", on which S3 clients (Uppy, the AWS SDKs) ask for a new URL.',
  }),
  DAM_MIN_PART_SIZE: integer({
    section: 'storage',
    default: 5 * 1024 * 1024,
    min: 1,
    unit: 'bytes',
    description:
      'Smallest part but the last, on both stores (S3 keeps its own 5 MiB minimum); `start-upload` answers it as `minPartSize` and the web client cuts its parts to at least that.',
  }),
  DAM_MAX_FILE_SIZE: integer({ section: 'storage', default: 5 * 1024 ** 3, min: 1, unit: 'bytes', description: 'Largest file.' }),

  // --- Background jobs
  DAM_JOB_CONCURRENCY: integer({
    section: 'jobs',
    default: availableParallelism(),
    defaultNote: 'the number of CPUs',
    min: 0,
    max: 256,
    description:
      'Background jobs (thumbnails, previews) this process runs at once; `0` makes an API-only process. While the process is answering uploads ' +
      '(one within the last second) it runs one job at a time, so a bulk import\'s requests get the cores; the backlog runs at full width when the uploads pause.',
  }),
  DAM_JOB_POLL_INTERVAL: integer({
    section: 'jobs',
    default: 1000,
    min: 10,
    unit: 'milliseconds',
    description: 'Milliseconds between polls for jobs when idle; jobs queued in the same process wake it at once.',
  }),
  DAM_JOB_LEASE: integer({
    section: 'jobs',
    default: 300,
    min: 10,
    unit: 'seconds',
    description: 'Seconds a claimed job is held without a heartbeat before another worker may take it.',
  }),
  DAM_JOB_MAX_ATTEMPTS: integer({ section: 'jobs', default: 5, min: 1, max: 100, description: 'Runs before a job is marked failed.' }),
  DAM_JOB_RETRY_BASE: integer({
    section: 'jobs',
    default: 10,
    min: 1,
    unit: 'seconds',
    description: 'First retry delay in seconds, doubled on each retry (capped at an hour).',
  }),

  // --- Previews and conversions
  FFMPEG_PATH: text({
    section: 'media',
    type: 'path',
    defaultNote: '`ffmpeg` on `PATH`',
    description:
      'ffmpeg for video poster frames, video previews and video/audio conversions (Debian: `apt-get install ffmpeg`); its `ffprobe` is looked for beside it, else on `PATH`. ' +
      'Without them videos get no poster or preview and video conversions fail saying so; nothing else fails.',
  }),
  PDFTOPPM_PATH: text({
    section: 'media',
    type: 'path',
    defaultNote: '`pdftoppm` on `PATH`',
    description:
      "poppler-utils' `pdftoppm` (Debian: `apt-get install poppler-utils`) for the thumbnail and preview of a PDF's first page; its sibling `pdfinfo` counts the pages (`page_count`). " +
      'Without it PDFs get no preview and nothing fails.',
  }),
  DAM_LIBREOFFICE_PATH: text({
    section: 'media',
    type: 'path',
    defaultNote: 'unset (off)',
    description:
      "LibreOffice's `soffice` (e.g. `/usr/bin/soffice`): office documents (docx, xlsx, pptx, odt, ods, odp, doc, xls, ppt, rtf) are converted to PDF headless " +
      'for their preview and page count. Needs `pdftoppm` too. Unset: they keep their file-type icon.',
  }),
  DAM_VIDEO_PREVIEWS: boolean({
    section: 'media',
    default: true,
    description:
      'Make a web-playable MP4 preview (H.264 + AAC, within 720p) of every uploaded video that browsers cannot play as it is; `false` makes none (`video_preview` is null).',
  }),
  DAM_CONVERT_MAX_PIXELS: integer({
    section: 'media',
    default: 100_000_000,
    min: 1,
    max: 1_000_000_000,
    description:
      "Largest image (width × height, also of the result) an image conversion decodes: sharp's `limitInputPixels`. A larger one is refused before any pixel is decoded " +
      '(422 `CONVERSION_UNSUPPORTED` when the upload measured it, else the conversion fails).',
  }),
  DAM_CONVERT_TIMEOUT: integer({
    section: 'media',
    default: 3600,
    min: 10,
    max: 7 * DAY,
    unit: 'seconds',
    description: 'Seconds one ffmpeg run of a conversion or video preview may take; then it is stopped and retried like any failed job.',
  }),
  DAM_MEDIA_URL_TTL: integer({
    section: 'media',
    default: 3600,
    min: 60,
    unit: 'seconds',
    description: 'Minimum lifetime in seconds of the signed thumbnail, preview and file URLs (`thumbnail_url`, `file_url`, previews).',
  }),

  // --- Trash, search and the map
  DAM_TRASH_DAYS: integer({
    section: 'library',
    default: 30,
    min: 0,
    max: 36_500,
    unit: 'days',
    description:
      "Days a deleted asset, folder or collection stays in its workspace's trash (restorable, files still stored) before housekeeping deletes it for good and removes its files; " +
      '`0` purges at the next run (within a minute).',
  }),
  DAM_SWEEP_MAX_PERCENT: integer({
    section: 'library',
    default: 25,
    min: 1,
    max: 100,
    description:
      'The largest share of a workspace one housekeeping sweep deletes (expired trash, stale uploads, queued object deletions, orphaned objects) ' +
      'without an instance admin\'s confirmation (issue #37). A sweep that would delete more is refused: logged once with what it would delete, ' +
      'counted in `dam_sweep_refusals_total`, listed by `GET /admin/sweeps` and done only once confirmed with `POST /admin/sweeps/{sweep}/confirm`. ' +
      '`100` turns the check off. See "Sweeps never delete in bulk by accident" in [operations.md](operations.md).',
  }),
  DAM_SWEEP_MIN_COUNT: integer({
    section: 'library',
    default: 100,
    min: 0,
    max: 1_000_000_000,
    description: 'A sweep deleting fewer than this many items of a workspace always acts, whatever their share (a small workspace may empty its trash).',
  }),
  DAM_SWEEP_BATCH: integer({
    section: 'library',
    default: 500,
    min: 1,
    max: 1_000_000,
    description: 'The most items each housekeeping sweep deletes per run (every minute); the rest waits for the next runs.',
  }),
  DAM_ORPHAN_SWEEP_HOURS: integer({
    section: 'library',
    default: 0,
    min: 0,
    max: 8_760,
    description:
      'Every this many hours, list the object store and delete objects of the asset layout that no row accounts for and that are older than a day ' +
      '(what `npm run admin -- verify` calls orphans). `0` (the default): never; orphans cost only storage, and after restoring an older database ' +
      'they are the files of the rows lost, so turn it on only where the database is never restored apart from the store.',
  }),
  DAM_SEARCH_FACET_SAMPLE: integer({
    section: 'library',
    default: 5_000,
    min: 1,
    max: 10_000_000,
    description:
      'Search facet counts (`facet_by`) are exact up to this many matches; a result with more is counted over an even sample of about this many matches ' +
      'and the counts scaled to the result (`sampled: true`). Higher is more exact and slower (see [benchmarks.md](benchmarks.md)).',
  }),
  DAM_BULK_SEARCH_MAX: integer({
    section: 'library',
    default: 10_000,
    min: 1,
    max: 1_000_000,
    description:
      'The most assets one search-based bulk action (`POST /dam/assets/bulk` with `search`) acts on; a search matching more (after `except_ids`) ' +
      'is refused with 422 `BULK_TOO_MANY_MATCHES` naming both numbers.',
  }),
  DAM_MAP_TILE_URL: text({
    section: 'library',
    type: 'url',
    default: OSM_TILE_URL,
    format: 'a Leaflet URL template with `{z}`, `{x}` and `{y}`, optionally `{s}` and `{r}`',
    parse: format.tileUrl,
    description:
      "Tiles of the library's Map view. `{s}` may be the first label of the host (any subdomain), `{r}` becomes `@2x` on high-density screens. " +
      "Browsers load the tiles from there directly, so the web client's Content-Security-Policy allows images from this origin (and no other map origin).\n\n" +
      "OpenStreetMap's own servers are for light use ([tile usage policy](https://operations.osmfoundation.org/policies/tiles/)): " +
      'a busy instance points this at its own or a commercial tile server.',
  }),
  DAM_MAP_ATTRIBUTION: text({
    section: 'library',
    default: OSM_ATTRIBUTION,
    format: 'HTML, at most 1000 characters',
    parse: format.attribution,
    description:
      "The credit the map shows in its corner, as HTML (links allowed; the client's CSP runs no script or event handler in it). " +
      'Set it with a tile server whose data or licence asks for another credit.',
  }),

  // --- Shared links
  DAM_SHARE_RATE_LIMIT: integer({
    section: 'shares',
    default: 300,
    min: 1,
    description:
      'Requests per minute per client address to the public shared-link routes (`/shared/public/...`), counted across processes on PostgreSQL; ' +
      'over it, 429 `RATE_LIMITED` with `Retry-After`.',
  }),
  DAM_SHARE_LINK_RATE_LIMIT: integer({
    section: 'shares',
    default: 1200,
    min: 1,
    description: 'Requests per minute to one shared link from all addresses together, counted across processes on PostgreSQL.',
  }),
  DAM_SHARE_TOKEN_TTL: integer({
    section: 'shares',
    default: 3600,
    min: 60,
    max: 7 * DAY,
    unit: 'seconds',
    description: 'Seconds a share-access token (what unlocking a password-protected link with `POST /shared/public/:key/unlock` answers) stays valid.',
  }),
  DAM_SHARE_LOG_DAYS: integer({
    section: 'shares',
    default: 365,
    min: 0,
    max: 36_500,
    unit: 'days',
    description: "Days a shared link's access log keeps each entry (addresses and user agents are personal data); `0` keeps them as long as the link.",
  }),

  // --- ZIP archives
  DAM_ZIP_DOWNLOAD_MAX_ENTRIES: integer({
    section: 'zip',
    default: 100_000,
    min: 1,
    max: 10_000_000,
    description:
      'Files and folders one ZIP download (`GET /zip/download`) may hold; more is 422 `ZIP_TOO_MANY_ENTRIES` before the first byte. Past 65,535 the archive uses ZIP64 end records.\n\n' +
      'Writing is linear in the entries and yields to other requests as it goes: on the 2-core reference machine 100,000 empty folders stream in 10 s ' +
      '(about 0.1 ms each, first byte 0.6 s) and 100,000 tiny files in 148 s (about 1.5 ms each, mostly reading each object from the store); see [benchmarks.md](benchmarks.md).',
  }),
  DAM_ZIP_MAX_ENTRIES: integer({
    section: 'zip',
    default: 10_000,
    min: 1,
    max: 10_000_000,
    description: 'Entries a stored ZIP may have to be imported (`POST /zip/extract`); more is 422 `ZIP_LIMIT_EXCEEDED` (`limit: entries`).',
  }),
  DAM_ZIP_MAX_UNCOMPRESSED: integer({
    section: 'zip',
    default: 10 * 1024 ** 3,
    min: 1,
    unit: 'bytes',
    description:
      'Bytes one import may inflate in all, counted as they are written (not as declared): an archive declaring more is refused at once ' +
      '(422 `ZIP_LIMIT_EXCEEDED`, `limit: bytes`), and past the budget the remaining files are skipped (`limit`). ' +
      'Also the largest entry `GET /zip/extract` sends. Files over `DAM_MAX_FILE_SIZE` are skipped (`too_large`).',
  }),
  DAM_ZIP_MAX_RATIO: integer({
    section: 'zip',
    default: 100,
    min: 1,
    max: 1_000_000,
    description:
      'Largest ratio of inflated to compressed bytes of one ZIP entry, checked on the bytes actually inflated once past 1 MiB (a small, very compressible file is no bomb): ' +
      'over it the entry is skipped (`limit`) on import and refused (422, or the connection cut once sending) by `GET /zip/extract`. ' +
      "An import also inflates at most this many times the whole archive's size (at least 1 MiB); files past that are skipped (`limit`).",
  }),
  DAM_ZIP_LINK_TTL: integer({
    section: 'zip',
    default: 300,
    min: 10,
    max: DAY,
    unit: 'seconds',
    description: 'Seconds a signed ZIP download URL (`POST /zip/link`) stays valid. It is checked when the download starts (a longer download runs to its end).',
  }),

  // --- Outside URLs and the image proxy
  DAM_PROXY_MAX_BYTES: integer({
    section: 'proxy',
    default: 20 * 1024 * 1024,
    min: 1024,
    unit: 'bytes',
    description: 'Largest image the image proxy (and every other fetch of an outside URL) downloads, counted while it arrives; over it, 413 `PROXY_IMAGE_TOO_LARGE`.',
  }),
  DAM_PROXY_PORTS: text({
    section: 'proxy',
    type: 'list',
    default: '80,443',
    format: 'a comma list of ports (1 to 65535)',
    parse: format.ports,
    description: 'Ports an outside URL may name.',
  }),
  DAM_PROXY_ALLOW_HOSTS: text({
    section: 'proxy',
    type: 'list',
    defaultNote: 'unset (none)',
    format: 'a comma list of `host:port` pairs',
    parse: format.hostPorts,
    description:
      'For tests and intranets: exact `host:port` pairs (e.g. `intranet.example:8080,127.0.0.1:9000,[::1]:80`, the host as a URL writes it) fetched whatever address ' +
      'they resolve to, loopback and private ones included. Everything else must resolve to public addresses only.',
  }),
  DAM_PROXY_TIMEOUT: integer({
    section: 'proxy',
    default: 10,
    min: 1,
    max: 600,
    unit: 'seconds',
    description: 'Seconds one outside fetch may take in all (connect, redirects, body); then 502 `PROXY_FETCH_FAILED`.',
  }),
  DAM_PROXY_URL_TTL: integer({
    section: 'proxy',
    default: 3600,
    min: 60,
    max: 7 * DAY,
    unit: 'seconds',
    description: 'Minimum lifetime in seconds of a signed image-proxy URL (`POST /api/image-proxy/sign`).',
  }),
  DAM_PROXY_RATE_LIMIT: integer({
    section: 'proxy',
    default: 600,
    min: 1,
    description: 'Image-proxy requests per minute per user (token requests and signing) and per client address (signed URLs); over it, 429 `RATE_LIMITED`.',
  }),

  // --- Image generation
  DAM_IMAGE_GEN_API_KEY: text({
    section: 'image-gen',
    secret: true,
    defaultNote: 'unset (off)',
    description:
      'API key of an OpenAI-compatible Images API; turns on `POST /generate-image` (without it, 404 `IMAGE_GEN_NOT_CONFIGURED`). Sent only to that API (as `Authorization: Bearer`), never shown or logged.',
  }),
  DAM_IMAGE_GEN_URL: httpUrl({
    section: 'image-gen',
    onlyWith: 'DAM_IMAGE_GEN_API_KEY',
    trimSlash: true,
    default: 'https://api.openai.com/v1',
    description: 'Base URL of the Images API, up to its version (`{url}/images/generations` is called), e.g. a self-hosted compatible server.',
  }),
  DAM_IMAGE_GEN_MODEL: text({
    section: 'image-gen',
    onlyWith: 'DAM_IMAGE_GEN_API_KEY',
    default: 'dall-e-3',
    description: "Model asked for (`dall-e-2`, `dall-e-3`, `gpt-image-1`, or the compatible server's name); recorded in each image's metadata.",
  }),
  DAM_IMAGE_GEN_RESPONSE_FORMAT: oneOf({
    section: 'image-gen',
    onlyWith: 'DAM_IMAGE_GEN_API_KEY',
    values: ['b64_json', 'url', 'omit'],
    default: 'b64_json',
    description:
      'How images come back: `b64_json` (in the answer), `url` (fetched like any outside URL, under the `DAM_PROXY_*` limits), ' +
      'or `omit` (the `response_format` parameter is not sent: the GPT image models refuse it and answer base64).',
  }),
  DAM_IMAGE_GEN_DAILY_LIMIT: integer({
    section: 'image-gen',
    onlyWith: 'DAM_IMAGE_GEN_API_KEY',
    default: 50,
    min: 1,
    max: 1_000_000,
    description: 'Images a workspace may ask for per UTC day (failed generations count); over it, 429 `IMAGE_GEN_DAILY_LIMIT`.',
  }),
  DAM_IMAGE_GEN_TIMEOUT: integer({
    section: 'image-gen',
    onlyWith: 'DAM_IMAGE_GEN_API_KEY',
    default: 120,
    min: 1,
    max: 3600,
    unit: 'seconds',
    description: 'Seconds one request to the Images API may take; then it is retried like an outage.',
  }),

  // --- Sign in with Google
  DAM_SOCIAL_GOOGLE_CLIENT_ID: text({
    section: 'social',
    defaultNote: 'unset (off)',
    description: 'OAuth client id of a Google "Web application" client; turns on "Sign in with Google".',
  }),
  DAM_SOCIAL_GOOGLE_AUTHORIZE_URL: httpUrl({
    section: 'social',
    onlyWith: 'DAM_SOCIAL_GOOGLE_CLIENT_ID',
    default: 'https://accounts.google.com/o/oauth2/v2/auth',
    description: 'Where the browser signs in (OAuth 2.0 implicit flow, `response_type=token`).',
  }),
  DAM_SOCIAL_GOOGLE_TOKENINFO_URL: httpUrl({
    section: 'social',
    onlyWith: 'DAM_SOCIAL_GOOGLE_CLIENT_ID',
    default: 'https://oauth2.googleapis.com/tokeninfo',
    description: 'Validates access tokens (`?access_token=`, answering `aud`/`azp`, `sub` and `exp`).',
  }),
  DAM_SOCIAL_GOOGLE_USERINFO_URL: httpUrl({
    section: 'social',
    onlyWith: 'DAM_SOCIAL_GOOGLE_CLIENT_ID',
    default: 'https://openidconnect.googleapis.com/v1/userinfo',
    description: 'Profile of an access token (bearer): `sub`, `email`, `email_verified`, `name`.',
  }),

  // --- External drives
  DAM_GDRIVE_CLIENT_ID: text({
    section: 'drives',
    defaultNote: 'unset (Google Drive off)',
    description: 'OAuth client id of a Google "Web application" client with the Drive API enabled; turns on Google Drive (`/drive-ext-1/...`).',
  }),
  DAM_GDRIVE_CLIENT_SECRET: text({
    section: 'drives',
    onlyWith: 'DAM_GDRIVE_CLIENT_ID',
    secret: true,
    description: 'Its client secret (Google requires one for web clients).',
  }),
  DAM_GDRIVE_AUTHORIZE_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_GDRIVE_CLIENT_ID',
    default: 'https://accounts.google.com',
    description: "Base URL of Google's authorization page (`/o/oauth2/v2/auth` is appended).",
  }),
  DAM_GDRIVE_TOKEN_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_GDRIVE_CLIENT_ID',
    default: 'https://oauth2.googleapis.com',
    description: "Base URL of Google's token (`/token`) and revocation (`/revoke`) endpoints.",
  }),
  DAM_GDRIVE_API_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_GDRIVE_CLIENT_ID',
    default: 'https://www.googleapis.com',
    description: 'Base URL serving `/drive/v3/...` and `/upload/drive/v3/...`.',
  }),
  DAM_DROPBOX_APP_KEY: text({
    section: 'drives',
    defaultNote: 'unset (Dropbox off)',
    description: 'App key of a Dropbox app ("Scoped access", "Full Dropbox"); turns on Dropbox (`/drive-ext-2/...`).',
  }),
  DAM_DROPBOX_APP_SECRET: text({
    section: 'drives',
    onlyWith: 'DAM_DROPBOX_APP_KEY',
    secret: true,
    defaultNote: 'unset (a public client, PKCE alone)',
    description: 'App secret of the Dropbox app; optional (PKCE alone works).',
  }),
  DAM_DROPBOX_AUTHORIZE_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_DROPBOX_APP_KEY',
    default: 'https://www.dropbox.com',
    description: "Base URL of Dropbox's authorization page (`/oauth2/authorize`).",
  }),
  DAM_DROPBOX_TOKEN_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_DROPBOX_APP_KEY',
    default: 'https://api.dropboxapi.com',
    description: "Base URL of Dropbox's token endpoint (`/oauth2/token`).",
  }),
  DAM_DROPBOX_API_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_DROPBOX_APP_KEY',
    default: 'https://api.dropboxapi.com',
    description: 'Base URL of the Dropbox API (`/2/...`).',
  }),
  DAM_DROPBOX_CONTENT_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_DROPBOX_APP_KEY',
    default: 'https://content.dropboxapi.com',
    description: 'Base URL of the Dropbox content endpoints (`/2/files/download` and uploads).',
  }),
  DAM_ONEDRIVE_CLIENT_ID: text({
    section: 'drives',
    defaultNote: 'unset (OneDrive off)',
    description: 'Application (client) id of a Microsoft Entra app registration; turns on OneDrive through Microsoft Graph (`/drive-ext-3/...`).',
  }),
  DAM_ONEDRIVE_CLIENT_SECRET: text({
    section: 'drives',
    onlyWith: 'DAM_ONEDRIVE_CLIENT_ID',
    secret: true,
    defaultNote: 'unset (a public client, PKCE alone)',
    description: 'Client secret of the app registration.',
  }),
  DAM_ONEDRIVE_AUTHORIZE_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_ONEDRIVE_CLIENT_ID',
    default: 'https://login.microsoftonline.com/common',
    description:
      'Base URL of the Microsoft sign-in (`/oauth2/v2.0/authorize`), the tenant as its path: `common` takes personal and work or school accounts; ' +
      "`https://login.microsoftonline.com/<tenant id>` only that organisation's.",
  }),
  DAM_ONEDRIVE_TOKEN_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_ONEDRIVE_CLIENT_ID',
    default: 'https://login.microsoftonline.com/common',
    description: 'Base URL of the token endpoint (`/oauth2/v2.0/token`), the tenant as its path as for `DAM_ONEDRIVE_AUTHORIZE_URL`.',
  }),
  DAM_ONEDRIVE_API_URL: baseUrl({
    section: 'drives',
    onlyWith: 'DAM_ONEDRIVE_CLIENT_ID',
    default: 'https://graph.microsoft.com',
    description: 'Base URL of Microsoft Graph (`/v1.0/me/drive/...`).',
  }),

  // --- Plans and payments
  DAM_PLANS_FILE: text({
    section: 'payments',
    type: 'path',
    defaultNote: '`config/plans.json` of the installation',
    description:
      'The plans (JSON); exactly one has no `stripe_price_id` (the free plan). Checked at start: an invalid file stops the start naming the problem.',
  }),
  DAM_STRIPE_SECRET_KEY: text({
    section: 'payments',
    secret: true,
    defaultNote: 'unset (payments off)',
    description: 'Stripe secret key; turns on payments (`/payments/...`; without it they answer 404 `PAYMENTS_DISABLED`). Sent only to Stripe, never shown or logged.',
  }),
  DAM_STRIPE_WEBHOOK_SECRET: text({
    section: 'payments',
    onlyWith: 'DAM_STRIPE_SECRET_KEY',
    secret: true,
    description:
      'Signing secret (`whsec_...`) of the webhook endpoint `POST /payments/webhook`, which verifies the `Stripe-Signature` of deliveries; required with `DAM_STRIPE_SECRET_KEY`.',
  }),
  DAM_STRIPE_API_URL: baseUrl({
    section: 'payments',
    onlyWith: 'DAM_STRIPE_SECRET_KEY',
    default: 'https://api.stripe.com',
    format: 'an http(s) URL of scheme, host and port only (no path)',
    description: 'The Stripe API (tests point it at a fake).',
  }),
  DAM_BILLING_GRACE_DAYS: integer({
    section: 'payments',
    default: 7,
    min: 0,
    max: 365,
    unit: 'days',
    description: 'Days a `past_due` workspace stays writable; after them it is read-only (writes 402 `SUBSCRIPTION_PAST_DUE`) until paid.',
  }),

  // --- Mobile apps
  DAM_IOS_APP_IDS: text({
    section: 'apps',
    type: 'list',
    defaultNote: 'unset (off)',
    format: 'a comma list of `TEAMID.bundle.id` (the 10-character Team ID, e.g. `ABCDE12345.com.example.dam`)',
    parse: format.iosAppIds,
    description:
      "iOS apps that open this site's share pages (`/s/*`) and asset pages (`/asset/*`) as universal links and may use its saved passwords, " +
      'served in `/.well-known/apple-app-site-association` (and `/ios-association`); without it those answer 404. Checked at start.',
  }),
  DAM_ANDROID_APP: text({
    section: 'apps',
    defaultNote: 'unset (off)',
    format: '`package:SHA256[,SHA256...]`',
    parse: format.androidApp,
    description:
      'The Android app for App Links and saved passwords: the package name, a colon, then the SHA-256 fingerprints of its signing certificates ' +
      '(as `keytool -list -v` prints them, `14:6D:E9:...`, or as 64 hex digits), e.g. `com.example.dam:14:6D:E9:83:...:44:E5`. ' +
      'Served in `/.well-known/assetlinks.json`; without it that answers 404. Checked at start.',
  }),
} satisfies Record<string, Var<unknown>>;

export type VarName = keyof typeof VARS;

/** The names of the variables whose value is a T (e.g. `NameOf<string>`: those with a default, read as strings). */
export type NameOf<T> = { [K in VarName]: ValueOf<(typeof VARS)[K]> extends T ? K : never }[VarName];

/** The value of one declared variable in `env`: parsed, its default when unset, undefined when it has none. */
export function read<K extends VarName>(env: Env, name: K): ValueOf<(typeof VARS)[K]> {
  return readVar(env, name, VARS[name] as Var<unknown>) as ValueOf<(typeof VARS)[K]>;
}
