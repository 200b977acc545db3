import { Type, type Static } from 'typebox';
import { FILE_TYPES } from '../domain/file-types.js';
import {
  DEFAULT_SHARE_LIFETIME,
  DEFAULT_SHARE_MAX_EXPIRY_DAYS,
  LINK_UNLOCK_FAILURES_ALLOWED,
  MAX_SHARED_ASSETS,
  MIN_SHARE_PASSWORD,
  UNLOCK_FAILURES_ALLOWED,
  UNLOCK_WINDOW_SECONDS,
} from '../domain/shares.js';
import { Id as IdOf, Paging } from '../http/schemas.js';
import { ConditionalHeaders } from './downloads.js';

/** TypeBox schemas of the shared links (issue #14): management (/shared) and public (/shared/public/:key) sides. */

const Id = IdOf();
const strict = { additionalProperties: false } as const;
const Unix = Type.Integer({ description: 'Unix seconds' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

/** 9999-12-31T23:59:59Z: far enough for any expiry, and every date type reads it. */
export const MAX_EXPIRES_AT = 253_402_300_799;
export const MAX_PASSWORD = 256;
export const MAX_DOWNLOADS = 1_000_000;

const ExpiresAt = Type.Integer({ minimum: 1, maximum: MAX_EXPIRES_AT, description: 'Unix seconds, in the future' });
const Password = Type.String({
  minLength: MIN_SHARE_PASSWORD,
  maxLength: MAX_PASSWORD,
  description: `At least ${MIN_SHARE_PASSWORD} characters (a passphrase of a few words is best; the web client suggests one). Stored only as a scrypt hash; never answered`,
  examples: ['meadow river lantern'],
});
const MaxDownloads = Type.Integer({ minimum: 1, maximum: MAX_DOWNLOADS });
const Description = Type.String({
  maxLength: 2000,
  'x-plain-text': 'multiline',
  description: 'Shown to visitors of the link; line breaks allowed, no other control characters',
});

const TargetKind = Type.Union([Type.Literal('assets'), Type.Literal('folder'), Type.Literal('collection'), Type.Literal('version')], {
  description: 'assets: a list of assets; folder: a folder with its sub-folders; collection: a collection; version: one pinned version of an asset',
});

/** Issue #28: managers are capped by the workspace's share_max_expiry_days. */
const ManagerCap =
  `A manager may set it at most the workspace's share_max_expiry_days ahead (default ${DEFAULT_SHARE_MAX_EXPIRY_DAYS} days; ` +
  'later: 403 FORBIDDEN with max_expires_at, the latest allowed); workspace admins are not capped.';

const ExpiryRule =
  `expires_at: Unix seconds in the future; omitted: ${DEFAULT_SHARE_LIFETIME / 86_400} days from now (a manager's cap when shorter); ` +
  'null: never, which only workspace admins may set (403 FORBIDDEN for managers). ' +
  ManagerCap;

export const ShareCreateBody = Type.Object(
  {
    workspaceId: IdOf('Workspace of the shared items'),
    asset_ids: Type.Optional(
      Type.Array(Id, {
        minItems: 1,
        maxItems: MAX_SHARED_ASSETS,
        uniqueItems: true,
        description: 'Target: these assets of the workspace, shown in this order',
      }),
    ),
    folder_id: Type.Optional(IdOf('Target: this folder of the workspace and every folder below it')),
    collection_id: Type.Optional(IdOf('Target: this collection of the workspace, in collection order')),
    version_id: Type.Optional(
      IdOf('Target: this version of an asset (any of its versions); the link keeps showing it after newer versions are uploaded'),
    ),
    expires_at: Type.Optional(Nullable(ExpiresAt, ExpiryRule)),
    password: Type.Optional(Password),
    allow_download: Type.Optional(Type.Boolean({ default: true, description: 'Whether visitors may download the files (default true)' })),
    max_downloads: Type.Optional(Nullable(MaxDownloads, 'Downloads allowed in all (a file or a whole ZIP counts one); null or omitted: no limit')),
    description: Type.Optional(Nullable(Description, 'Shown to visitors of the link')),
  },
  strict,
);
export type ShareCreateInput = Static<typeof ShareCreateBody>;

export const SharePatchBody = Type.Object(
  {
    expires_at: Type.Optional(
      Nullable(ExpiresAt, `A new expiry in the future; null: never (workspace admins only). Extending an expired link revives it. ${ManagerCap}`),
    ),
    password: Type.Optional(Nullable(Password, 'A new password (tokens issued for the old one stop working); null removes the password')),
    allow_download: Type.Optional(Type.Boolean()),
    max_downloads: Type.Optional(Nullable(MaxDownloads, 'null removes the limit; a limit at or below download_count ends downloads at once')),
    description: Type.Optional(Nullable(Description, 'null clears it')),
  },
  { ...strict, minProperties: 1 },
);
export type SharePatchInput = Static<typeof SharePatchBody>;

export const ShareListQuery = Type.Object(
  {
    workspaceId: IdOf('Workspace whose links to list'),
    status: Type.Optional(
      Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')], { description: 'Only links in this state; omitted: all' }),
    ),
    ...Paging,
  },
  strict,
);
export type ShareListInput = Static<typeof ShareListQuery>;

export const ShareSchema = Type.Object({
  id: Id,
  workspace_id: Id,
  key: Type.String({ description: 'The public key (144 random bits, base64url); whoever has it can open the link' }),
  url: Type.String({ description: 'The page to give people: {DAM_PUBLIC_URL}/s/{key}' }),
  target: TargetKind,
  asset_ids: Type.Array(Id, {
    description: 'A list-of-assets link: its assets in order (assets deleted for good leave it; assets in the trash stay listed but are not shown). [] otherwise',
  }),
  folder_id: Type.Union([Id, Type.Null()], { description: 'A folder link: its folder; null otherwise, or once the folder was deleted for good' }),
  collection_id: Type.Union([Id, Type.Null()], { description: 'A collection link: its collection; null otherwise, or once deleted for good' }),
  version_id: Type.Union([Id, Type.Null()], { description: 'A version link: its version; null otherwise, or once deleted' }),
  expires_at: Type.Union([Unix, Type.Null()], { description: 'Unix seconds; null: never' }),
  has_password: Type.Boolean(),
  allow_download: Type.Boolean(),
  max_downloads: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no limit' }),
  download_count: Type.Integer({ description: 'Downloads made: each file download and each ZIP counts one' }),
  view_count: Type.Integer({ description: "Visits: reads of the link's first page of items" }),
  last_accessed_at: Type.Union([Unix, Type.Null()], { description: 'Last visit or download; null: never opened' }),
  description: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')], {
    description: 'revoked (DELETE /shared/:id) or expired links answer 404 on the public side',
  }),
  created_by: Type.Object({
    id: Type.Union([Type.Integer(), Type.Null()], { description: 'null once the account is deleted' }),
    name: Type.String({ description: 'Name (or e-mail) of the creator when the link was made' }),
  }),
  created_at: Unix,
  updated_at: Unix,
  revoked_at: Type.Union([Unix, Type.Null()]),
});
export type ShareView = Static<typeof ShareSchema>;

