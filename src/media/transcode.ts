import { unplayable } from '../domain/unreadable.js';
import { UnreadableMedia } from './renditions.js';
import path from 'node:path';
import { diskFullFailure, nonEmpty, runTool, ToolAborted, ToolFailure } from './tools.js';

/**
 * ffprobe and ffmpeg for conversions and video previews (issue #15): what a file holds, whether
 * browsers play it as it is, and the ffmpeg command of each output format, run with progress.
 */

const PROBE_TIMEOUT_MS = 60_000;

export interface MediaProbe {
  /** ffprobe's demuxer names, e.g. `mov,mp4,m4a,3gp,3g2,mj2`. */
  formatName: string;
  /** Seconds; null when the container does not say. */
  duration: number | null;
  /** The first video stream that is not a still (cover art of an audio file is not a picture stream). */
  video: { codec: string; width: number; height: number; pixFmt: string | null } | null;
  audio: { codec: string } | null;
}

interface ProbeJson {
  format?: { format_name?: string; duration?: string };
  streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number; pix_fmt?: string; disposition?: { attached_pic?: number } }[];
}

/**
 * What the file holds, by ffprobe. A file it cannot read is UnreadableMedia (final, `damaged`; worded by `fileType`,
 * what the file was taken for, and never with ffprobe's own words, which name the file's path); a timeout is a plain
 * error (retried).
 */
export async function probeMedia(ffprobe: string, input: string, fileType = 'media'): Promise<MediaProbe> {
  const run = await runTool(
    ffprobe,
    ['-v', 'error', '-protocol_whitelist', 'file', '-print_format', 'json', '-show_entries', 'format=format_name,duration:stream=codec_type,codec_name,width,height,pix_fmt:stream_disposition=attached_pic', input],
    { timeoutMs: PROBE_TIMEOUT_MS, outputLimit: 256_000 },
  );
  if (run.timedOut) throw new ToolFailure(`ffprobe was stopped after ${PROBE_TIMEOUT_MS / 1000} s`);
  let parsed: ProbeJson = {};
  try {
    parsed = JSON.parse(run.stdout || '{}') as ProbeJson;
  } catch {
    parsed = {};
  }
  if (run.code !== 0 || !parsed.format) {
    throw new UnreadableMedia(unplayable(fileType), { damaged: true, detail: run.stderr });
  }
  const streams = parsed.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic && s.width && s.height);
  const audio = streams.find((s) => s.codec_type === 'audio');
  const duration = Number(parsed.format.duration);
  return {
    formatName: parsed.format.format_name ?? '',
    duration: Number.isFinite(duration) && duration > 0 ? duration : null,
    video: video ? { codec: video.codec_name ?? '', width: video.width!, height: video.height!, pixFmt: video.pix_fmt ?? null } : null,
    audio: audio ? { codec: audio.codec_name ?? '' } : null,
  };
}

/** A video preview fits 1280 x 720 (or 720 x 1280 for a portrait video): 720p. */
export const PREVIEW_BOX = { long: 1280, short: 720 } as const;

/**
 * Whether every browser plays the file as it is in a <video>: an MP4 (by its sniffed type) with
 * H.264 in 8-bit 4:2:0 and AAC sound or none, within 720p. Where the `moov` box sits does not
 * matter: media URLs answer Range requests, so a browser reads a trailing index with one more request.
 */
export function isWebPlayable(mimeType: string, probe: MediaProbe): boolean {
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  if (type !== 'video/mp4' && type !== 'video/x-m4v') return false;
  const v = probe.video;
  if (!v || v.codec !== 'h264' || (v.pixFmt !== 'yuv420p' && v.pixFmt !== 'yuvj420p')) return false;
  if (Math.max(v.width, v.height) > PREVIEW_BOX.long || Math.min(v.width, v.height) > PREVIEW_BOX.short) return false;
  return probe.audio === null || probe.audio.codec === 'aac';
}

/** The size of a video output: at most `maxHeight` high (null: the source's), or inside the 720p box. */
export type VideoSize = { maxHeight: number | null } | { box: typeof PREVIEW_BOX };

export type VideoOutput =
  | { format: 'mp4' | 'webm'; size: VideoSize; bitrateKbps: number | null; audio: boolean }
  | { format: 'gif'; maxHeight: number; fps: number }
  | { format: 'mp3' | 'm4a' };

/** Part of the source: from `start` seconds, `duration` seconds long (null: to the end). */
export interface Clip {
  start: number;
  duration: number | null;
}

/**
 * Never enlarged, always even (4:2:0 needs it). Quotes keep the commas of an expression inside
 * one filter option; arguments reach ffmpeg without a shell, so they are ffmpeg's own quoting.
 */
function scaleFilter(size: VideoSize): string {
  if ('box' in size) {
    const { long, short } = size.box;
    const w = `'min(iw,if(gte(iw,ih),${long},${short}))'`;
    const h = `'min(ih,if(gte(iw,ih),${short},${long}))'`;
    return `scale=w=${w}:h=${h}:force_original_aspect_ratio=decrease:force_divisible_by=2`;
  }
  const height = size.maxHeight === null ? 'ih' : `min(ih,${size.maxHeight})`;
  return `scale=-2:'trunc(${height}/2)*2'`;
}

