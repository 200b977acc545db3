import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { locateFfmpegTools } from '../../src/media/ffmpeg.js';
import { tempDir } from './databases.js';

/** Real media files made in the tests (issue #15): ffmpeg's test pattern and tone, and helpers to look inside results. */

const tools = await locateFfmpegTools(undefined);
/** CI installs ffmpeg (.ci/run) and runs the media suites always; a machine without it skips them. */
export const haveFfmpeg = tools !== undefined;
export const FFMPEG = tools?.ffmpeg ?? 'ffmpeg';
export const FFPROBE = tools?.ffprobe ?? 'ffprobe';

/**
 * Bytes no decoder accepts, the same on every run. Random bytes are not: ffprobe now and then finds an MPEG audio frame
 * sync in them and reads the file as a (pictureless) stream, which made failure tests flaky.
 */
export function undecodableMedia(size: number): Buffer {
  const line = Buffer.from('This is not a media file. ');
  return Buffer.concat(Array.from({ length: Math.ceil(size / line.length) }, () => line)).subarray(0, size);
}

export interface ClipOptions {
  seconds?: number;
  size?: string;
  rate?: number;
  /** A 440 Hz tone beside the picture (default true). */
  sound?: boolean;
  /** File name extension, which picks the container (default mp4). */
  container?: 'mp4' | 'mkv' | 'avi' | 'mov' | 'webm';
  /** ffmpeg's video codec options (default H.264 in 8-bit 4:2:0, fast). */
  videoCodec?: string[];
}

/** A clip of ffmpeg's test pattern (`testsrc`) with a tone (`sine`). */
export function testClip(o: ClipOptions = {}): Buffer {
  const { seconds = 3, size = '320x240', rate = 10, sound = true, container = 'mp4' } = o;
  const file = path.join(tempDir('dam-clip-'), `clip.${container}`);
  const videoCodec = o.videoCodec ?? (container === 'webm' ? ['-c:v', 'libvpx-vp9', '-deadline', 'realtime'] : ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p']);
  const audio = sound ? ['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`] : [];
  const audioCodec = sound ? (container === 'webm' ? ['-c:a', 'libopus'] : ['-c:a', 'aac']) : [];
  execFileSync(FFMPEG, [
    '-hide_banner', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=${size}:rate=${rate}`,
    ...audio, ...videoCodec, ...audioCodec, '-shortest', file,
  ]);
  return readFileSync(file);
}

/** A tone as MP3. */
export function testTone(seconds = 2): Buffer {
  const file = path.join(tempDir('dam-tone-'), 'tone.mp3');
  execFileSync(FFMPEG, ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, '-c:a', 'libmp3lame', file]);
  return readFileSync(file);
}

export interface Probed {
  format: { format_name: string; duration?: string };
  streams: { codec_type: string; codec_name: string; width?: number; height?: number; pix_fmt?: string }[];
}

/** ffprobe's view of bytes a test received. */
export function probe(bytes: Uint8Array): Probed {
  const file = path.join(tempDir('dam-probe-'), 'file');
  writeFileSync(file, bytes);
  const out = execFileSync(FFPROBE, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { encoding: 'utf8' });
  return JSON.parse(out) as Probed;
}

/**
 * A directory with an `ffmpeg` that runs the real one and an `ffprobe` link, for FFMPEG_PATH.
 * `realtime`: in conversions (runs with `-progress`) ffmpeg reads its input at the clip's own speed
 * (`-re`), so a conversion takes as long as the clip plays and a test can act while it runs. `dieOnce`: its first conversion (a run with
 * `-progress`; posters have none) kills itself, a crash the job retries.
 */
export function wrappedFfmpeg(mode: 'realtime' | 'dieOnce'): string {
  const dir = tempDir('dam-ffmpeg-');
  const flag = path.join(dir, 'died');
  const body =
    mode === 'realtime'
      ? `case "$*" in *-progress*) exec ${FFMPEG} -re "$@";; esac\nexec ${FFMPEG} "$@"\n`
      : `case "$*" in *-progress*) if [ ! -e '${flag}' ]; then touch '${flag}'; kill -9 $$; fi;; esac\nexec ${FFMPEG} "$@"\n`;
  const script = path.join(dir, 'ffmpeg');
  writeFileSync(script, `#!/bin/sh\n${body}`);
  chmodSync(script, 0o755);
  symlinkSync(FFPROBE, path.join(dir, 'ffprobe'));
  return script;
}

/**
 * An `ffmpeg` for FFMPEG_PATH whose conversions (runs with `-progress`; posters have none) wait while the file `gate`
 * exists, so that a test can hold a conversion job running until the moment it chooses (test/faults/pg-restart.test.ts).
 */
export function gatedFfmpeg(gate: string): string {
  const dir = tempDir('dam-ffmpeg-');
  const script = path.join(dir, 'ffmpeg');
  writeFileSync(script, `#!/bin/sh\ncase "$*" in *-progress*) while [ -e '${gate}' ]; do sleep 0.05; done;; esac\nexec ${FFMPEG} "$@"\n`);
  chmodSync(script, 0o755);
  symlinkSync(FFPROBE, path.join(dir, 'ffprobe'));
  return script;
}

/** Processes whose command line mentions `text` (e.g. an app's data directory): none once a conversion is stopped. */
export function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(text)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
