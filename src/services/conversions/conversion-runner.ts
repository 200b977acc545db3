import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../../context.js';
import { GIF_DEFAULT_HEIGHT, GIF_FPS, isAudioFormat, OUTPUT_TYPES, type ConversionParams, type ImageParams, type VideoParams } from '../../domain/conversions.js';
import { AppError } from '../../errors.js';
import { faultOf } from '../../faults/classify.js';
import { describeFault } from '../../faults/monitor.js';
import { PermanentJobError } from '../../jobs/types.js';
import { locateFfmpegTools } from '../../media/ffmpeg.js';
import { convertImage } from '../../media/image-convert.js';
import { UnreadableMedia } from '../../media/renditions.js';
import { ToolAborted, ToolFailure } from '../../media/tools.js';
import { ffmpegArgs, probeMedia, ProgressReader, runFfmpeg, type VideoOutput } from '../../media/transcode.js';
import * as assets from '../../repositories/assets.js';
import * as repo from '../../repositories/conversions.js';
import { findUserById } from '../../repositories/users.js';
import * as versions from '../../repositories/versions.js';
import { StoreError, type ObjectStore } from '../../storage/object-store.js';
import { requireRole } from '../access.js';
import { ConversionCanceled, ConversionRefused, type ConversionResults, type ConversionSource } from './conversion-results.js';
import type { UnreadableFiles } from '../unreadable-files.js';
import { jobWorkDir } from '../work-dir.js';

/** How often a running conversion writes its progress and reads its status (a cancel made by another process). */
export const WATCH_INTERVAL_MS = 1000;

type Tools = { ffmpeg: string; ffprobe: string };

/** The words of a failure nobody worded for users (it may name a server path, issue #27): the details are in the log. */
const UNWORDED = 'The conversion failed on the server; the server log has the details';

/**
 * What the conversion's members are told when an attempt fails: our own words (the tools' fixed ones, whose own
 * output is their `detail`, and the refusals); anything else is UNWORDED. The details go to the log.
 */
function attemptError(err: unknown): string {
  // issue #37: a full disk, the database or the store away: not the file's fault, and the job waits for it.
  const fault = faultOf(err);
  if (fault) return `Waiting: ${describeFault(fault)}; the conversion runs again by itself`;
  if (err instanceof StoreError) return 'Reading or storing the file failed (the storage provider); the conversion will be retried';
  if (err instanceof ToolFailure || err instanceof ConversionRefused || err instanceof AppError) return err.message.slice(0, 500);
  return UNWORDED;
}

/**
 * The CONVERT_ASSET job (issue #15). Streams the source version from the store to a temporary
 * directory, converts it (sharp for images, ffmpeg for video and sound, with progress from
 * `-progress`), stores the result through ConversionResults, and removes the directory whatever
 * happened. Cancel: the service aborts this process's run at once (an AbortSignal kills ffmpeg's
 * process group); a run in another process notices within WATCH_INTERVAL_MS, since it reads its
 * row whenever it writes its progress. A file the tools cannot decode, or a source that changed,
 * fails the conversion at once with the reason; anything else (the store, a timeout) is retried
 * with the queue's back-off, the conversion `queued` again with that attempt's error meanwhile.
 */
