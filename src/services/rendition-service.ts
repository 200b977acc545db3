import { createWriteStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import { fileTypeOf } from '../domain/file-types.js';
import { previewSourceOf } from '../domain/previews.js';
import { imageFailure } from '../domain/unreadable.js';
import { extractPoster, locateFfmpeg, locateFfprobe } from '../media/ffmpeg.js';
import { convertToPdf } from '../media/office.js';
import { locatePoppler, pdfPageCount, renderFirstPage, type Poppler } from '../media/pdf.js';
import { RENDITION_MIME, renderImage, UnreadableMedia, type RenderedImage } from '../media/renditions.js';
import { TEXT_PREVIEW_BYTES, textPreviewSvg } from '../media/text-preview.js';
import { executable } from '../media/tools.js';
import { probeMedia } from '../media/transcode.js';
import * as versions from '../repositories/versions.js';
import type { ObjectStore } from '../storage/object-store.js';
import { keepRendition } from './rendition-store.js';
import type { UnreadableFiles } from './unreadable-files.js';
import { jobWorkDir } from './work-dir.js';

type Plan =
  | { kind: 'image' }
  /** `ffprobe` tells a damaged video from one without a picture when no poster can be taken; undefined without one. */
  | { kind: 'video'; ffmpeg: string; ffprobe: string | undefined }
  | { kind: 'pdf'; poppler: Poppler }
  | { kind: 'office'; poppler: Poppler; soffice: string; extension: string }
  | { kind: 'text' }
  | { kind: 'none'; reason: string };

const NO_POPPLER = 'pdftoppm (poppler-utils) is not installed (install it or set PDFTOPPM_PATH)';

/**
 * The work of the MAKE_RENDITIONS job (issue #5, #11): a 256 px thumbnail and a 1440 px preview
 * of a version, from the image itself (sharp), a poster frame of a video (ffmpeg), the first
 * page of a PDF (pdftoppm) or of an office document converted to PDF (LibreOffice), or the
 * first lines of a text file; PDFs and office documents also get their page count.
 * Other types keep the generic icon of their file type and say their preview is unavailable.
 * Issue #27: a file that cannot be decoded (image) or probed (video, audio, PDF) is marked unreadable with a reason
 * in words (./unreadable-files.ts); the tools' own words go to the log only. Sound has no preview, but is probed.
 * Idempotent: a retry overwrites the renditions it already made.
 */
export class RenditionService {
  private ffmpeg: Promise<string | undefined> | undefined;
  private ffprobe: Promise<string | undefined> | undefined;
  private poppler: Promise<Poppler | undefined> | undefined;
  private soffice: Promise<boolean> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly unreadable: UnreadableFiles,
  ) {}

  async make(versionId: number): Promise<void> {
    const version = await versions.findVersion(this.ctx.db, versionId);
    // Deleted (with its asset, or as history) before the job ran: nothing to do.
    if (!version || version.status !== 'ready') return;
    const plan = await this.plan(version.mime_type);
    if (plan.kind === 'none') {
      await this.checkPlayable(version);
      await versions.setPreviewStatus(this.ctx.db, version.id, 'unavailable', plan.reason);
      return;
    }
    const work = await jobWorkDir(this.ctx.config.dataDir, 'renditions');
    try {
      const rendered = await this.render(plan, version, work);
      for (const r of rendered) {
        if (!(await this.keep(version, r, work))) return;
      }
      await versions.setPreviewStatus(this.ctx.db, version.id, 'ready', null);
    } catch (err) {
      if (!(err instanceof UnreadableMedia)) throw err;
      await versions.setPreviewStatus(this.ctx.db, version.id, 'unavailable', await this.unreadable.record(version, err));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /**
   * The job failed for good: the version says so, and keeps its icon. The error (which may name a server path) is in
   * the log already (jobs/worker.ts); the note is fixed words.
   */
  async giveUp(versionId: number, _error: string): Promise<void> {
    await versions.setPreviewStatus(this.ctx.db, versionId, 'failed', 'The preview could not be made; the server log has the details');
  }

  /** Issue #27: sound gets no preview, but a file taken for audio that ffprobe cannot read is marked unreadable. */
  private async checkPlayable(version: versions.VersionRecord): Promise<void> {
    if (fileTypeOf(version.mime_type) !== 'audio') return;
    const ffprobe = await this.locateFfprobe();
    if (!ffprobe) return;
    const work = await jobWorkDir(this.ctx.config.dataDir, 'renditions');
    try {
      await probeMedia(ffprobe, await this.download(version, path.join(work, 'source')), 'audio');
    } catch (err) {
      if (!(err instanceof UnreadableMedia)) throw err;
      await this.unreadable.record(version, err);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  private async plan(mimeType: string): Promise<Plan> {
    const source = previewSourceOf(mimeType);
    switch (source.kind) {
      case 'image':
      case 'text':
        return source;
      case 'video': {
        this.ffmpeg ??= locateFfmpeg(this.ctx.config.ffmpegPath);
        const ffmpeg = await this.ffmpeg;
        if (!ffmpeg) return { kind: 'none', reason: 'ffmpeg is not installed (install it or set FFMPEG_PATH): videos get no poster' };
        return { kind: 'video', ffmpeg, ffprobe: await this.locateFfprobe() };
      }
      case 'pdf': {
        const poppler = await this.locatePoppler();
        if (!poppler) return { kind: 'none', reason: `${NO_POPPLER}: PDFs get no preview` };
        return { kind: 'pdf', poppler };
      }
      case 'office': {
        const soffice = this.ctx.config.libreofficePath;
        if (!soffice) return { kind: 'none', reason: 'Office documents get a preview when LibreOffice is configured (DAM_LIBREOFFICE_PATH)' };
        this.soffice ??= executable(soffice);
        if (!(await this.soffice)) return { kind: 'none', reason: 'LibreOffice is configured (DAM_LIBREOFFICE_PATH) but is not an executable file' };
        const poppler = await this.locatePoppler();
        if (!poppler) return { kind: 'none', reason: `${NO_POPPLER}: office documents get no preview` };
        return { kind: 'office', poppler, soffice, extension: source.extension };
      }
      case 'none': {
        const type = mimeType.split(';')[0]!.trim().toLowerCase();
        return { kind: 'none', reason: `No preview is made for ${type || 'files without a type'}; the thumbnail is the file type's icon` };
      }
    }
  }

  /** ffprobe beside the ffmpeg in use; undefined when either is missing (nothing is then probed). */
  private async locateFfprobe(): Promise<string | undefined> {
    this.ffmpeg ??= locateFfmpeg(this.ctx.config.ffmpegPath);
    const ffmpeg = await this.ffmpeg;
    this.ffprobe ??= ffmpeg ? locateFfprobe(ffmpeg) : Promise.resolve(undefined);
    return this.ffprobe;
  }

  private locatePoppler(): Promise<Poppler | undefined> {
    this.poppler ??= locatePoppler(this.ctx.config.pdftoppmPath);
    return this.poppler;
  }

  /** The preview and thumbnail, as WebP, by way of one image (sharp) whatever the source. */
  private async render(plan: Exclude<Plan, { kind: 'none' }>, version: versions.VersionRecord, work: string): Promise<RenderedImage[]> {
    if (plan.kind === 'text') return renderImage(textPreviewSvg(await this.readStart(version, TEXT_PREVIEW_BYTES)));
    // LibreOffice chooses its import filter by the file's extension.
    const source = await this.download(version, path.join(work, plan.kind === 'office' ? `source.${plan.extension}` : 'source'));
    switch (plan.kind) {
      case 'image':
        return renderImage(source).catch((err: unknown) => {
          if (!(err instanceof UnreadableMedia)) throw err;
          // In words by the file's type: damaged (a JPEG cut short), or a format without previews here (camera RAW).
          const { reason, damaged } = imageFailure(version.mime_type, err.detail ?? '');
          throw new UnreadableMedia(reason, { damaged, detail: err.detail });
        });
      case 'video': {
        const poster = path.join(work, 'poster.png');
        try {
          await extractPoster(plan.ffmpeg, source, poster);
        } catch (err) {
          // No frame: a damaged file (ffprobe cannot read it either: its UnreadableMedia), or one with sound only.
          if (err instanceof UnreadableMedia && plan.ffprobe) await probeMedia(plan.ffprobe, source, 'video');
          throw err;
        }
        return renderImage(poster);
      }
      case 'pdf':
        return this.renderPdf(version, plan.poppler, source, work);
      case 'office':
        return this.renderPdf(version, plan.poppler, await convertToPdf(plan.soffice, source, work), work);
    }
  }

  /**
   * Counts the pages (kept even when page 1 then cannot be drawn), then draws page 1. A count poppler cannot
   * make leaves the one ExifTool may have read from the PDF (embedded metadata, issue #12).
   */
  private async renderPdf(version: versions.VersionRecord, poppler: Poppler, pdf: string, work: string): Promise<RenderedImage[]> {
    const pages = await pdfPageCount(poppler, pdf);
    // Under the asset's row lock, as promote() copies file facts: the version stays current (or not) meanwhile.
    if (pages !== null) {
      await this.ctx.db.transaction().execute(async (trx) => {
        await this.ctx.database.support.lockRow(trx, 'assets', version.asset_id);
        await versions.setPageCount(trx, version.id, pages);
      });
    }
    return renderImage(await renderFirstPage(poppler, pdf, path.join(work, 'page')));
  }

  private async download(version: versions.VersionRecord, file: string): Promise<string> {
    const body = await this.store.read(version.storage_key);
    await pipeline(body.stream, createWriteStream(file));
    return file;
  }

  /** The first `limit` bytes of the version's file, by a range read: a large text file is not copied whole. */
  private async readStart(version: versions.VersionRecord, limit: number): Promise<Buffer> {
    const size = Math.min(version.file_size, limit);
    if (size <= 0) return Buffer.alloc(0);
    const body = await this.store.read(version.storage_key, { start: 0, end: size - 1 });
    const chunks: Buffer[] = [];
    let read = 0;
    for await (const chunk of body.stream as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      read += chunk.length;
      if (read >= size) break;
    }
    return Buffer.concat(chunks).subarray(0, size);
  }

  /** Stores one rendition (written to `work` first) and records it; false when the version went meanwhile. */
  private async keep(version: versions.VersionRecord, r: RenderedImage, work: string): Promise<boolean> {
    const name = `${r.kind}.webp`;
    const file = path.join(work, name);
    await writeFile(file, r.data);
    return keepRendition(this.ctx.db, this.store, version, {
      kind: r.kind,
      name,
      file,
      mime_type: RENDITION_MIME,
      width: r.width,
      height: r.height,
      file_size: r.data.length,
    });
  }
}
