import type { drive_v3 } from '@googleapis/drive';
import { DriveBadInput, type DriveItem, type ExportFormat } from '../types.js';

/** The fields of a file every call asks for (Drive answers only the fields named). */
export const FILE_FIELDS = 'id,name,mimeType,size,modifiedTime,thumbnailLink,headRevisionId,md5Checksum,version,trashed';

export const FOLDER_TYPE = 'application/vnd.google-apps.folder';
const GOOGLE_TYPE_PREFIX = 'application/vnd.google-apps.';

const OFFICE = {
  docx: { mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' },
  xlsx: { mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
  pptx: { mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', extension: 'pptx' },
  pdf: { mimeType: 'application/pdf', extension: 'pdf' },
} as const satisfies Record<string, ExportFormat>;

/**
 * Google Workspace documents have no bytes of their own; files.export turns them into these formats
 * (Drive's "export formats" table): the Office format where one exists, so the result stays editable,
 * PDF for drawings and Jamboards, the Apps Script JSON for scripts.
 */
export const EXPORT_FORMATS: Readonly<Record<string, ExportFormat>> = {
  'application/vnd.google-apps.document': OFFICE.docx,
  'application/vnd.google-apps.spreadsheet': OFFICE.xlsx,
  'application/vnd.google-apps.presentation': OFFICE.pptx,
  'application/vnd.google-apps.drawing': OFFICE.pdf,
  'application/vnd.google-apps.jam': OFFICE.pdf,
  'application/vnd.google-apps.script': { mimeType: 'application/vnd.google-apps.script+json', extension: 'json' },
};

/** Google types with neither bytes nor an export (Forms, Sites, My Maps, shortcuts, ...). */
function unsupportedReason(mimeType: string): string | null {
  if (!mimeType.startsWith(GOOGLE_TYPE_PREFIX) || mimeType === FOLDER_TYPE || EXPORT_FORMATS[mimeType]) return null;
  const kind = mimeType.slice(GOOGLE_TYPE_PREFIX.length);
  if (kind === 'shortcut') return 'A Google Drive shortcut has no content of its own; import the file it points to';
  return `Google Drive cannot export this kind of document (${kind})`;
}

/** Drive's file ids are URL-safe base64-ish; `root` is the My Drive folder. Anything else never reaches a query. */
const FILE_ID = /^[A-Za-z0-9_-]{1,256}$/;

export function checkFileId(id: string, field: string): string {
  if (!FILE_ID.test(id)) throw new DriveBadInput(`${field} is not a Google Drive file id`, field);
  return id;
}

/** A string literal of Drive's query language: backslashes and single quotes escaped. */
export function queryLiteral(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The `q` of files.list: one folder's children (My Drive's root by default), or, with a name search and
 * no folder, matching files anywhere in the drive. Trashed files never show.
 */
export function listQuery(folder: string | null, search: string | null): string {
  const parts = ['trashed = false'];
  if (folder !== null || search === null) parts.unshift(`${queryLiteral(folder ?? 'root')} in parents`);
  if (search !== null) parts.push(`name contains ${queryLiteral(search)}`);
  return parts.join(' and ');
}

export function toDriveItem(file: drive_v3.Schema$File): DriveItem {
  const mimeType = file.mimeType ?? null;
  const exportAs = mimeType ? (EXPORT_FORMATS[mimeType] ?? null) : null;
  const isGoogleType = mimeType?.startsWith(GOOGLE_TYPE_PREFIX) ?? false;
  const size = file.size === null || file.size === undefined ? null : Number(file.size);
  return {
    id: file.id ?? '',
    name: file.name ?? '',
    isFolder: mimeType === FOLDER_TYPE,
    mimeType,
    size: Number.isSafeInteger(size) ? size : null,
    modifiedAt: file.modifiedTime ?? null,
    thumbnailUrl: file.thumbnailLink ?? null,
    // Binary files: the head revision changes with the content only. Google documents have none; their version
    // counts every change (a rename too), so a renamed document is imported again as a new version.
    revision: isGoogleType ? (file.version ? `v${file.version}` : null) : (file.headRevisionId ?? file.md5Checksum ?? null),
    exportAs,
    unsupported: mimeType ? unsupportedReason(mimeType) : null,
  };
}
