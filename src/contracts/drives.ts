import { Type, type Static } from 'typebox';
import { Id, MAX_PAGE, MAX_PER_PAGE } from '../http/schemas.js';

/** At most this many drive items in one POST /{provider}/import (folders count as one each, whatever they hold). */
export const MAX_IMPORT_ITEMS = 1000;
/** Longest return_to path. */
export const MAX_RETURN_TO = 2048;

const strict = { additionalProperties: false };

/** A drive's own id of a file or folder: opaque, provider-specific (Google: letters, digits, - and _). */
const DriveItemId = (description: string) => Type.String({ minLength: 1, maxLength: 1024, 'x-plain-text': true, description });

const ProviderId = Type.Union([Type.Literal('drive-ext-1'), Type.Literal('drive-ext-2'), Type.Literal('drive-ext-3')], {
  description: 'drive-ext-1 Google Drive, drive-ext-2 Dropbox, drive-ext-3 OneDrive',
});

export const DriveConnectionSchema = Type.Object({
  account_id: Type.String({ description: "The provider's id of the connected account" }),
  account_email: Type.Union([Type.String(), Type.Null()]),
  account_name: Type.Union([Type.String(), Type.Null()]),
  scopes: Type.Array(Type.String(), { description: 'Scopes the account granted' }),
  status: Type.Union([Type.Literal('active'), Type.Literal('reauth_required')], {
    description: 'reauth_required: the provider refused the stored grant; every drive operation answers 409 DRIVE_REAUTH_REQUIRED until connected again',
  }),
  status_note: Type.Union([Type.String(), Type.Null()], { description: 'Why it needs re-authorisation' }),
  connected_at: Type.Integer({ description: 'Unix seconds' }),
  updated_at: Type.Integer({ description: 'Unix seconds (also when tokens were refreshed)' }),
});
export type DriveConnectionView = Static<typeof DriveConnectionSchema>;

export const DrivesSchema = Type.Object({
  providers: Type.Array(
    Type.Object({
      id: ProviderId,
      name: Type.String({ description: 'Google Drive, Dropbox, OneDrive' }),
      search: Type.Boolean({ description: 'Whether GET /{id}/files takes q' }),
      connection: Type.Union([DriveConnectionSchema, Type.Null()], { description: "The caller's connection (tokens are never answered)" }),
    }),
  ),
});
export type DrivesView = Static<typeof DrivesSchema>;

export const AuthQuery = Type.Object(
  {
    workspaceId: Type.Optional(Id('A workspace of the caller the page returns to (its drives page by default)')),
    return_to: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_RETURN_TO,
        'x-plain-text': true,
        description: 'Where the browser goes after the callback: a path of this site (starting with a single /), e.g. /library/drives',
      }),
    ),
  },
  strict,
);
export type AuthInput = Static<typeof AuthQuery>;

export const AuthSchema = Type.Object({
  url: Type.String({ description: "The provider's authorization URL to send the browser to" }),
  expires_at: Type.Integer({ description: 'Unix seconds: the state in the URL is refused after this' }),
});
export type AuthView = Static<typeof AuthSchema>;

/** What a provider sends to the callback (RFC 6749 4.1.2, RFC 9207 iss); providers add their own parameters, which are ignored. */
export const CallbackQuery = Type.Object(
  {
    state: Type.String({ minLength: 1, maxLength: 4096 }),
    code: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 4096 })),
    error_uri: Type.Optional(Type.String({ maxLength: 4096 })),
    scope: Type.Optional(Type.String({ maxLength: 8192 })),
  },
  { additionalProperties: true },
);
export type CallbackInput = Static<typeof CallbackQuery>;

export const FilesQuery = Type.Object(
  {
    folder: Type.Optional(DriveItemId('A folder id from an earlier listing (default: the root of the drive)')),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        'x-plain-text': true,
        description: "Name search where the provider has one (GET /drives says): in folder when given, else the whole drive",
      }),
    ),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 8192, description: 'next_cursor of the previous page (opaque)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Items asked for per page (the provider may answer fewer)' })),
  },
  strict,
);
export type FilesInput = Static<typeof FilesQuery>;

export const DriveItemSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  is_folder: Type.Boolean(),
  mime_type: Type.Union([Type.String(), Type.Null()], { description: "The provider's type (for Google documents their own, e.g. application/vnd.google-apps.document)" }),
  size: Type.Union([Type.Integer(), Type.Null()], { description: 'Bytes; null for folders and provider documents' }),
  modified_at: Type.Union([Type.String(), Type.Null()], { description: 'ISO 8601' }),
  thumbnail_url: Type.Union([Type.String(), Type.Null()], { description: "The provider's own thumbnail link (short-lived on Google Drive and OneDrive; Dropbox has none, null); show it through /api/image-proxy" }),
  export: Type.Union(
    [Type.Object({ mime_type: Type.String(), extension: Type.String() }), Type.Null()],
    { description: 'Provider documents (Google Docs, Sheets, Slides, Drawings; Dropbox Paper docs): the format a download or an import makes of them' },
  ),
  unsupported: Type.Union([Type.String(), Type.Null()], { description: 'Why the item cannot be downloaded or imported (Google Forms, shortcuts; Dropbox files it allows no download of; OneDrive notebooks, shared items, files flagged as malware), else null' }),
});
export type DriveItemView = Static<typeof DriveItemSchema>;