export class ConversionRunner {
  private readonly local = new Map<number, AbortController>();
  private tools: Promise<Tools | undefined> | undefined;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly results: ConversionResults,
    private readonly unreadable: UnreadableFiles,
  ) {}

  /** Stops this process's run of the conversion, if it has one (the row already says canceled). */
  abortHere(conversionId: number): void {
    this.local.get(conversionId)?.abort();
  }

  async run(conversionId: number): Promise<void> {
    const c = await repo.findConversion(this.ctx.db, conversionId);
    if (!c || c.status === 'succeeded') return;
    // Canceled while queued, or given up: a result an earlier attempt claimed goes.
    if (c.status === 'canceled' || c.status === 'failed' || !(await repo.markRunning(this.ctx.db, c.id, this.ctx.now()))) {
      await this.results.discard(c.id);
      return;
    }
    const controller = new AbortController();
    this.local.set(c.id, controller);
    const progress = new ProgressReader();
    const watcher = setInterval(() => void this.watch(c.id, progress, controller), WATCH_INTERVAL_MS);
    watcher.unref();
    let work: string | undefined;
    try {
      work = await jobWorkDir(this.ctx.config.dataDir, 'convert');
      const src = await this.source(c);
      const output = await this.convert(src, work, controller.signal, progress);
      if (controller.signal.aborted) throw new ConversionCanceled();
      await this.results.keep(src, output);
    } catch (err) {
      if (err instanceof ConversionCanceled || err instanceof ToolAborted || controller.signal.aborted) {
        await this.results.discard(c.id);
        return;
      }
      // Over the plan's limits: retrying would not change that; the conversion fails with the reason.
      const final = err instanceof UnreadableMedia || err instanceof ConversionRefused || (err instanceof AppError && err.code === 'QUOTA_EXCEEDED');
      const message = attemptError(err);
      this.unreadable.note(err, { conversion: c.id });
      if (final) {
        await repo.markFailed(this.ctx.db, c.id, message, this.ctx.now());
        await this.results.discard(c.id);
        throw new PermanentJobError(message);
      }
      await repo.markRetrying(this.ctx.db, c.id, message, this.ctx.now());
      throw err;
    } finally {
      clearInterval(watcher);
      this.local.delete(c.id);
      if (work) await rm(work, { recursive: true, force: true });
    }
  }

  /** The job failed for good (its last attempt): the conversion says why, and a half-stored result goes. */
  async giveUp(conversionId: number, _error: string): Promise<void> {
    const c = await repo.findConversion(this.ctx.db, conversionId);
    if (!c) return;
    // `error` is the worker's record of the last attempt (logged there): unworded unless the attempt said otherwise.
    await repo.markFailed(this.ctx.db, c.id, c.error ?? UNWORDED, this.ctx.now());
    await this.results.discard(c.id);
  }

  /** Writes the progress and reads the status; a row that says anything but running (canceled, gone) stops the run. */
  private async watch(id: number, progress: ProgressReader, controller: AbortController): Promise<void> {
    try {
      const status = await repo.reportProgress(this.ctx.db, id, progress.percent, this.ctx.now());
      if (status !== 'running') controller.abort();
    } catch {
      // The next tick tries again; the run itself reports real failures.
    }
  }

  /** The source version and who asked, checked again now: the requester must still be a manager, the version must still exist. */
  private async source(c: repo.ConversionRecord): Promise<ConversionSource> {
    const params = JSON.parse(c.params) as ConversionParams;
    const version = await versions.findVersion(this.ctx.db, c.source_version_id);
    const asset = await assets.findAsset(this.ctx.db, c.asset_id);
    if (!version || version.status !== 'ready' || !asset) throw new ConversionRefused('The source was deleted before it could be converted');
    if (asset.deleted_at !== null) throw new ConversionRefused('The source asset is in the trash');
    if (params.target === 'new_version' && version.is_current !== 1) {
      throw new ConversionRefused(`The asset got a new current version after v${version.number} was asked to be converted; ask again to convert the current version`);
    }
    const user = c.requested_by !== null ? await findUserById(this.ctx.db, c.requested_by) : undefined;
    if (!user) throw new ConversionRefused('The account that asked for the conversion no longer exists');
    try {
      await requireRole(this.ctx.db, c.workspace_id, user.id, 'manager');
    } catch (err) {
      if (err instanceof AppError) throw new ConversionRefused(`${c.requested_by_name} may no longer add files to this workspace`);
      throw err;
    }
    return { conversion: c, params, asset, version, actor: { id: user.id, name: user.name, email: user.email } };
  }

  /** The output file in `work`. */
  private async convert(src: ConversionSource, work: string, signal: AbortSignal, progress: ProgressReader): Promise<string> {
    const source = path.join(work, 'source');
    const body = await this.store.read(src.version.storage_key);
    await pipeline(body.stream, createWriteStream(source));
    const output = path.join(work, `output.${OUTPUT_TYPES[src.params.format].extension}`);
    if (src.conversion.kind === 'image') {
      await convertImage(source, output, src.params as ImageParams, this.ctx.config.convert.maxPixels);
      return output;
    }
    const p = src.params as VideoParams;
    this.tools ??= locateFfmpegTools(this.ctx.config.ffmpegPath);
    const tools = await this.tools;
    if (!tools) throw new ConversionRefused('ffmpeg and ffprobe are not installed where conversions run (install ffmpeg, or set FFMPEG_PATH)');
    const probe = await probeMedia(tools.ffprobe, source, src.asset.file_type);
    const audioOnly = isAudioFormat(p.format);
    if (audioOnly && !probe.audio) throw new UnreadableMedia(`The source has no sound to write as ${p.format}`);
    if (!audioOnly && !probe.video) throw new UnreadableMedia(`The source has no picture to write as ${p.format}`);
    const length = probe.duration ?? src.asset.duration;
    if (length !== null && p.start >= length) throw new UnreadableMedia(`start (${p.start} s) is past the end of the source (${Math.floor(length * 10) / 10} s)`);
    const expected = length === null ? p.duration : Math.min(p.duration ?? Number.POSITIVE_INFINITY, length - p.start);
    progress.expect(expected);
    const args = ffmpegArgs(source, output, videoOutput(p), { start: p.start, duration: p.duration });
    await runFfmpeg(tools.ffmpeg, args, { timeoutMs: this.ctx.config.convert.timeoutMs, signal, progress });
    return output;
  }
}

/** The ffmpeg output of a video conversion's parameters (src/media/transcode.ts). */
export function videoOutput(p: VideoParams): VideoOutput {
  switch (p.format) {
    case 'mp4':
    case 'webm':
      return { format: p.format, size: { maxHeight: p.max_height }, bitrateKbps: p.video_bitrate, audio: p.audio };
    case 'gif':
      return { format: 'gif', maxHeight: p.max_height ?? GIF_DEFAULT_HEIGHT, fps: GIF_FPS };
    case 'mp3':
    case 'm4a':
      return { format: p.format };
  }
}
