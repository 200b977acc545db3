import { createHash } from 'node:crypto';
import type { FileType } from './file-types.js';

/**
 * The rules of conversions (issue #15), pure: which formats exist and what each needs, which
 * formats a source can give, the parameters with their defaults filled in (what is stored, shown
 * and compared for deduplication), and the name of a converted file.
 */

export const IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'tiff', 'gif'] as const;
export const VIDEO_FORMATS = ['mp4', 'webm', 'gif', 'mp3', 'm4a'] as const;
export const AUDIO_FORMATS = ['mp3', 'm4a'] as const;
export const FITS = ['cover', 'contain', 'inside'] as const;
export const TARGETS = ['new_asset', 'new_version'] as const;

export type ImageFormat = (typeof IMAGE_FORMATS)[number];
export type VideoFormat = (typeof VIDEO_FORMATS)[number];
export type Fit = (typeof FITS)[number];
export type Target = (typeof TARGETS)[number];
export type ConversionKind = 'image' | 'video';

/** Largest output edge: WebP's limit, applied to every format so one rule holds. */
export const MAX_EDGE = 16383;
/** A GIF is for a short clip: without `duration`, the first this many seconds; a longer `duration` is refused. */
export const GIF_MAX_SECONDS = 30;
/** GIFs are drawn at this frame rate and, unless `max_height` says otherwise, at most this high. */
export const GIF_FPS = 12;
export const GIF_DEFAULT_HEIGHT = 480;
/** Longest clip offset and length accepted, seconds (a day). */
export const MAX_SECONDS = 86_400;

/** What a format is written as: MIME type (a claim; the stored type is sniffed from the bytes) and extension. */
export const OUTPUT_TYPES: Record<ImageFormat | VideoFormat, { mime: string; extension: string }> = {
  jpeg: { mime: 'image/jpeg', extension: 'jpg' },
  png: { mime: 'image/png', extension: 'png' },
  webp: { mime: 'image/webp', extension: 'webp' },
  avif: { mime: 'image/avif', extension: 'avif' },
  tiff: { mime: 'image/tiff', extension: 'tif' },
  gif: { mime: 'image/gif', extension: 'gif' },
  mp4: { mime: 'video/mp4', extension: 'mp4' },
  webm: { mime: 'video/webm', extension: 'webm' },
  mp3: { mime: 'audio/mpeg', extension: 'mp3' },
  m4a: { mime: 'audio/mp4', extension: 'm4a' },
};

/** Default quality of the lossy image formats; PNG and GIF have none, TIFF is LZW (lossless) unless a quality asks for JPEG compression. */
const DEFAULT_QUALITY: Partial<Record<ImageFormat, number>> = { jpeg: 80, webp: 80, avif: 50 };
const QUALITY_FORMATS: readonly ImageFormat[] = ['jpeg', 'webp', 'avif', 'tiff'];

export interface ImageRequest {
  format: ImageFormat;
  width?: number;
  height?: number;
  fit?: Fit;
  enlarge?: boolean;
  quality?: number;
  strip_metadata?: boolean;
  target?: Target;
}

export interface VideoRequest {
  format: VideoFormat;
  max_height?: number;
  video_bitrate?: number;
  audio?: boolean;
  start?: number;
  duration?: number;
  target?: Target;
}

/** Every parameter, defaults filled in; null where "none" is the default (no resize, the source's height, to the end). */
export interface ImageParams {
  format: ImageFormat;
  width: number | null;
  height: number | null;
  fit: Fit;
  enlarge: boolean;
  quality: number | null;
  strip_metadata: boolean;
  target: Target;
}

export interface VideoParams {
  format: VideoFormat;
  max_height: number | null;
  video_bitrate: number | null;
  audio: boolean;
  start: number;
  duration: number | null;
  target: Target;
}

export type ConversionParams = ImageParams | VideoParams;

/** A parameter that does not fit the rest of the request: a 400 naming `field`. */
export class ConversionParamError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConversionParamError';
  }
}

export function isAudioFormat(format: VideoFormat): boolean {
  return (AUDIO_FORMATS as readonly string[]).includes(format);
}

/** Throws ConversionParamError for a combination the schema alone cannot refuse. */
export function imageParams(r: ImageRequest): ImageParams {
  if (r.quality !== undefined && !QUALITY_FORMATS.includes(r.format)) {
    throw new ConversionParamError('quality', `quality applies to ${QUALITY_FORMATS.join(', ')}; ${r.format} is written without one`);
  }
  return {
    format: r.format,
    width: r.width ?? null,
    height: r.height ?? null,
    fit: r.fit ?? 'inside',
    enlarge: r.enlarge ?? false,
    quality: r.quality ?? DEFAULT_QUALITY[r.format] ?? null,
    strip_metadata: r.strip_metadata ?? false,
    target: r.target ?? 'new_asset',
  };
}

