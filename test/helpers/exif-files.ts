import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ExifTool } from 'exiftool-vendored';
import sharp from 'sharp';
import { tempDir } from './databases.js';

/**
 * Files with embedded metadata for the issue #12 suites, made in the test: pixels by sharp (or ffmpeg), metadata
 * by ExifTool's own writing, and read back by ExifTool. Each suite opens one `ExifFiles` and ends it afterwards
 * (its Perl processes must not outlive the suite).
 */
export class ExifFiles {
  private readonly exiftool = new ExifTool({ maxProcs: 1, taskTimeoutMillis: 60_000, useMWG: false });
  private readonly dir = tempDir('dam-exif-');
  private count = 0;

  /** `bytes` with `tags` (group-prefixed names, as ExifTool takes them) written into them. */
  async withTags(bytes: Buffer, extension: string, tags: Record<string, unknown>): Promise<Buffer> {
    const file = this.file(extension);
    writeFileSync(file, bytes);
    await this.exiftool.write(file, tags, { writeArgs: ['-overwrite_original'], useMWG: false });
    return readFileSync(file);
  }

  /** Every tag ExifTool reads from `bytes`, as `Group:Tag` (family 0) with numbers for GPS. */
  async read(bytes: Buffer, extension: string): Promise<Record<string, unknown>> {
    const file = this.file(extension);
    writeFileSync(file, bytes);
    return this.exiftool.readRaw(file, { readArgs: ['-G', '-GPSLatitude#', '-GPSLongitude#', '-all'], useMWG: false });
  }

  async end(): Promise<void> {
    await this.exiftool.end();
  }

  private file(extension: string): string {
    this.count += 1;
    return path.join(this.dir, `f${this.count}.${extension}`);
  }
}

/** A JPEG of `width` x `height`: its left half red, its right half blue. */
export function twoColourJpeg(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#0000ff' } })
    .composite([{ input: { create: { width: Math.floor(width / 2), height, channels: 3, background: '#ff0000' } }, left: 0, top: 0 }])
    .jpeg({ quality: 95 })
    .toBuffer();
}

export const plainPng = (width: number, height: number): Promise<Buffer> =>
  sharp({ create: { width, height, channels: 3, background: '#30a040' } }).png().toBuffer();

/** A short H.264 video (ffmpeg's test pattern) of `seconds` seconds. */
export function testVideo(ffmpeg: string, seconds: number, size = '320x240'): Buffer {
  const file = path.join(tempDir('dam-video-'), 'clip.mp4');
  execFileSync(ffmpeg, ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=${size}:rate=10`, '-pix_fmt', 'yuv420p', file]);
  return readFileSync(file);
}