export const FilesSchema = Type.Object({
  folder: Type.Union([Type.String(), Type.Null()], { description: 'The folder listed (null: the root, or a search of the whole drive)' }),
  items: Type.Array(DriveItemSchema, { description: 'Folders first, then files, by name (on Dropbox within each page; on OneDrive by name only, folders among the files)' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last' }),
});
export type FilesView = Static<typeof FilesSchema>;

export const DownloadQuery = Type.Object({ fileId: DriveItemId('The file to download') }, strict);

export const UploadBody = Type.Object(
  {
    assetId: Id('The asset whose file is sent'),
    version_id: Type.Optional(Id('A version of that asset (default: its current version)')),
    folder: Type.Optional(DriveItemId('The drive folder it goes into (default: the root)')),
  },
  strict,
);
export type UploadInput = Static<typeof UploadBody>;

export const ImportBody = Type.Object(
  {
    workspaceId: Id('Workspace the files become assets of'),
    folder_id: Type.Optional(Id('Folder of that workspace the selection goes into (default: the top level)')),
    items: Type.Array(Type.Object({ id: DriveItemId('A file or folder id from a listing') }, strict), {
      minItems: 1,
      maxItems: MAX_IMPORT_ITEMS,
      description: `Files and folders to import (at most ${MAX_IMPORT_ITEMS}; a folder brings its contents)`,
    }),
    recursive: Type.Optional(Type.Boolean({ default: true, description: "Folders: also their sub-folders (default true); false: only their own files" })),
  },
  strict,
);
export type ImportInput = Static<typeof ImportBody>;

export const ImportParams = Type.Object({ id: Id('The import job id, as POST /{provider}/import answered it') });

const ItemStatus = Type.Union([Type.Literal('pending'), Type.Literal('imported'), Type.Literal('skipped'), Type.Literal('failed')]);

export const ImportQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page of the per-item results' })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: 50 })),
    status: Type.Optional(ItemStatus),
  },
  strict,
);
export type ImportQueryInput = Static<typeof ImportQuery>;

export const ImportItemSchema = Type.Object({
  file_id: Type.String({ description: "The drive's id" }),
  kind: Type.Union([Type.Literal('file'), Type.Literal('folder')]),
  name: Type.String(),
  path: Type.String({ description: 'Drive folders from the selection down to the item, joined by /' }),
  size: Type.Union([Type.Integer(), Type.Null()]),
  status: ItemStatus,
  reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'skipped: unchanged (already imported into this folder, same revision), unsupported (no bytes and no export), too_large; ' +
      'failed: not_found, provider_error, rejected (the file was refused, e.g. over a limit); imported: new or new_version',
  }),
  message: Type.Union([Type.String(), Type.Null()]),
  asset_id: Type.Union([Id(), Type.Null()]),
  folder_id: Type.Union([Id(), Type.Null()], { description: 'The folder a file went into, or a drive folder became' }),
  bytes: Type.Integer({ description: 'Bytes written for this file' }),
});

export const ImportSchema = Type.Object({
  id: Id(),
  provider: ProviderId,
  workspace_id: Id(),
  folder_id: Type.Union([Id(), Type.Null()]),
  recursive: Type.Boolean(),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
  planned: Type.Boolean({ description: 'True once every file to import is known (total_files is final)' }),
  total_files: Type.Integer({ description: 'Files found so far' }),
  folders: Type.Integer({ description: 'Drive folders recreated' }),
  processed_files: Type.Integer(),
  pending: Type.Integer(),
  imported: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
  progress: Type.Number({ minimum: 0, maximum: 1, description: 'processed_files / total_files once planned (0 before)' }),
  bytes: Type.Integer({ description: 'Bytes written to the library so far' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the whole import failed, or why the last attempt is being retried' }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  updated_at: Type.Integer({ description: 'Unix seconds' }),
  items: Type.Object({
    items: Type.Array(ImportItemSchema),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer({ description: 'Items (of the status asked for) recorded so far' }),
  }),
});
export type ImportView = Static<typeof ImportSchema>;

export const DisconnectSchema = Type.Object({
  provider: ProviderId,
  revoked: Type.Boolean({ description: 'Whether the provider confirmed the revocation (the connection is deleted either way)' }),
});

export const ImportListQuery = Type.Object(
  {
    workspaceId: Id('Workspace whose drive imports are listed'),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  strict,
);
export type ImportListInput = Static<typeof ImportListQuery>;

export const ImportSummarySchema = Type.Omit(ImportSchema, ['items']);
export type ImportSummaryView = Static<typeof ImportSummarySchema>;

export const ImportListSchema = Type.Object({
  items: Type.Array(ImportSummarySchema, { description: 'Newest first' }),
  page: Type.Integer(),
  per_page: Type.Integer(),
});