/** Throws ConversionParamError for a combination the schema alone cannot refuse. */
export function videoParams(r: VideoRequest): VideoParams {
  const audioOnly = isAudioFormat(r.format);
  if (audioOnly && r.max_height !== undefined) throw new ConversionParamError('max_height', `max_height applies to video formats; ${r.format} is sound only`);
  if (audioOnly && r.video_bitrate !== undefined) throw new ConversionParamError('video_bitrate', `video_bitrate applies to video formats; ${r.format} is sound only`);
  if (audioOnly && r.audio === false) throw new ConversionParamError('audio', `audio cannot be false for ${r.format}, which is sound only`);
  if (r.format === 'gif' && r.audio === true) throw new ConversionParamError('audio', 'gif has no sound: leave audio out or set it false');
  if (r.format === 'gif' && r.video_bitrate !== undefined) throw new ConversionParamError('video_bitrate', 'gif has no bitrate; use max_height to make it smaller');
  if (r.format === 'gif' && r.duration !== undefined && r.duration > GIF_MAX_SECONDS) {
    throw new ConversionParamError('duration', `a gif is for short clips: duration at most ${GIF_MAX_SECONDS} seconds`);
  }
  return {
    format: r.format,
    max_height: r.max_height ?? (r.format === 'gif' ? GIF_DEFAULT_HEIGHT : null),
    video_bitrate: r.video_bitrate ?? null,
    audio: r.format === 'gif' ? false : (r.audio ?? true),
    start: r.start ?? 0,
    duration: r.duration ?? (r.format === 'gif' ? GIF_MAX_SECONDS : null),
    target: r.target ?? 'new_asset',
  };
}

/**
 * Whether the source can give the format: images give image formats (not SVG, which is not
 * rasterised on the server), videos give every video and audio format, audio gives audio formats.
 * A reason in words when it cannot, else null.
 */
export function unsupportedReason(kind: ConversionKind, format: string, source: { fileType: FileType; mimeType: string }): string | null {
  const type = source.mimeType.split(';')[0]!.trim().toLowerCase();
  if (kind === 'image') {
    if (source.fileType !== 'image') return `${format} cannot be made from ${type}: POST /convert/image converts images${source.fileType === 'video' || source.fileType === 'audio' ? '; use POST /convert/video' : ''}`;
    if (type === 'image/svg+xml') return 'SVG images are not rasterised on the server';
    return null;
  }
  if (source.fileType === 'video') return null;
  if (source.fileType === 'audio') {
    return (AUDIO_FORMATS as readonly string[]).includes(format) ? null : `${format} cannot be made from ${type}, which has no picture: audio converts to ${AUDIO_FORMATS.join(' or ')}`;
  }
  return `${format} cannot be made from ${type}: POST /convert/video converts video and audio${source.fileType === 'image' ? '; use POST /convert/image' : ''}`;
}

/** JSON with keys in order, so equal parameters give equal text. */
export function canonicalJson(params: object): string {
  const entries = Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(entries));
}

/** The same source version, kind and normalised parameters give the same key (SHA-256, hex). */
export function dedupKey(sourceVersionId: number, kind: ConversionKind, params: ConversionParams): string {
  return createHash('sha256').update(`${sourceVersionId}\n${kind}\n${canonicalJson(params)}`).digest('hex');
}

const NAME_LIMIT = 255;

/**
 * The converted file's name: the source's name with the new extension (`Sunset.jpg` -> `Sunset.webp`),
 * the old extension replaced when it looks like one, the whole at most 255 characters.
 */
export function convertedFileName(sourceName: string, extension: string): string {
  const base = sourceName.replace(/\.[A-Za-z0-9]{1,8}$/, '').trim() || 'converted';
  const room = NAME_LIMIT - extension.length - 1;
  return `${Array.from(base).slice(0, room).join('').trim()}.${extension}`;
}

/**
 * Output size of an image conversion from the source's (upright) size, for the pixel limit:
 * as sharp's resize computes it (cover and contain fill the box; inside keeps the aspect within it;
 * never enlarged unless `enlarge`).
 */
export function outputSize(source: { width: number; height: number }, p: Pick<ImageParams, 'width' | 'height' | 'fit' | 'enlarge'>): { width: number; height: number } {
  const { width: w, height: h } = source;
  if (p.width === null && p.height === null) return source;
  let scale: number;
  if (p.width !== null && p.height !== null) {
    // cover and contain fill the box; without enlargement sharp keeps the source when the box is larger either way.
    if (p.fit !== 'inside') return p.enlarge || (p.width <= w && p.height <= h) ? { width: p.width, height: p.height } : source;
    scale = Math.min(p.width / w, p.height / h);
  } else {
    scale = p.width !== null ? p.width / w : p.height! / h;
  }
  if (!p.enlarge) scale = Math.min(scale, 1);
  return { width: Math.max(1, Math.round(w * scale)), height: Math.max(1, Math.round(h * scale)) };
}
