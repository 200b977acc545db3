import { Type, type Static } from 'typebox';
import { Id, MAX_PAGE, MAX_PER_PAGE } from '../http/schemas.js';
import type { EntryProblem } from '../domain/zip-entries.js';

/** At most this many ids in `asset_ids` of GET /zip/download (a folder or collection holds more). */
export const MAX_DOWNLOAD_IDS = 1000;
/** Longest entry name GET /zip/extract takes (entry names may be up to 65,535 bytes; longer ones are not extracted one by one). */
export const MAX_ENTRY_PATH = 4096;

const strict = { additionalProperties: false };

export const ZipDownloadQuery = Type.Object(
  {
    workspaceId: Id('Workspace of the files'),
    asset_ids: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,15}(,[1-9][0-9]{0,15}){0,999}$',
        maxLength: 17 * MAX_DOWNLOAD_IDS,
        description: `Comma list of up to ${MAX_DOWNLOAD_IDS} asset ids (e.g. 12,15,31), in archive order`,
      }),
    ),
    folder_id: Type.Optional(Id('A folder: its files and every sub-folder, as directories')),
    collection_id: Type.Optional(Id('A collection: its files, in collection order')),
    user_id: Type.Optional(Id('Of a signed URL (POST /zip/link): the user it was issued to')),
    expires: Type.Optional(Type.String({ pattern: '^[0-9]{1,12}$', maxLength: 12, description: 'Of a signed URL: Unix seconds' })),
    signature: Type.Optional(
      Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$', maxLength: 128, description: 'Of a signed URL; with it no bearer token is needed' }),
    ),
  },
  strict,
);
export type ZipDownloadInput = Static<typeof ZipDownloadQuery>;

export const ZipLinkBody = Type.Object(
  {
    workspaceId: Id('Workspace of the files'),
    asset_ids: Type.Optional(
      Type.Array(Id(), {
        minItems: 1,
        maxItems: MAX_DOWNLOAD_IDS,
        description: `Up to ${MAX_DOWNLOAD_IDS} asset ids, in archive order (a repeated id is archived once)`,
      }),
    ),
    folder_id: Type.Optional(Id('A folder: its files and every sub-folder, as directories')),
    collection_id: Type.Optional(Id('A collection: its files, in collection order')),
  },
  strict,
);
export type ZipLinkInput = Static<typeof ZipLinkBody>;

export const ZipLinkSchema = Type.Object({
  url: Type.String({ description: 'GET /zip/download of this selection with its signature: absolute, on the instance\'s public URL; no bearer token needed' }),
  expires_at: Type.Integer({ description: 'Unix seconds after which the URL answers 403 URL_EXPIRED' }),
});
export type ZipLinkView = Static<typeof ZipLinkSchema>;

export const ZipListQuery = Type.Object(
  {
    assetId: Id('The ZIP asset'),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: 50 })),
  },
  strict,
);
export type ZipListInput = Static<typeof ZipListQuery>;

const Problem = Type.Union(
  [
    Type.Literal('unsafe_name'),
    Type.Literal('symlink'),
    Type.Literal('special_file'),
    Type.Literal('encrypted'),
    Type.Literal('unsupported_compression'),
  ],
  {
    description:
      'Why the entry is not extracted: unsafe_name (`..` segments, an absolute path, a drive letter, backslashes or control ' +
      'characters), symlink or special_file (by its Unix mode), encrypted, unsupported_compression (not stored or deflated)',
  },
);

