import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import { extractPoster, locateFfmpeg } from '../media/ffmpeg.js';
import { RENDITION_MIME, renderImage, UnreadableMedia, type RenderedImage } from '../media/renditions.js';
import * as versions from '../repositories/versions.js';
import { renditionKey } from '../storage/keys.js';
import type { ObjectStore } from '../storage/object-store.js';

type Plan = { kind: 'image' } | { kind: 'video'; ffmpeg: string } | { kind: 'none'; reason: string };

/**
 * The work of the MAKE_RENDITIONS job (issue #5): a 256 px thumbnail and a 1440 px preview
 * of a version, from the image itself (sharp) or from a poster frame of a video (ffmpeg).
 * Other types keep the generic icon of their file type and say their preview is unavailable.
 * Idempotent: a retry overwrites the renditions it already made.
 */
export class RenditionService {
  private ffmpeg: Promise<string | undefined> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
  ) {}

  async make(versionId: number): Promise<void> {
    const version = await versions.findVersion(this.ctx.db, versionId);
    // Deleted (with its asset, or as history) before the job ran: nothing to do.
    if (!version || version.status !== 'ready') return;
    const plan = await this.plan(version.mime_type);
    if (plan.kind === 'none') {
      await versions.setPreviewStatus(this.ctx.db, version.id, 'unavailable', plan.reason);
      return;
    }
    const work = await this.workDir();
    try {
      const source = path.join(work, 'source');
      const body = await this.store.read(version.storage_key);
      await pipeline(body.stream, createWriteStream(source));
      let image = source;
      if (plan.kind === 'video') {
        image = path.join(work, 'poster.png');
        await extractPoster(plan.ffmpeg, source, image);
      }
      const rendered = await renderImage(image);
      for (const r of rendered) {
        if (!(await this.keep(version, r, work))) return;
      }
      await versions.setPreviewStatus(this.ctx.db, version.id, 'ready', null);
    } catch (err) {
      if (!(err instanceof UnreadableMedia)) throw err;
      await versions.setPreviewStatus(this.ctx.db, version.id, 'unavailable', err.message);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** The job failed for good: the version says so, and keeps its icon. */
  async giveUp(versionId: number, error: string): Promise<void> {
    await versions.setPreviewStatus(this.ctx.db, versionId, 'failed', error.slice(0, 1000));
  }

  private async plan(mimeType: string): Promise<Plan> {
    const type = mimeType.split(';')[0]!.trim().toLowerCase();
    // SVG is markup, not pixels: it is not rasterised on the server.
    if (type.startsWith('image/') && type !== 'image/svg+xml') return { kind: 'image' };
    if (type.startsWith('video/')) {
      this.ffmpeg ??= locateFfmpeg(this.ctx.config.ffmpegPath);
      const ffmpeg = await this.ffmpeg;
      if (!ffmpeg) return { kind: 'none', reason: 'ffmpeg is not installed (install it or set FFMPEG_PATH): videos get no poster' };
      return { kind: 'video', ffmpeg };
    }
    return { kind: 'none', reason: `No preview is made for ${type || 'files without a type'}; the thumbnail is the file type's icon` };
  }

  /** Stores one rendition and records it; false when the version went meanwhile (its object is removed again). */
  private async keep(version: versions.VersionRecord, r: RenderedImage, work: string): Promise<boolean> {
    const key = renditionKey(version.workspace_id, version.asset_id, version.id, `${r.kind}.webp`);
    const file = path.join(work, `${r.kind}.webp`);
    await writeFile(file, r.data);
    await this.store.putFile(key, file, RENDITION_MIME);
    try {
      await versions.upsertRendition(this.ctx.db, {
        version_id: version.id,
        kind: r.kind,
        storage_key: key,
        mime_type: RENDITION_MIME,
        width: r.width,
        height: r.height,
        file_size: r.data.length,
      });
      return true;
    } catch (err) {
      // Without a row, no trigger would ever queue this object for deletion.
      if (await versions.findVersion(this.ctx.db, version.id)) throw err;
      await this.store.delete(key);
      return false;
    }
  }

  private async workDir(): Promise<string> {
    const parent = path.join(this.ctx.config.dataDir, 'tmp', 'renditions');
    await mkdir(parent, { recursive: true });
    return mkdtemp(path.join(parent, 'job-'));
  }
}