export const SharePageSchema = Type.Object({
  items: Type.Array(ShareSchema, { description: 'Newest first' }),
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer({ description: 'Links over all pages' }),
});
export type SharePageView = Static<typeof SharePageSchema>;

export const AccessLogQuery = Type.Object({ ...Paging }, strict);

export const AccessEntrySchema = Type.Object({
  id: Type.Integer(),
  action: Type.Union(
    [Type.Literal('view'), Type.Literal('download'), Type.Literal('zip'), Type.Literal('unlock'), Type.Literal('unlock-failed')],
    {
      description:
        "view: the link's first page of items was read; download: a file (asset_id); zip: the whole link as a ZIP; " +
        'unlock: the right password; unlock-failed: a wrong one (also an attempt whose check did not finish)',
    },
  ),
  asset_id: Type.Union([Type.Integer(), Type.Null()], { description: 'The file downloaded; null for other actions' }),
  address: Type.String({ description: "The client's IP address (behind a trusted proxy: the one it reported, DAM_TRUST_PROXY)" }),
  user_agent: Type.Union([Type.String(), Type.Null()], { description: 'As sent, cut at 512 characters' }),
  created_at: Unix,
});
export type AccessEntryView = Static<typeof AccessEntrySchema>;

export const AccessLogPageSchema = Type.Object({
  items: Type.Array(AccessEntrySchema, { description: 'Newest first' }),
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer(),
});
export type AccessLogPageView = Static<typeof AccessLogPageSchema>;

// ---- Public side -------------------------------------------------------------------------------

export const KeyParams = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'The link key (the last segment of its url)' }),
});
export const KeyAssetParams = Type.Object({ ...KeyParams.properties, assetId: IdOf('An asset shown by the link') });

