import { ExifTool } from 'exiftool-vendored';

/** Raw tags as ExifTool answers them with `-json -G`: `Group:Tag` -> string, number, or a list of them. */
export type RawTags = Record<string, unknown>;

/** One ExifTool task (read or write) may take this long before its process is killed and the task fails. */
export const EXIFTOOL_TASK_TIMEOUT_MS = 120_000;

/**
 * Tags read as numbers instead of ExifTool's print conversion ("50.0 mm", "0:00:02", "Rotate 90 CW",
 * 48 deg 51' 30" N): what src/media/embedded-fields.ts maps into columns needs the number.
 */
const NUMERIC_TAGS = ['FocalLength', 'Duration', 'GPSLatitude', 'GPSLongitude', 'Orientation', 'Rotation', 'PageCount'];

const READ_ARGS = [
  // Family-0 group names on every key (EXIF:Make, IPTC:Keywords, XMP:Subject, QuickTime:Duration, File:FileSize):
  // the same tag name in several places stays apart, so the field mapping can prefer one.
  '-G',
  // Stops at the image data of JPEGs instead of scanning to the end for trailers.
  '-fast',
  ...NUMERIC_TAGS.map((tag) => `-${tag}#`),
  // After the numeric references: the first reference of a tag wins.
  '-all',
];

/**
 * File extensions ExifTool should see for a recorded type (it chooses its reader by extension first, then by
 * content), and whether it writes XMP into that type (https://exiftool.org/#supported; IPTC and EXIF too where
 * the format has them). Types not listed are read by content and never written.
 */
const TYPES: Record<string, { ext: string; writes: boolean }> = {
  'image/jpeg': { ext: 'jpg', writes: true },
  'image/png': { ext: 'png', writes: true },
  'image/tiff': { ext: 'tif', writes: true },
  'image/webp': { ext: 'webp', writes: true },
  'image/gif': { ext: 'gif', writes: true },
  'image/heic': { ext: 'heic', writes: true },
  'image/heif': { ext: 'heif', writes: true },
  'image/avif': { ext: 'avif', writes: true },
  'image/jp2': { ext: 'jp2', writes: true },
  'image/jxl': { ext: 'jxl', writes: true },
  'image/x-adobe-dng': { ext: 'dng', writes: true },
  'image/vnd.adobe.photoshop': { ext: 'psd', writes: true },
  'application/pdf': { ext: 'pdf', writes: true },
  'application/postscript': { ext: 'eps', writes: true },
  'video/mp4': { ext: 'mp4', writes: true },
  'video/quicktime': { ext: 'mov', writes: true },
  'video/x-m4v': { ext: 'm4v', writes: true },
  'audio/mp4': { ext: 'm4a', writes: true },
  'audio/x-m4a': { ext: 'm4a', writes: true },
  'image/svg+xml': { ext: 'svg', writes: false },
  'image/bmp': { ext: 'bmp', writes: false },
  'video/webm': { ext: 'webm', writes: false },
  'video/x-matroska': { ext: 'mkv', writes: false },
  'video/x-msvideo': { ext: 'avi', writes: false },
  'audio/mpeg': { ext: 'mp3', writes: false },
  'audio/wav': { ext: 'wav', writes: false },
  'audio/x-wav': { ext: 'wav', writes: false },
  'audio/flac': { ext: 'flac', writes: false },
  'audio/ogg': { ext: 'ogg', writes: false },
};

const baseType = (mimeType: string) => mimeType.split(';')[0]!.trim().toLowerCase();

/** `.ext` for a temporary copy of a file of this type, or '' (ExifTool then goes by content alone). */
export const exifToolExtension = (mimeType: string): string => {
  const ext = TYPES[baseType(mimeType)]?.ext;
  return ext ? `.${ext}` : '';
};

/** Whether ExifTool writes metadata into files of this type. */
export const exifToolWrites = (mimeType: string): boolean => TYPES[baseType(mimeType)]?.writes ?? false;

/**
 * The app's ExifTool (issue #12), through exiftool-vendored: one pool of long-running `exiftool -stay_open`
 * processes (Perl), started on first use and ended when the app closes (`end()`), so tests and restarts leave
 * no process behind. MWG composite tags are off: src/media/embedded-fields.ts chooses between EXIF, IPTC and
 * XMP itself, and a module loaded once would stay loaded in the long-running process.
 */
export class ExifToolRunner {
  private instance: ExifTool | undefined;

  private get exiftool(): ExifTool {
    this.instance ??= new ExifTool({
      maxProcs: 2,
      taskTimeoutMillis: EXIFTOOL_TASK_TIMEOUT_MS,
      // A file that made ExifTool time out once would only do it again.
      taskRetries: 0,
      useMWG: false,
    });
    return this.instance;
  }

  /**
   * Every tag of the file, binary values as ExifTool's "(Binary data N bytes…)" placeholder. An unreadable file
   * is not an error here: ExifTool answers `ExifTool:Error` / `ExifTool:Warning` tags instead. Rejects when
   * ExifTool itself fails (the file vanished, the task timed out, Perl is missing).
   */
  async readTags(file: string): Promise<RawTags> {
    const tags: RawTags = await this.exiftool.readRaw(file, { readArgs: READ_ARGS, useMWG: false });
    return tags;
  }

  /**
   * Writes `tags` (group-prefixed names; null deletes) into `file` in place. Rejects when ExifTool cannot write
   * this type of file ("Writing of … files is not supported"); tags a format has no place for are skipped
   * with a warning, which is returned.
   */
  async writeTags(file: string, tags: Record<string, string | string[] | null>): Promise<string[]> {
    const result = await this.exiftool.write(file, tags, { writeArgs: ['-overwrite_original'], useMWG: false });
    return result.warnings ?? [];
  }

  /** Ends the ExifTool processes (waits for tasks in flight). */
  async end(): Promise<void> {
    const instance = this.instance;
    this.instance = undefined;
    if (instance) await instance.end();
  }
}
