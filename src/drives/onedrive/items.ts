import { DriveBadInput, type DriveItem } from '../types.js';

/** A driveItem as Graph answers it (the properties this provider asks for with $select). */
export interface GraphItem {
  id?: string;
  name?: string;
  size?: number;
  lastModifiedDateTime?: string;
  /** Changes with the content only (not with a rename or a move). */
  cTag?: string;
  /** Changes with any change of the item, metadata included. */
  eTag?: string;
  file?: { mimeType?: string; hashes?: { quickXorHash?: string; sha1Hash?: string; sha256Hash?: string } };
  folder?: { childCount?: number };
  /** OneNote notebooks: a folder-like bundle with no bytes of its own. */
  package?: { type?: string };
  /** An item of another drive added to this one ("Add to my OneDrive", shared folders). */
  remoteItem?: { id?: string; parentReference?: { driveId?: string } };
  /** OneDrive found malware in it: it refuses to hand the bytes over. */
  malware?: { description?: string };
  thumbnails?: { small?: { url?: string }; medium?: { url?: string }; large?: { url?: string } }[];
}

/** What every item call asks for (Graph answers only the properties named). */
export const ITEM_SELECT = 'id,name,size,lastModifiedDateTime,cTag,eTag,file,folder,package,remoteItem,malware';

/**
 * OneDrive item ids: hex drive id, `!` and a number on personal accounts (`D4648F06C91D9D3D!54927`, newer ones
 * with letters after the `!`), base32 letters and digits on work accounts (`01BYE5RZ6QN3ZWBTUFOFD3GSPGOHDJD36K`);
 * `root` is the drive's root folder. Nothing else reaches a URL: no `/`, `:` (Graph's path addressing), `.`
 * (dot segments), `?`, `#` or `%`.
 */
const ITEM_ID = /^[A-Za-z0-9!_-]{1,512}$/;

export function checkItemId(id: string, field: string): string {
  if (!ITEM_ID.test(id)) throw new DriveBadInput(`${field} is not a OneDrive item id`, field);
  return id;
}

/** `/me/drive/root` or `/me/drive/items/{id}`: the item (or folder) a call is about. */
export function itemPath(id: string | null): string {
  return id === null || id === 'root' ? '/me/drive/root' : `/me/drive/items/${encodeURIComponent(id)}`;
}

/**
 * A file name as one segment of Graph's path addressing (`{parent}:/{name}:/content`): percent-encoded, the
 * characters encodeURIComponent leaves alone that mean something in OData URLs (`'`, `(`, `)`, `!`) too.
 */
export function nameSegment(name: string): string {
  return encodeURIComponent(name).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The OData string literal of `search(q='...')`: quotes doubled, then percent-encoded as a path segment. */
export function searchLiteral(text: string): string {
  return `'${encodeURIComponent(text.replace(/'/g, "''"))}'`;
}

/** Characters OneDrive and SharePoint refuse in names ("Restrictions and limitations in OneDrive and SharePoint"). */
// eslint-disable-next-line no-control-regex -- control characters are what it removes
const FORBIDDEN = /["*:<>?/\\|\u0000-\u001f\u007f]/g;
/** Names Windows reserves, which OneDrive for work or school refuses too; `.lock`, `desktop.ini` and `_vti_` likewise. */
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$|^\.lock$|^desktop\.ini$|_vti_/i;
const MAX_NAME = 250;

/**
 * A file name OneDrive takes: forbidden characters become `_`, no leading or trailing spaces, no trailing
 * dots, a reserved name prefixed with `_`, at most 250 characters (the extension kept).
 */
export function oneDriveName(name: string): string {
  let out = name.replace(FORBIDDEN, '_').trim().replace(/[.\s]+$/, '');
  if (out.startsWith('~$')) out = `_${out.slice(1)}`;
  if (out.length > MAX_NAME) {
    const ext = /\.[A-Za-z0-9]{1,10}$/.exec(out)?.[0] ?? '';
    out = `${out.slice(0, MAX_NAME - ext.length).trimEnd()}${ext}`;
  }
  if (!out) return 'file';
  return RESERVED.test(out) ? `_${out}` : out;
}

function unsupportedReason(item: GraphItem): string | null {
  if (item.remoteItem) return 'A shared item added to this OneDrive lives in its owner\'s drive; it cannot be imported from here';
  if (item.malware) return `OneDrive flagged this file as malware${item.malware.description ? ` (${item.malware.description})` : ''} and does not hand it over`;
  if (item.package) return `A OneDrive ${item.package.type === 'oneNote' ? 'OneNote notebook' : 'package'} has no file of its own to download`;
  return null;
}

export function toDriveItem(item: GraphItem): DriveItem {
  const isFile = Boolean(item.file) && !item.remoteItem;
  const thumbnails = item.thumbnails?.[0];
  return {
    id: item.id ?? '',
    name: item.name ?? '',
    isFolder: Boolean(item.folder) && !item.remoteItem,
    mimeType: item.file?.mimeType ?? null,
    size: isFile && typeof item.size === 'number' && Number.isSafeInteger(item.size) ? item.size : null,
    modifiedAt: item.lastModifiedDateTime ?? null,
    thumbnailUrl: thumbnails?.medium?.url ?? thumbnails?.small?.url ?? null,
    // cTag changes with the content only, so a renamed or moved file is not imported again; the content hash
    // (or, last, the eTag, which also counts metadata changes) where an account has no cTag.
    revision: isFile ? (item.cTag ?? item.file?.hashes?.quickXorHash ?? item.file?.hashes?.sha1Hash ?? item.eTag ?? null) : null,
    exportAs: null,
    unsupported: unsupportedReason(item),
  };
}