function seconds(n: number): string {
  return String(Math.round(n * 1000) / 1000);
}

/** The whole ffmpeg command line (without the program) for one output; progress goes to standard output. */
export function ffmpegArgs(input: string, output: string, out: VideoOutput, clip: Clip): string[] {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', '-nostats', '-progress', 'pipe:1'];
  // Input options: seek before decoding (exact, since the stream is re-encoded) and read only the clip.
  // An upload is not trusted: whatever it holds (a playlist, say), ffmpeg opens no URL and no other file's protocol.
  args.push('-protocol_whitelist', 'file');
  if (clip.start > 0) args.push('-ss', seconds(clip.start));
  if (clip.duration !== null) args.push('-t', seconds(clip.duration));
  args.push('-i', input, '-sn', '-dn');
  switch (out.format) {
    case 'mp4':
    case 'webm': {
      const sound = out.audio ? ['-map', '0:a:0?'] : [];
      args.push('-map', '0:v:0', ...sound, '-vf', `${scaleFilter(out.size)},format=yuv420p`);
      const k = out.bitrateKbps;
      if (out.format === 'mp4') {
        args.push('-c:v', 'libx264', '-preset', 'veryfast', ...(k ? ['-b:v', `${k}k`, '-maxrate', `${k}k`, '-bufsize', `${2 * k}k`] : ['-crf', '23']));
        args.push(...(out.audio ? ['-c:a', 'aac', '-b:a', '128k', '-ac', '2'] : ['-an']), '-movflags', '+faststart', '-f', 'mp4', output);
      } else {
        args.push('-c:v', 'libvpx-vp9', ...(k ? ['-b:v', `${k}k`] : ['-crf', '33', '-b:v', '0']), '-deadline', 'good', '-cpu-used', '4', '-row-mt', '1');
        args.push(...(out.audio ? ['-c:a', 'libopus', '-b:a', '128k'] : ['-an']), '-f', 'webm', output);
      }
      return args;
    }
    case 'gif': {
      // One pass with a palette made for the clip (palettegen + paletteuse), far smaller and truer than the fixed web palette.
      const filter =
        `fps=${out.fps},scale=-2:'min(ih,${out.maxHeight})':flags=lanczos,split[a][b];` +
        '[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=4:diff_mode=rectangle';
      args.push('-map', '0:v:0', '-an', '-vf', filter, '-loop', '0', '-f', 'gif', output);
      return args;
    }
    case 'mp3':
      args.push('-map', '0:a:0', '-vn', '-c:a', 'libmp3lame', '-q:a', '2', '-f', 'mp3', output);
      return args;
    case 'm4a':
      // The ipod muxer writes the M4A brand, so the file is recognised (and recorded) as audio, not as an MP4 video.
      args.push('-map', '0:a:0', '-vn', '-c:a', 'aac', '-b:a', '192k', '-movflags', '+faststart', '-f', 'ipod', output);
      return args;
  }
}

/** Percent done from ffmpeg's `-progress` lines (`out_time_us=`), against the clip's expected length; never 100 before the end. */
export class ProgressReader {
  private pending = '';
  private expectedSeconds: number | null = null;
  percent = 0;

  /** The output's expected length in seconds, once known; null leaves the progress at 0 until the end. */
  expect(seconds: number | null): void {
    this.expectedSeconds = seconds !== null && Number.isFinite(seconds) && seconds > 0 ? seconds : null;
  }

  push(chunk: string): void {
    const lines = (this.pending + chunk).split('\n');
    this.pending = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^out_time_us=(\d+)/.exec(line.trim());
      if (!match || !this.expectedSeconds) continue;
      const percent = Math.floor((Number(match[1]) / (this.expectedSeconds * 1e6)) * 100);
      this.percent = Math.max(this.percent, Math.min(99, percent));
    }
  }
}

export interface FfmpegRun {
  timeoutMs: number;
  signal?: AbortSignal;
  progress?: ProgressReader;
}

/**
 * Runs ffmpeg to `output` (the last argument). Aborted: ToolAborted. A timeout, or a death by a
 * signal (the machine ran out of memory), is retried; ffmpeg refusing the input is UnreadableMedia.
 * Either way ffmpeg's own words are the error's `detail`, for the log only.
 */
export async function runFfmpeg(ffmpeg: string, args: string[], run: FfmpegRun): Promise<void> {
  const output = args[args.length - 1]!;
  const result = await runTool(ffmpeg, args, {
    timeoutMs: run.timeoutMs,
    signal: run.signal,
    onStdout: run.progress ? (chunk) => run.progress!.push(chunk) : undefined,
  });
  if (result.aborted) throw new ToolAborted('ffmpeg was stopped: the conversion was canceled');
  if (result.timedOut) throw new ToolFailure(`ffmpeg was stopped after ${run.timeoutMs / 1000} s`);
  if (result.code === null) throw new ToolFailure('ffmpeg died before it finished; the server log has its last words', result.stderr);
  if (result.code !== 0 || !(await nonEmpty(output))) {
    // The output could not be written (issue #37): the job waits for space.
    const full = await diskFullFailure(path.dirname(output), result.stderr);
    if (full) throw full;
    throw new UnreadableMedia('ffmpeg could not convert the file; it may be damaged', { detail: result.stderr });
  }
}