/** Tokens are about 200 characters; 255 bounds the header as every header of the API is bounded. */
export const MAX_SHARE_TOKEN = 255;
const ShareTokenQuery = Type.String({
  minLength: 1,
  maxLength: MAX_SHARE_TOKEN,
  description: 'Share-access token of a password-protected link (or send it as the X-Share-Token header)',
});
export const ShareTokenHeaders = Type.Object({
  'x-share-token': Type.Optional(
    Type.String({ minLength: 1, maxLength: MAX_SHARE_TOKEN, description: 'Share-access token from POST /shared/public/{key}/unlock' }),
  ),
});
/** Grants are about 170 characters; bounded as the share token is. */
export const MAX_DOWNLOAD_GRANT = 255;
export const DownloadHeaders = Type.Object({
  ...ShareTokenHeaders.properties,
  ...ConditionalHeaders,
  'x-download-grant': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_DOWNLOAD_GRANT,
      description:
        'The X-Download-Grant answered by an earlier counted download of this file: this request resumes it and is not counted ' +
        '(browsers send the dam_dl cookie instead)',
    }),
  ),
});
export const PublicItemsQuery = Type.Object({ ...Paging, st: Type.Optional(ShareTokenQuery) }, strict);
export const PublicFileQuery = Type.Object({ st: Type.Optional(ShareTokenQuery) }, strict);

export const ShareItemSchema = Type.Object({
  id: Type.Integer({ description: 'The asset id (for the download route)' }),
  display_file_name: Type.String(),
  file_type: Type.Enum(FILE_TYPES, { description: `Derived from mime_type: ${FILE_TYPES.join(', ')}` }),
  mime_type: Type.String({ description: 'Of the version shown' }),
  file_size: Type.Integer({ description: 'Bytes of the version shown' }),
  width: Type.Union([Type.Integer(), Type.Null()]),
  height: Type.Union([Type.Integer(), Type.Null()]),
  version: Type.String({ description: 'Label of the version shown (vN): the current one, or the pinned one of a version link' }),
  folder_path: Type.Array(Type.String(), {
    description: 'A folder link: the folders from the shared folder (not included) down to the item\'s folder; [] at its top, and for other links',
  }),
  thumbnail_url: Type.String({ description: 'Signed, expiring image URL (no token needed); a file-type icon when there is no thumbnail' }),
  preview_url: Type.Union([Type.String(), Type.Null()], { description: 'Signed, expiring URL of the large preview; null when there is none' }),
  video_url: Type.Union([Type.String(), Type.Null()], {
    description:
      'A video: signed, expiring URL of its web-playable MP4 (H.264/AAC within 720p, Range requests answered) for a <video> element, ' +
      'with preview_url as its poster; null for other files and until the preview is ready. Like the other media URLs it is not tied ' +
      'to the link and is not counted as a download: a visitor who can play a video can keep that copy, downloads allowed or not',
  }),
  download_url: Type.Union([Type.String(), Type.Null()], {
    description: 'The download route of this item (add ?st= for a password-protected link); null when downloads are not allowed',
  }),
});
export type ShareItemView = Static<typeof ShareItemSchema>;

export const PublicShareSchema = Type.Object({
  name: Type.Union([Type.String(), Type.Null()], {
    description: "The shared folder's or collection's name, or the asset's name of a version link; null for a list of assets",
  }),
  description: Type.Union([Type.String(), Type.Null()]),
  target: TargetKind,
  expires_at: Type.Union([Unix, Type.Null()], { description: 'null: never' }),
  allow_download: Type.Boolean(),
  downloads_left: Type.Union([Type.Integer(), Type.Null()], { description: 'null: no limit; 0: downloads answer 410 SHARE_DOWNLOAD_LIMIT' }),
  zip_url: Type.Union([Type.String(), Type.Null()], { description: 'Every item as one ZIP (add ?st= for a password-protected link); null when downloads are not allowed' }),
  items: Type.Array(ShareItemSchema),
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer({ description: 'Items over all pages' }),
});
export type PublicShareView = Static<typeof PublicShareSchema>;

export const UnlockBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD }) }, strict);

export const UnlockSchema = Type.Object({
  token: Type.String({ description: 'Send as the X-Share-Token header or the st query parameter on the public routes of this link' }),
  expires_at: Type.Integer({ description: 'Unix seconds; afterwards the routes answer 401 SHARE_PASSWORD_REQUIRED again' }),
});
export type UnlockView = Static<typeof UnlockSchema>;

export const UNLOCK_RULES =
  `Wrong passwords are limited to ${UNLOCK_FAILURES_ALLOWED} per link and client address (an IPv6 address counts by its /64) ` +
  `per ${UNLOCK_WINDOW_SECONDS / 60} minutes, and to ${LINK_UNLOCK_FAILURES_ALLOWED} per link from all addresses together: ` +
  'over either every try, right or wrong, answers 429 RATE_LIMITED with Retry-After until the oldest failure leaves the window. ' +
  "Each wrong password is in the link's access log.";