export const ZipEntrySchema = Type.Object({
  name: Type.String({ description: 'The name as the archive has it (directories end with /)' }),
  size: Type.Integer({ description: 'Declared uncompressed size in bytes' }),
  compressed_size: Type.Integer({ description: 'Declared compressed size in bytes' }),
  crc32: Type.Integer({ description: 'Declared CRC-32 (checked when the entry is extracted)' }),
  is_dir: Type.Boolean(),
  encrypted: Type.Boolean(),
  modified_at: Type.Integer({ description: 'Unix seconds (the Info-ZIP or NTFS timestamp when present, else the DOS time read as UTC)' }),
  problem: Type.Union([Problem, Type.Null()]),
});
export type ZipEntryView = Static<typeof ZipEntrySchema>;
// Every problem the reader reports is in the schema's enum: this line stops compiling otherwise.
const _everyProblem: EntryProblem extends Static<typeof Problem> ? true : never = true;

export const ZipListSchema = Type.Object({
  asset_id: Id(),
  items: Type.Array(ZipEntrySchema),
  page: Type.Integer(),
  per_page: Type.Integer(),
  total: Type.Integer({ description: 'Entries the archive declares' }),
});
export type ZipListView = Static<typeof ZipListSchema>;

export const ZipExtractQuery = Type.Object(
  {
    assetId: Id('The ZIP asset'),
    path: Type.String({ minLength: 1, maxLength: MAX_ENTRY_PATH, description: 'The entry\'s name exactly as GET /zip/list gives it' }),
  },
  strict,
);
export type ZipExtractInput = Static<typeof ZipExtractQuery>;

export const ZipImportBody = Type.Object(
  {
    assetId: Id('The ZIP asset to import'),
    folder_id: Type.Optional(Id("Folder of the archive's workspace that receives its top level (default: the top level)")),
  },
  strict,
);
export type ZipImportInput = Static<typeof ZipImportBody>;

export const ZipImportParams = Type.Object({ jobId: Id('The import job\'s id, as POST /zip/extract answered it') });

export const ZipImportEntrySchema = Type.Object({
  index: Type.Integer({ description: 'Position in the archive, from 0' }),
  name: Type.String(),
  kind: Type.Union([Type.Literal('file'), Type.Literal('directory')]),
  outcome: Type.Union([Type.Literal('imported'), Type.Literal('skipped'), Type.Literal('failed')]),
  reason: Type.Union([Type.String(), Type.Null()], {
    description:
      'For skipped and failed entries: an entry problem (unsafe_name, symlink, special_file, encrypted, unsupported_compression), ' +
      'too_large (over the largest file size), limit (the import\'s byte budget or the compression-ratio cap, of the entry or of ' +
      'the whole archive), quota (the workspace\'s plan has no room for it), corrupt (CRC or size mismatch, truncated data) or error',
  }),
  message: Type.Union([Type.String(), Type.Null()]),
  asset_id: Type.Union([Id(), Type.Null()], { description: 'The asset a file became' }),
  folder_id: Type.Union([Id(), Type.Null()], { description: 'The folder a directory became, or a file went into' }),
});

export const ZipImportSchema = Type.Object({
  id: Id('The import job\'s id'),
  workspace_id: Id(),
  asset_id: Type.Union([Id(), Type.Null()], { description: 'The archive (null once deleted)' }),
  folder_id: Type.Union([Id(), Type.Null()]),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
  total_entries: Type.Union([Type.Integer(), Type.Null()], { description: 'Entries of the archive (null until the job read it)' }),
  processed_entries: Type.Integer(),
  imported: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
  progress: Type.Number({ minimum: 0, maximum: 1, description: 'processed_entries / total_entries (0 before the job starts)' }),
  bytes_written: Type.Integer({ description: 'Bytes inflated so far' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the whole import failed' }),
  created_at: Type.Integer({ description: 'Unix seconds' }),
  updated_at: Type.Integer({ description: 'Unix seconds' }),
  entries: Type.Object({
    items: Type.Array(ZipImportEntrySchema),
    page: Type.Integer(),
    per_page: Type.Integer(),
    total: Type.Integer({ description: 'Entries recorded so far' }),
  }),
});
export type ZipImportView = Static<typeof ZipImportSchema>;

export const ZipImportQuery = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: 'Page of the per-entry results' })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: 50 })),
  },
  strict,
);
