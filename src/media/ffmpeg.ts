import path from 'node:path';
import { NO_PREVIEW_WORDS } from '../domain/unreadable.js';
import { UnreadableMedia } from './renditions.js';
import { diskFullFailure, executable, locateTool, nonEmpty, runTool } from './tools.js';

const POSTER_TIMEOUT_MS = 120_000;

/**
 * ffmpeg for video posters: FFMPEG_PATH when set, else the first `ffmpeg` on PATH. Undefined
 * when there is none: videos then get no preview (their versions say 'unavailable'), nothing fails.
 */
export function locateFfmpeg(configured: string | undefined, searchPath?: string): Promise<string | undefined> {
  return locateTool('ffmpeg', configured, searchPath);
}

/**
 * ffprobe (conversions and video previews, issue #15): beside the ffmpeg in use (Debian's package
 * installs both), else the first on PATH; undefined when there is none.
 */
export async function locateFfprobe(ffmpeg: string, searchPath?: string): Promise<string | undefined> {
  const sibling = path.join(path.dirname(ffmpeg), 'ffprobe');
  return (await executable(sibling)) ? sibling : locateTool('ffprobe', undefined, searchPath);
}

/** ffmpeg with its ffprobe, as conversions and video previews need both; undefined when either is missing. */
export async function locateFfmpegTools(configured: string | undefined): Promise<{ ffmpeg: string; ffprobe: string } | undefined> {
  const ffmpeg = await locateFfmpeg(configured);
  const ffprobe = ffmpeg && (await locateFfprobe(ffmpeg));
  return ffmpeg && ffprobe ? { ffmpeg, ffprobe } : undefined;
}

/**
 * Writes one frame of the video as a PNG: at 1 s (past fade-ins), or the first frame of a
 * shorter video. ffmpeg applies the video's rotation metadata itself. Only local files may be
 * opened (`-protocol_whitelist file`): an uploaded playlist (HLS, concat) naming URLs is not fetched.
 */
export async function extractPoster(ffmpeg: string, input: string, output: string): Promise<void> {
  let stderr = '';
  for (const seek of [['-ss', '1'], []]) {
    const run = await runTool(
      ffmpeg,
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...seek, '-protocol_whitelist', 'file', '-i', input, '-frames:v', '1', '-an', '-f', 'image2', '-c:v', 'png', output],
      { timeoutMs: POSTER_TIMEOUT_MS },
    );
    // A timeout may be a busy machine: a plain error, so the job is retried.
    if (run.timedOut) throw new Error(`ffmpeg was stopped after ${POSTER_TIMEOUT_MS / 1000} s`);
    if (run.code === 0 && (await nonEmpty(output))) return;
    stderr = run.stderr;
  }
  // The poster could not be written (issue #37): the job waits for space.
  const full = await diskFullFailure(path.dirname(output), stderr);
  if (full) throw full;
  // Not `damaged` by itself: a readable file may hold no picture (sound only); the rendition job asks ffprobe.
  throw new UnreadableMedia(NO_PREVIEW_WORDS.videoNoFrame, { detail: stderr });
}
