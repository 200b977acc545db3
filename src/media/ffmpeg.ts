import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { UnreadableMedia } from './renditions.js';

const POSTER_TIMEOUT_MS = 120_000;

async function executable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * ffmpeg for video posters: FFMPEG_PATH when set, else the first `ffmpeg` on PATH. Undefined
 * when there is none: videos then get no preview (their versions say 'unavailable'), nothing fails.
 */
export async function locateFfmpeg(configured: string | undefined, searchPath = process.env.PATH ?? ''): Promise<string | undefined> {
  if (configured) return (await executable(configured)) ? configured : undefined;
  for (const dir of searchPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'ffmpeg');
    if (await executable(candidate)) return candidate;
  }
  return undefined;
}

function run(ffmpeg: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpeg, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), POSTER_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr: stderr.trim() });
    });
  });
}

async function nonEmpty(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.size > 0,
    () => false,
  );
}

/**
 * Writes one frame of the video as a PNG: at 1 s (past fade-ins), or the first frame of a
 * shorter video. ffmpeg applies the video's rotation metadata itself.
 */
export async function extractPoster(ffmpeg: string, input: string, output: string): Promise<void> {
  let last = { code: null as number | null, stderr: '' };
  for (const seek of [['-ss', '1'], []]) {
    last = await run(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...seek, '-i', input, '-frames:v', '1', '-an', '-f', 'image2', '-c:v', 'png', output]);
    if (last.code === 0 && (await nonEmpty(output))) return;
  }
  if (last.code === null) throw new Error(`ffmpeg was stopped after ${POSTER_TIMEOUT_MS / 1000} s`);
  throw new UnreadableMedia(`ffmpeg found no frame to use as a poster${last.stderr ? `: ${last.stderr}` : ''}`);
}
