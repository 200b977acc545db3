import { createReadStream, createWriteStream } from 'node:fs';
import { faultOf, storeFailure as answerStoreFailure } from '../faults/classify.js';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import { appError } from '../errors.js';
import { exifToolExtension, exifToolWrites, type ExifToolRunner } from '../media/exiftool.js';
import { writebackTags } from '../media/writeback-tags.js';
import type { AssetRecord } from '../repositories/assets.js';
import * as versions from '../repositories/versions.js';
import { StoreError, type ObjectStore } from '../storage/object-store.js';
import { downloadHeaders, streamDownload, type DownloadConditions, type DownloadResult, type DownloadValidator } from './downloads.js';

/** Larger files are served as stored: the copy ExifTool rewrites would hold up the answer and the disk. */
export const EMBED_MAX_BYTES = 2 * 1024 ** 3;

/** Answer header: whether the metadata was written into this download (`true`) or the stored bytes were sent (`false`). */
export const EMBEDDED_HEADER = 'metadata-embedded';

export interface DownloadFile {
  key: string;
  fileName: string;
  mimeType: string;
  /** Of the stored bytes: sent with them (a file sent as stored); a written copy has none, it exists for one answer. */
  validator?: DownloadValidator;
}

const storeFailure = (err: unknown): never => {
  throw err instanceof StoreError || faultOf(err) ? answerStoreFailure(err) : err;
};

/**
 * Downloads with `?embed_metadata=true` (issue #12): the file with the asset's current caption, creator,
 * copyright, usage terms and tags written into it by ExifTool, on a temporary copy that is removed once sent;
 * the stored object is never touched. The written file is made for this answer, so it is sent whole (200,
 * `Accept-Ranges: none`) whatever `Range` asked.
 */
export class MetadataWriteback {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly exiftool: ExifToolRunner,
  ) {}

  async download(asset: AssetRecord, file: DownloadFile, conditions: DownloadConditions): Promise<DownloadResult> {
    const asStored = async () => {
      const result = await streamDownload(this.store, file.key, { ...file, conditions });
      return { ...result, headers: { ...result.headers, [EMBEDDED_HEADER]: 'false' } };
    };
    if (!exifToolWrites(file.mimeType)) return asStored();
    const info = await this.store.head(file.key).catch(storeFailure);
    if (!info) throw appError('NOT_FOUND', 'The file of this asset is missing from storage');
    if (info.size > EMBED_MAX_BYTES) return asStored();

    const work = await this.workDir();
    try {
      const copy = path.join(work, `file${exifToolExtension(file.mimeType)}`);
      const body = await this.store.read(file.key).catch(storeFailure);
      await pipeline(body.stream, createWriteStream(copy));
      const [current] = await versions.currentVersionsOf(this.ctx.db, [asset.id]);
      // The asset's fields are the file's only once its current file was read; before that, write values only.
      const read = current !== undefined && asset.metadata_version_id === current.id;
      let written = true;
      try {
        await this.exiftool.writeTags(copy, writebackTags(asset, read));
      } catch {
        // A file ExifTool cannot rewrite (damaged, or a variant it does not write): its copy is unchanged.
        written = false;
      }
      const { size } = await stat(copy);
      const stream = createReadStream(copy);
      stream.once('close', () => void rm(work, { recursive: true, force: true }));
      const headers = { ...downloadHeaders(file.fileName, file.mimeType), 'accept-ranges': 'none', 'content-length': String(size), [EMBEDDED_HEADER]: String(written) };
      return { status: 200, headers, stream };
    } catch (err) {
      await rm(work, { recursive: true, force: true });
      throw err;
    }
  }

  private async workDir(): Promise<string> {
    const parent = path.join(this.ctx.config.dataDir, 'tmp', 'writeback');
    await mkdir(parent, { recursive: true });
    return mkdtemp(path.join(parent, 'download-'));
  }
}
