import mime from 'mime-types';
import { DriveBadInput, type DriveItem, type ExportFormat } from '../types.js';

/** A file or folder as Dropbox describes it (files.stone `Metadata`; `.tag` is absent where a route answers FileMetadata itself). */
export interface DropboxMetadata {
  '.tag'?: 'file' | 'folder' | 'deleted';
  id?: string;
  name: string;
  path_lower?: string | null;
  path_display?: string | null;
  server_modified?: string;
  rev?: string;
  size?: number;
  /** SHA-256 based, over the content only (Dropbox's "content hash"). */
  content_hash?: string;
  /** False for Paper docs, Google files kept in Dropbox, and files of view-only shared links. */
  is_downloadable?: boolean;
  export_info?: { export_as?: string; export_options?: string[] };
}

/**
 * What files/export makes of a file that cannot be downloaded, by its `export_info.export_as` (the default export
 * format Dropbox names for it: Paper docs, Google files kept in Dropbox). A format not listed here is unsupported.
 */
const EXPORTS: Readonly<Record<string, ExportFormat>> = {
  markdown: { mimeType: 'text/markdown', extension: 'md' },
  md: { mimeType: 'text/markdown', extension: 'md' },
  html: { mimeType: 'text/html', extension: 'html' },
  plain_text: { mimeType: 'text/plain', extension: 'txt' },
  txt: { mimeType: 'text/plain', extension: 'txt' },
  pdf: { mimeType: 'application/pdf', extension: 'pdf' },
  docx: { mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' },
  xlsx: { mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
  pptx: { mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', extension: 'pptx' },
};

/**
 * Items are addressed by their Dropbox id (`id:` and URL-safe base64), never by path: ids survive renames and
 * moves, and a path from a client never reaches Dropbox. Anything else is refused before Dropbox is asked.
 */
const ITEM_ID = /^id:[A-Za-z0-9_-]{1,256}$/;

export function checkId(id: string, field: string): string {
  if (!ITEM_ID.test(id)) throw new DriveBadInput(`${field} is not a Dropbox file or folder id (id:...)`, field);
  return id;
}

/** A name Dropbox takes as the last component of a path: no slash or backslash, no control characters. */
export function safeName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\\/\u0000-\u001f\u007f]/g, '_').trim() || 'file';
}

export function toDriveItem(meta: DropboxMetadata): DriveItem {
  const base = { id: meta.id ?? '', name: meta.name, thumbnailUrl: null };
  if (meta['.tag'] === 'folder') {
    return { ...base, isFolder: true, mimeType: null, size: null, modifiedAt: null, revision: null, exportAs: null, unsupported: null };
  }
  const downloadable = meta.is_downloadable !== false;
  const exportAs = downloadable ? null : (EXPORTS[(meta.export_info?.export_as ?? '').toLowerCase()] ?? null);
  let unsupported: string | null = null;
  if (!downloadable && !exportAs) {
    unsupported = meta.export_info?.export_as
      ? `Dropbox exports this file only as ${meta.export_info.export_as}, which this service does not take`
      : 'Dropbox does not allow downloading this file (it has no content of its own, or is shared view-only)';
  }
  return {
    ...base,
    isFolder: false,
    // Dropbox keeps no media type: it follows from the name (the bytes are sniffed again on import).
    mimeType: mime.lookup(meta.name) || (downloadable ? 'application/octet-stream' : null),
    size: downloadable && typeof meta.size === 'number' ? meta.size : null,
    modifiedAt: meta.server_modified ?? null,
    // The content hash changes with the content only (a rename or move keeps it); rev where there is none.
    revision: meta.content_hash ?? meta.rev ?? null,
    exportAs,
    unsupported,
  };
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * Dropbox lists a folder in no particular order; each page is put in the order the API promises (folders first,
 * then by name, naturally), which holds within a page, not across pages.
 */
export function sortPage(items: DriveItem[]): DriveItem[] {
  return items.sort((a, b) => Number(b.isFolder) - Number(a.isFolder) || collator.compare(a.name, b.name));
}
