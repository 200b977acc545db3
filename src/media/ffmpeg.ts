import { UnreadableMedia } from './renditions.js';
import { firstLines, locateTool, nonEmpty, runTool } from './tools.js';

const POSTER_TIMEOUT_MS = 120_000;

/**
 * ffmpeg for video posters: FFMPEG_PATH when set, else the first `ffmpeg` on PATH. Undefined
 * when there is none: videos then get no preview (their versions say 'unavailable'), nothing fails.
 */
export function locateFfmpeg(configured: string | undefined, searchPath?: string): Promise<string | undefined> {
  return locateTool('ffmpeg', configured, searchPath);
}

/**
 * Writes one frame of the video as a PNG: at 1 s (past fade-ins), or the first frame of a
 * shorter video. ffmpeg applies the video's rotation metadata itself.
 */
export async function extractPoster(ffmpeg: string, input: string, output: string): Promise<void> {
  let stderr = '';
  for (const seek of [['-ss', '1'], []]) {
    const run = await runTool(
      ffmpeg,
      ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...seek, '-i', input, '-frames:v', '1', '-an', '-f', 'image2', '-c:v', 'png', output],
      { timeoutMs: POSTER_TIMEOUT_MS },
    );
    // A timeout may be a busy machine: a plain error, so the job is retried.
    if (run.timedOut) throw new Error(`ffmpeg was stopped after ${POSTER_TIMEOUT_MS / 1000} s`);
    if (run.code === 0 && (await nonEmpty(output))) return;
    stderr = run.stderr;
  }
  throw new UnreadableMedia(`ffmpeg found no frame to use as a poster${stderr ? `: ${firstLines(stderr)}` : ''}`);
}
