import { PassThrough, type Readable } from 'node:stream';
import { faultOf, storeFailure } from '../../faults/classify.js';
import type { FastifyBaseLogger } from 'fastify';
import mime from 'mime-types';
import type { AppContext } from '../../context.js';
import { ALL_ASSETS, type AssetSight } from '../../domain/asset-visibility.js';
import { appError, notFound } from '../../errors.js';
import type * as assets from '../../repositories/assets.js';
import { collectionAssetIds, findCollection } from '../../repositories/collections.js';
import { findFolder } from '../../repositories/folders.js';
import * as selection from '../../repositories/zip-selection.js';
import type { ZipDownloadInput, ZipEntryView, ZipExtractInput, ZipLinkInput, ZipLinkView, ZipListInput, ZipListView } from '../../contracts/zip.js';
import { StoreError, type ObjectStore } from '../../storage/object-store.js';
import { contentDispositionAttachment } from '../../domain/content-disposition.js';
import { archiveStream, type ArchiveItem } from '../../zip/archive-stream.js';
import type { ZipLinks } from '../../zip/download-links.js';
import { sanitizeSegment } from '../../zip/entry-names.js';
import { ZipArchive, ZipInvalidError, ZipLimitError, type ZipEntryInfo } from '../../zip/zip-reader.js';
import type { Caller } from '../auth-service.js';
import { fileNameFor } from '../downloads.js';
import { loadVisibleAsset, requireSight } from '../visibility.js';

/** Assets read from the database per query while a folder or collection streams. */
const PAGE = 500;

export interface ZipDownload {
  fileName: string;
  entries: number;
  stream: Readable;
}

export interface EntryDownload {
  headers: Record<string, string>;
  stream: Readable;
}

/** The name an asset has in an archive: its display name with an extension from its type when it has none (as a single download). */
const entryName = (a: selection.ArchivedAsset): string => fileNameFor(a.display_file_name || a.file_name, a.mime_type);

function item(a: selection.ArchivedAsset, dir: string): ArchiveItem {
  return {
    path: dir === '' ? entryName(a) : `${dir}/${entryName(a)}`,
    objectKey: a.storage_key!,
    size: a.file_size,
    mimeType: a.mime_type,
    modifiedAt: a.modified_at,
  };
}

/** Maps the reader's errors to the catalogue: not a ZIP is 422 ZIP_INVALID, a limit 422 ZIP_LIMIT_EXCEEDED, the store failing 502. */
export function zipReadError(err: unknown): Error {
  if (err instanceof ZipInvalidError) return appError('ZIP_INVALID', `The asset is not a readable ZIP archive: ${err.message}`);
  if (err instanceof ZipLimitError) return appError('ZIP_LIMIT_EXCEEDED', err.message, { limit: err.limit });
  if (err instanceof StoreError || faultOf(err)) return storeFailure(err);
  return err as Error;
}

/** The ZIP entry's API view. */
export function toEntryView(info: ZipEntryInfo): ZipEntryView {
  return {
    name: info.name,
    size: info.size,
    compressed_size: info.compressedSize,
    crc32: info.crc32,
    is_dir: info.isDir,
    encrypted: info.encrypted,
    modified_at: info.modifiedAt,
    problem: info.problem,
  };
}

/**
 * GET /zip/download, /zip/list and /zip/extract (issue #14): archives of assets streamed as they
 * are written (src/zip/archive-stream.ts), and stored ZIPs read through their central directory
 * (src/zip/zip-reader.ts). Imports (POST /zip/extract) are ./zip-import-service.ts.
 */
