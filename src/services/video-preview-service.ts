import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import { fileTypeOf } from '../domain/file-types.js';
import { locateFfmpegTools } from '../media/ffmpeg.js';
import { UnreadableMedia } from '../media/renditions.js';
import { ffmpegArgs, isWebPlayable, PREVIEW_BOX, probeMedia, runFfmpeg } from '../media/transcode.js';
import * as versions from '../repositories/versions.js';
import { renditionKey } from '../storage/keys.js';
import type { ObjectStore } from '../storage/object-store.js';

const VIDEO_MIME = 'video/mp4';

/**
 * The MAKE_VIDEO_PREVIEW job (issue #15): a web-playable preview of every video version, so the
 * web client plays MOV, MKV, AVI, WebM... in its <video>: H.264 (8-bit 4:2:0) + AAC in an MP4 with
 * `+faststart`, within 720p (1280 x 720, or 720 x 1280 upright), never enlarged, stored as the
 * version's `video` rendition and served by the signed media route with Range support. A file that
 * already plays everywhere (transcode.ts isWebPlayable) is not transcoded: its preview is the file
 * itself (status `original`). Poster frames stay the rendition job's (rendition-service.ts), so a
 * thumbnail never waits for a transcode. Idempotent: a retry overwrites the rendition.
 */
export class VideoPreviewService {
  private tools: ReturnType<typeof locateFfmpegTools> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
  ) {}

  async make(versionId: number): Promise<void> {
    const version = await versions.findVersion(this.ctx.db, versionId);
    if (!version || version.status !== 'ready' || fileTypeOf(version.mime_type) !== 'video') return;
    const set = (status: 'ready' | 'original' | 'unavailable', note: string | null) => versions.setVideoPreviewStatus(this.ctx.db, version.id, status, note);
    if (!this.ctx.config.convert.videoPreviews) return set('unavailable', 'Video previews are turned off on this instance (DAM_VIDEO_PREVIEWS)');
    this.tools ??= locateFfmpegTools(this.ctx.config.ffmpegPath);
    const tools = await this.tools;
    if (!tools) return set('unavailable', 'ffmpeg is not installed (install it or set FFMPEG_PATH): videos play from their file only');
    const work = await this.workDir();
    try {
      const source = path.join(work, 'source');
      const body = await this.store.read(version.storage_key);
      await pipeline(body.stream, createWriteStream(source));
      const probe = await probeMedia(tools.ffprobe, source);
      if (!probe.video) return await set('unavailable', 'The file has no video stream to preview');
      if (isWebPlayable(version.mime_type, probe)) return await set('original', null);
      const output = path.join(work, 'video.mp4');
      const args = ffmpegArgs(source, output, { format: 'mp4', size: { box: PREVIEW_BOX }, bitrateKbps: null, audio: true }, { start: 0, duration: null });
      await runFfmpeg(tools.ffmpeg, args, { timeoutMs: this.ctx.config.convert.timeoutMs });
      const made = await probeMedia(tools.ffprobe, output);
      if (!(await this.keep(version, output, made.video ?? { width: 0, height: 0 }))) return;
      await set('ready', null);
    } catch (err) {
      if (!(err instanceof UnreadableMedia)) throw err;
      await set('unavailable', err.message);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** The job failed for good: the version says so, and plays from its file if the browser can. */
  async giveUp(versionId: number, error: string): Promise<void> {
    await versions.setVideoPreviewStatus(this.ctx.db, versionId, 'failed', error.slice(0, 1000));
  }

  /** Stores the rendition and records it; false when the version went meanwhile (its object is removed again). */
  private async keep(version: versions.VersionRecord, file: string, size: { width: number; height: number }): Promise<boolean> {
    const key = renditionKey(version.workspace_id, version.asset_id, version.id, 'video.mp4');
    await this.store.putFile(key, file, VIDEO_MIME);
    try {
      await versions.upsertRendition(this.ctx.db, {
        version_id: version.id,
        kind: 'video',
        storage_key: key,
        mime_type: VIDEO_MIME,
        width: size.width,
        height: size.height,
        file_size: (await stat(file)).size,
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
    const parent = path.join(this.ctx.config.dataDir, 'tmp', 'video-previews');
    await mkdir(parent, { recursive: true });
    return mkdtemp(path.join(parent, 'job-'));
  }
}
