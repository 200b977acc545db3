import type { Readable } from 'node:stream';
import { faultOf, storeFailure } from '../../faults/classify.js';
import type { AppContext } from '../../context.js';
import { appError, notFound } from '../../errors.js';
import { SealBroken, TokenCipher } from '../../drives/token-cipher.js';
import type { DriveItem, DriveProviderId, DriveUploadSource } from '../../drives/types.js';
import * as versions from '../../repositories/versions.js';
import type { DriveItemView, FilesInput, FilesView, UploadInput } from '../../contracts/drives.js';
import { StoreError, type ObjectStore } from '../../storage/object-store.js';
import type { Caller } from '../auth-service.js';
import { loadVisibleAsset } from '../visibility.js';
import { driveAppError, type DriveConnections } from './drive-connections.js';
import { contentDispositionAttachment } from '../../domain/content-disposition.js';
import { fileNameFor } from '../downloads.js';

export interface DriveDownloadResult {
  headers: Record<string, string>;
  stream: Readable;
}

/** What an opaque listing cursor holds: the provider's page token and the listing it belongs to. */
interface CursorState {
  t: string;
  f: string | null;
  q: string | null;
}

export function toItemView(item: DriveItem): DriveItemView {
  return {
    id: item.id,
    name: item.name,
    is_folder: item.isFolder,
    mime_type: item.mimeType,
    size: item.size,
    modified_at: item.modifiedAt,
    thumbnail_url: item.thumbnailUrl,
    export: item.exportAs ? { mime_type: item.exportAs.mimeType, extension: item.exportAs.extension } : null,
    unsupported: item.unsupported,
  };
}

/**
 * Browsing a connected drive, downloading from it and sending assets to it (issue #16). Every provider call
 * goes through DriveConnections.withToken (refresh on expiry, once on 401), and its failures become the API's
 * errors through driveAppError (404, 400, 502 with the provider's message).
 */
export class DriveService {
  private readonly cursors: TokenCipher;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly connections: DriveConnections,
  ) {
    this.cursors = new TokenCipher(ctx.secrets, 'listing-cursor');
  }

  /**
   * One page of a folder (or of a name search). The provider's paging token travels sealed in `next_cursor`,
   * bound to the caller, the provider, the folder and the search: it cannot be read, altered or replayed
   * against another listing (400 naming cursor).
   */
  async files(caller: Caller, id: DriveProviderId, input: FilesInput): Promise<FilesView> {
    const provider = this.connections.provider(id);
    const conn = await this.connections.connection(caller.id, provider);
    const context = `cursor:${caller.id}:${id}`;
    let folder = input.folder ?? null;
    let query = provider.supportsSearch ? (input.q ?? null) : null;
    let pageToken: string | null = null;
    if (input.cursor !== undefined) {
      const state = this.readCursor(input.cursor, context);
      if ((input.folder !== undefined && input.folder !== state.f) || (input.q !== undefined && query !== state.q)) {
        throw appError('VALIDATION_ERROR', 'cursor belongs to another folder or search', { field: 'cursor' });
      }
      ({ f: folder, q: query, t: pageToken } = state);
    }
    try {
      const page = await this.connections.withToken(conn, provider, (token) =>
        provider.list(token, { folder, query, pageToken, pageSize: input.limit ?? 100 }),
      );
      const next: CursorState | null = page.nextPageToken ? { t: page.nextPageToken, f: folder, q: query } : null;
      return {
        folder,
        items: page.items.map(toItemView),
        next_cursor: next ? this.cursors.seal(JSON.stringify(next), context) : null,
      };
    } catch (err) {
      throw driveAppError(err, provider);
    }
  }

  /** Streams one file (a provider document as its export) with its type, length when known, and an attachment name. */
  async download(caller: Caller, id: DriveProviderId, fileId: string): Promise<DriveDownloadResult> {
    const provider = this.connections.provider(id);
    const conn = await this.connections.connection(caller.id, provider);
    try {
      const download = await this.connections.withToken(conn, provider, async (token) => {
        const item = await provider.item(token, fileId);
        if (item.isFolder) throw appError('DRIVE_ITEM_UNSUPPORTED', `${item.name} is a folder; import it, or list it with GET /${id}/files?folder=`);
        if (item.unsupported) throw appError('DRIVE_ITEM_UNSUPPORTED', `${item.name}: ${item.unsupported}`);
        return provider.download(token, item);
      });
      const headers: Record<string, string> = {
        'content-type': download.mimeType,
        'content-disposition': contentDispositionAttachment(download.fileName),
        'x-content-type-options': 'nosniff',
        // Whatever the file holds, it is not run as a page of this origin.
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
      };
      if (download.size !== null) headers['content-length'] = String(download.size);
      return { headers, stream: download.stream };
    } catch (err) {
      throw driveAppError(err, provider);
    }
  }

  /** Sends an asset's current file (or one of its versions) to the drive; viewers may, as they may download it. */
  async upload(caller: Caller, id: DriveProviderId, input: UploadInput): Promise<DriveItemView> {
    const provider = this.connections.provider(id);
    const { db } = this.ctx;
    // Only an asset the caller may download: another's private asset is 404 for a viewer (domain/asset-visibility.ts).
    const asset = await loadVisibleAsset(db, input.assetId, caller.id, 'viewer');
    if (!asset.storage_key) throw notFound('Asset');
    let file = { key: asset.storage_key, name: fileNameFor(asset.display_file_name, asset.mime_type), mimeType: asset.mime_type, size: asset.file_size };
    if (input.version_id !== undefined) {
      const version = await versions.findVersion(db, input.version_id);
      if (!version || version.asset_id !== asset.id || version.status !== 'ready') throw notFound('Version');
      file = { key: version.storage_key, name: fileNameFor(version.display_file_name, version.mime_type), mimeType: version.mime_type, size: version.file_size };
    }
    const conn = await this.connections.connection(caller.id, provider);
    const source: DriveUploadSource = {
      name: file.name,
      mimeType: file.mimeType || 'application/octet-stream',
      size: file.size,
      open: async (range) => {
        try {
          return (await this.store.read(file.key, range)).stream;
        } catch (err) {
          throw err instanceof StoreError || faultOf(err) ? storeFailure(err, 'Reading the file from storage failed') : err;
        }
      },
    };
    try {
      const created = await this.connections.withToken(conn, provider, (token) => provider.upload(token, source, input.folder ?? null));
      return toItemView(created);
    } catch (err) {
      throw driveAppError(err, provider);
    }
  }

  private readCursor(cursor: string, context: string): CursorState {
    const refuse = () => appError('VALIDATION_ERROR', 'cursor is not a cursor of this listing', { field: 'cursor' });
    try {
      const state = JSON.parse(this.cursors.open(cursor, context)) as Partial<CursorState>;
      if (typeof state.t !== 'string' || (state.f !== null && typeof state.f !== 'string') || (state.q !== null && typeof state.q !== 'string')) throw refuse();
      return state as CursorState;
    } catch (err) {
      if (err instanceof SealBroken || err instanceof SyntaxError) throw refuse();
      throw err;
    }
  }
}