export class ZipService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly links: ZipLinks,
  ) {}

  /** Viewers may download. Everything is checked (membership, targets, the entry limit) before the first byte. */
  async download(caller: Caller, q: ZipDownloadInput, log: FastifyBaseLogger): Promise<ZipDownload> {
    if (q.user_id !== undefined || q.expires !== undefined) {
      throw appError('VALIDATION_ERROR', 'user_id and expires belong to a signed URL: give its signature too, or none of them', { field: 'signature' });
    }
    return this.stream(caller.id, q, log);
  }

  /**
   * POST /zip/link: a short-lived signed URL of GET /zip/download for the browser to follow by itself.
   * The selection is checked now as the download would check it (membership, targets, entry limit),
   * so a refusal comes back in words here rather than as a failed download; it is checked again
   * when the URL is used.
   */
  async link(caller: Caller, input: ZipLinkInput): Promise<ZipLinkView> {
    const q: ZipDownloadInput = {
      workspaceId: input.workspaceId,
      asset_ids: input.asset_ids === undefined ? undefined : [...new Set(input.asset_ids)].join(','),
      folder_id: input.folder_id,
      collection_id: input.collection_id,
    };
    await this.select(caller.id, q);
    const signed = this.links.sign({ ...q, user_id: caller.id });
    return { url: signed.url, expires_at: signed.expiresAt };
  }

  /**
   * The user a signed download URL was issued to, once its signature (over the whole selection and
   * the user) and expiry check out: 403 INVALID_SIGNATURE or URL_EXPIRED otherwise.
   */
  signedUser(q: ZipDownloadInput): number {
    if (q.user_id === undefined) throw appError('INVALID_SIGNATURE', 'The URL signature is invalid: the URL names no user_id');
    const verdict = this.links.verify({ ...q, user_id: q.user_id }, q.expires, q.signature);
    if (verdict === 'invalid') throw appError('INVALID_SIGNATURE');
    if (verdict === 'expired') throw appError('URL_EXPIRED');
    return q.user_id;
  }

  /** GET /zip/download through a signed URL: as the user it was issued to, whose membership is checked again now. */
  async downloadSigned(q: ZipDownloadInput, log: FastifyBaseLogger): Promise<ZipDownload> {
    return this.stream(this.signedUser(q), q, log);
  }

  private async stream(userId: number, q: ZipDownloadInput, log: FastifyBaseLogger): Promise<ZipDownload> {
    const selected = await this.select(userId, q);
    return { fileName: selected.fileName, entries: selected.entries, stream: archiveStream(this.store, selected.items, log) };
  }

  /**
   * The checks of a download, before its first byte: the user's membership (viewers too), one target of the workspace, the
   * entry limit. What the archive holds is what the user sees (domain/asset-visibility.ts): a listed asset they may not see
   * is 404 like a missing one, a folder or collection holds only the assets they see.
   */
  private async select(userId: number, q: ZipDownloadInput) {
    const ws = q.workspaceId;
    const sight = await requireSight(this.ctx.db, ws, userId);
    const targets = [q.asset_ids, q.folder_id, q.collection_id].filter((t) => t !== undefined).length;
    if (targets !== 1) {
      throw appError('VALIDATION_ERROR', 'Give exactly one of asset_ids, folder_id or collection_id', { field: 'asset_ids' });
    }
    const selected =
      q.asset_ids !== undefined
        ? await this.assetSelection(ws, q.asset_ids, sight)
        : q.folder_id !== undefined
          ? await this.folderSelection(ws, q.folder_id, sight)
          : await this.collectionSelection(ws, q.collection_id!, sight);
    const max = this.ctx.config.zip.downloadMaxEntries;
    if (selected.entries > max) {
      throw appError('ZIP_TOO_MANY_ENTRIES', `The selection holds ${selected.entries} files and folders; one ZIP download holds at most ${max}`, {
        entries: selected.entries,
        limit: max,
      });
    }
    return selected;
  }

  private async assetSelection(ws: number, list: string, sight: AssetSight) {
    const ids = [...new Set(list.split(',').map(Number))];
    if (ids.some((id) => !Number.isSafeInteger(id))) throw appError('VALIDATION_ERROR', 'asset_ids: an id is larger than 2^53 - 1', { field: 'asset_ids' });
    const found = new Map((await selection.archivedAssets(this.ctx.db, ws, ids, sight)).map((a) => [a.id, a]));
    const missing = ids.find((id) => !found.get(id)?.storage_key);
    if (missing !== undefined) throw notFound(`Asset ${missing}`);
    const items = ids.map((id) => item(found.get(id)!, ''));
    return { fileName: ids.length === 1 ? `${entryName(found.get(ids[0]!)!)}.zip` : 'assets.zip', entries: items.length, items };
  }

  /** The folder's files at the archive's top level, each sub-folder a directory (empty ones included). */
  private async folderSelection(ws: number, folderId: number, sight: AssetSight) {
    const db = this.ctx.db;
    const root = await findFolder(db, folderId);
    if (!root || root.workspace_id !== ws) throw notFound('Folder');
    const folders = await selection.subtreeFolders(db, ws, folderId);
    const byId = new Map(folders.map((f) => [f.id, f]));
    const paths = new Map<number, string>([[folderId, '']]);
    const pathOf = (id: number, depth = 0): string => {
      const known = paths.get(id);
      if (known !== undefined) return known;
      const f = byId.get(id);
      // A parent outside the subtree cannot happen (the walk starts at the root); a cycle would be corrupt data.
      if (!f || f.parent_id === null || depth > 1000) return '';
      const parent = pathOf(f.parent_id, depth + 1);
      const p = parent === '' ? f.name : `${parent}/${f.name}`;
      paths.set(id, p);
      return p;
    };
    const count = await selection.countSubtreeAssets(db, ws, folderId, sight);
    async function* items(): AsyncGenerator<ArchiveItem> {
      for (const f of folders) {
        if (f.id !== folderId) yield { path: pathOf(f.id), objectKey: '', size: 0, mimeType: '', modifiedAt: f.modified_at, kind: 'directory' };
      }
      // The folders already read, a few hundred at a time: no page walks the tree again.
      for (let i = 0; i < folders.length; i += PAGE) {
        const ids = folders.slice(i, i + PAGE).map((f) => f.id);
        for (let after = 0; ; ) {
          const page = await selection.folderAssetsAfter(db, ws, ids, after, PAGE, sight);
          for (const a of page) if (a.storage_key) yield item(a, pathOf(a.folder_id ?? folderId));
          if (page.length < PAGE) break;
          after = page[page.length - 1]!.id;
        }
      }
    }
    return { fileName: `${root.name}.zip`, entries: count + folders.length - 1, items: items() };
  }

  private async collectionSelection(ws: number, collectionId: number, sight: AssetSight) {
    const db = this.ctx.db;
    const collection = await findCollection(db, collectionId, ALL_ASSETS);
    if (!collection || collection.workspace_id !== ws) throw notFound('Collection');
    const ids = await collectionAssetIds(db, ws, collectionId, sight);
    async function* items(): AsyncGenerator<ArchiveItem> {
      for (let i = 0; i < ids.length; i += PAGE) {
        const batch = ids.slice(i, i + PAGE);
        const found = new Map((await selection.archivedAssets(db, ws, batch, sight)).map((a) => [a.id, a]));
        for (const id of batch) {
          const a = found.get(id);
          if (a?.storage_key) yield item(a, '');
        }
      }
    }
    return { fileName: `${collection.name}.zip`, entries: ids.length, items: items() };
  }

  /** A ZIP asset the caller may read (viewers too, when they see it), opened on its central directory. */
  private async openArchive(caller: Caller, assetId: number): Promise<{ asset: assets.AssetRecord; archive: ZipArchive }> {
    const asset = await loadVisibleAsset(this.ctx.db, assetId, caller.id, 'viewer');
    if (!asset.storage_key) throw notFound('Asset');
    try {
      return { asset, archive: await ZipArchive.open(this.store, asset.storage_key, asset.file_size) };
    } catch (err) {
      throw zipReadError(err);
    }
  }

  /** A page of the archive's entries, read from its central directory only. */
  async list(caller: Caller, q: ZipListInput): Promise<ZipListView> {
    const page = q.page ?? 1;
    const perPage = q.per_page ?? 50;
    const { asset, archive } = await this.openArchive(caller, q.assetId);
    const offset = (page - 1) * perPage;
    const items: ZipEntryView[] = [];
    try {
      if (offset < archive.entryCount) {
        for await (const { info } of archive.entries()) {
          if (info.index < offset) continue;
          items.push(toEntryView(info));
          if (items.length === perPage) break;
        }
      }
    } catch (err) {
      throw zipReadError(err);
    } finally {
      archive.close();
    }
    return { asset_id: asset.id, items, page, per_page: perPage, total: archive.entryCount };
  }

  /**
   * One entry's bytes, streamed as they are inflated, as an attachment. Refused before the first
   * byte: a directory, an entry with a problem (encrypted: ZIP_ENTRY_ENCRYPTED), a declared size
   * or ratio over the limits. While streaming, the actual bytes are held to the same limits and the
   * CRC-32 is checked; a failure then cuts the connection (the status is already sent).
   */
  async extract(caller: Caller, q: ZipExtractInput): Promise<EntryDownload> {
    const { archive } = await this.openArchive(caller, q.assetId);
    const limits = { maxBytes: this.ctx.config.zip.maxUncompressed, maxRatio: this.ctx.config.zip.maxRatio };
    try {
      let found: Awaited<ReturnType<typeof this.findEntry>>;
      try {
        found = await this.findEntry(archive, q.path);
      } catch (err) {
        throw zipReadError(err);
      }
      if (!found) throw notFound(`Entry "${q.path}" of this archive`);
      const { info, entry } = found;
      if (info.problem === 'encrypted') throw appError('ZIP_ENTRY_ENCRYPTED', `"${info.name}" is encrypted; encrypted entries are listed, never extracted`);
      if (info.problem) throw appError('ZIP_ENTRY_UNSUPPORTED', `"${info.name}" is not extracted: ${info.problem}`, { problem: info.problem });
      if (info.isDir) throw appError('ZIP_ENTRY_UNSUPPORTED', `"${info.name}" is a directory; extract its files one by one`, { problem: 'directory' });
      if (info.size > limits.maxBytes) {
        throw appError('ZIP_LIMIT_EXCEEDED', `"${info.name}" declares ${info.size} bytes; at most ${limits.maxBytes} are extracted`, { limit: 'bytes' });
      }
      if (info.size > 1024 * 1024 && info.size > limits.maxRatio * Math.max(info.compressedSize, 1)) {
        throw appError('ZIP_LIMIT_EXCEEDED', `"${info.name}" declares more than ${limits.maxRatio} times its compressed size`, { limit: 'ratio' });
      }
      let inflated: Readable;
      try {
        inflated = await archive.openEntry(entry, info, limits);
      } catch (err) {
        throw zipReadError(err);
      }
      // The stream fails with a catalogue error: a 422 when it fails before the first byte (a liar caught
      // on its first chunk); afterwards Fastify logs it and cuts the connection.
      const stream = new PassThrough();
      inflated.once('error', (err) => stream.destroy(zipReadError(err)));
      stream.once('close', () => {
        inflated.destroy();
        archive.close();
      });
      inflated.pipe(stream);
      const baseName = sanitizeSegment(info.name.split('/').pop() ?? '');
      const type = mime.lookup(baseName) || 'application/octet-stream';
      return {
        stream,
        headers: {
          // Whatever the type, never rendered in our origin: an attachment, nosniff, and a sandboxing CSP.
          'content-type': type,
          'content-disposition': contentDispositionAttachment(baseName),
          'content-length': String(info.size),
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; sandbox",
          'cache-control': 'private, no-store',
        },
      };
    } catch (err) {
      archive.close();
      throw err;
    }
  }

  private async findEntry(archive: ZipArchive, name: string) {
    for await (const found of archive.entries()) if (found.info.name === name) return found;
    return undefined;
  }
}
