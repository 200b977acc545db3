import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import { fileTypeOf } from '../domain/file-types.js';
import { locateFfmpegTools } from '../media/ffmpeg.js';
import { UnreadableMedia } from '../media/renditions.js';
import { ffmpegArgs, isWebPlayable, PREVIEW_BOX, probeMedia, runFfmpeg } from '../media/transcode.js';
import * as versions from '../repositories/versions.js';
import type { ObjectStore } from '../storage/object-store.js';
import { keepRendition } from './rendition-store.js';
import type { UnreadableFiles } from './unreadable-files.js';
import { jobWorkDir } from './work-dir.js';

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
    private readonly unreadable: UnreadableFiles,
  ) {}

  async make(versionId: number): Promise<void> {
    const version = await versions.findVersion(this.ctx.db, versionId);
    if (!version || version.status !== 'ready' || fileTypeOf(version.mime_type) !== 'video') return;
    const set = (status: 'ready' | 'original' | 'unavailable', note: string | null) => versions.setVideoPreviewStatus(this.ctx.db, version.id, status, note);
    if (!this.ctx.config.convert.videoPreviews) return set('unavailable', 'Video previews are turned off on this instance (DAM_VIDEO_PREVIEWS)');
    this.tools ??= locateFfmpegTools(this.ctx.config.ffmpegPath);
    const tools = await this.tools;
    if (!tools) return set('unavailable', 'ffmpeg is not installed (install it or set FFMPEG_PATH): videos play from their file only');
    const work = await jobWorkDir(this.ctx.config.dataDir, 'video-previews');
    try {
      const source = path.join(work, 'source');
      const body = await this.store.read(version.storage_key);
      await pipeline(body.stream, createWriteStream(source));
      const probe = await probeMedia(tools.ffprobe, source, 'video');
      if (!probe.video) return await set('unavailable', 'The file has no video stream to preview');
      if (isWebPlayable(version.mime_type, probe)) return await set('original', null);
      const output = path.join(work, 'video.mp4');
      const args = ffmpegArgs(source, output, { format: 'mp4', size: { box: PREVIEW_BOX }, bitrateKbps: null, audio: true }, { start: 0, duration: null });
      await runFfmpeg(tools.ffmpeg, args, { timeoutMs: this.ctx.config.convert.timeoutMs });
      const made = await probeMedia(tools.ffprobe, output);
      const size = made.video ?? { width: 0, height: 0 };
      const kept = await keepRendition(this.ctx.db, this.store, version, {
        kind: 'video',
        name: 'video.mp4',
        file: output,
        mime_type: VIDEO_MIME,
        width: size.width,
        height: size.height,
        file_size: (await stat(output)).size,
      });
      if (!kept) return;
      await set('ready', null);
    } catch (err) {
      if (!(err instanceof UnreadableMedia)) throw err;
      // Fixed words (issue #27): ffprobe's and ffmpeg's own name the work directory; they go to the log.
      await set('unavailable', await this.unreadable.record(version, err));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** The job failed for good: the version says so, and plays from its file if the browser can. The error is logged (jobs/worker.ts). */
  async giveUp(versionId: number, _error: string): Promise<void> {
    await versions.setVideoPreviewStatus(this.ctx.db, versionId, 'failed', 'The video preview could not be made; the server log has the details');
  }
}
