import { ApiError } from '../api/http';
import { translate } from '../i18n';
import { formatNumber } from '../util/format';
import type { Conversion, ConversionTarget, ConvertImageRequest, ConvertVideoRequest, FileType, Fit, ImageFormat, VideoFormat } from '../api/types';

/**
 * The Convert dialog's rules (issue #15), without the component: which conversions an asset
 * offers, the form's defaults, the request a form makes (only what differs from the server's
 * defaults: the server fills those in before it compares requests, so leaving them out changes
 * nothing but the size of the request), a conversion's state in words, and which field of the
 * form an API refusal names.
 */

/** image: POST /convert/image (sharp); video: POST /convert/video (ffmpeg, also for audio assets). */
export type ConvertKind = 'image' | 'video';

export interface Choice<T> {
  value: T;
  label: string;
}

export const IMAGE_FORMATS: Choice<ImageFormat>[] = [
  { value: 'jpeg', label: 'JPEG' },
  { value: 'png', label: 'PNG' },
  { value: 'webp', label: 'WebP' },
  { value: 'avif', label: 'AVIF' },
  { value: 'tiff', label: 'TIFF' },
  { value: 'gif', label: 'GIF' },
];

export const VIDEO_FORMATS: Choice<VideoFormat>[] = [
  { value: 'mp4', get label() { return translate('convert.formats.mp4'); } },
  { value: 'webm', get label() { return translate('convert.formats.webm'); } },
  { value: 'gif', get label() { return translate('convert.formats.gif'); } },
  { value: 'mp3', get label() { return translate('convert.formats.mp3'); } },
  { value: 'm4a', get label() { return translate('convert.formats.m4a'); } },
];

export const AUDIO_FORMATS: readonly VideoFormat[] = ['mp3', 'm4a'];

export const FITS: Choice<Fit>[] = [
  { value: 'inside', get label() { return translate('convert.fits.inside'); } },
  { value: 'cover', get label() { return translate('convert.fits.cover'); } },
  { value: 'contain', get label() { return translate('convert.fits.contain'); } },
];

/** The formats written with a quality (TIFF: JPEG-compressed with one, lossless without). */
export const QUALITY_FORMATS: readonly ImageFormat[] = ['jpeg', 'webp', 'avif', 'tiff'];
/** The server's default quality per format; a form at this value sends none. */
export const DEFAULT_QUALITY: Partial<Record<ImageFormat, number>> = { jpeg: 80, webp: 80, avif: 50 };

/** Output heights offered for video (never enlarged by the server: a taller choice keeps the source's height). */
export const MAX_HEIGHTS = [2160, 1440, 1080, 720, 480, 360, 240] as const;
/** The server makes a GIF at most this high unless told otherwise. */
export const GIF_DEFAULT_HEIGHT = 480;
/** The API's largest output edge (WebP's limit, for every format). */
export const MAX_EDGE = 16383;

/** What a conversion of this asset would be, or null when it has none (documents, SVG, which the server does not rasterise). */
export function convertKindOf(asset: { file_type: FileType; mime_type: string }): ConvertKind | null {
  const mime = asset.mime_type.split(';')[0]!.trim().toLowerCase();
  if (asset.file_type === 'image') return mime === 'image/svg+xml' ? null : 'image';
  if (asset.file_type === 'video' || asset.file_type === 'audio') return 'video';
  return null;
}

/** The formats this asset can give: audio gives sound formats only. */
export function formatsFor(asset: { file_type: FileType; mime_type: string }): Choice<ImageFormat | VideoFormat>[] {
  const kind = convertKindOf(asset);
  if (kind === 'image') return IMAGE_FORMATS;
  if (kind === 'video') return asset.file_type === 'audio' ? VIDEO_FORMATS.filter((f) => AUDIO_FORMATS.includes(f.value)) : VIDEO_FORMATS;
  return [];
}

export function isAudioFormat(format: string): boolean {
  return (AUDIO_FORMATS as readonly string[]).includes(format);
}

/** The form as the dialog holds it; null: left empty (the server's default). */
export interface ConvertForm {
  format: ImageFormat | VideoFormat;
  width: number | null;
  height: number | null;
  fit: Fit;
  quality: number | null;
  strip_metadata: boolean;
  max_height: number | null;
  target: ConversionTarget;
}

/** A first choice that suits the asset: WebP for images (the web's format), MP4 for video, M4A for audio. */
export function defaultForm(asset: { file_type: FileType; mime_type: string }): ConvertForm {
  const kind = convertKindOf(asset);
  const format = kind === 'image' ? 'webp' : asset.file_type === 'audio' ? 'm4a' : 'mp4';
  return { format, width: null, height: null, fit: 'inside', quality: null, strip_metadata: false, max_height: null, target: 'new_asset' };
}

/** The empty quality field says what the server does without one: the format's default, or lossless TIFF. */
export function qualityPlaceholder(format: string): string {
  const quality = DEFAULT_QUALITY[format as ImageFormat];
  return quality ? translate('convert.form.qualityDefault', { quality }) : format === 'tiff' ? translate('convert.form.lossless') : '';
}

/** A number field's value when one was typed (an emptied `v-model.number` field holds ''). */
const positive = (n: number | string | null): n is number => typeof n === 'number' && Number.isFinite(n) && n > 0;

export function imageRequest(assetId: number, form: ConvertForm): ConvertImageRequest {
  const format = form.format as ImageFormat;
  const body: ConvertImageRequest = { assetId, format };
  if (positive(form.width)) body.width = Math.round(form.width);
  if (positive(form.height)) body.height = Math.round(form.height);
  // fit means something only with both edges (the server ignores it otherwise).
  if (body.width !== undefined && body.height !== undefined && form.fit !== 'inside') body.fit = form.fit;
  if (QUALITY_FORMATS.includes(format) && positive(form.quality) && form.quality !== DEFAULT_QUALITY[format]) body.quality = Math.round(form.quality);
  if (form.strip_metadata) body.strip_metadata = true;
  if (form.target !== 'new_asset') body.target = form.target;
  return body;
}

export function videoRequest(assetId: number, form: ConvertForm): ConvertVideoRequest {
  const format = form.format as VideoFormat;
  const body: ConvertVideoRequest = { assetId, format };
  if (!isAudioFormat(format) && positive(form.max_height)) body.max_height = form.max_height;
  if (form.target !== 'new_asset') body.target = form.target;
  return body;
}

/** The form a conversion was made from (after a failure, "Change settings" shows it again). */
export function formOf(conversion: Conversion): ConvertForm {
  const p = conversion.params;
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    format: String(p.format) as ConvertForm['format'],
    width: num(p.width),
    height: num(p.height),
    fit: (p.fit as Fit | undefined) ?? 'inside',
    // The format's default quality is what an empty field means.
    quality: num(p.quality) === DEFAULT_QUALITY[p.format as ImageFormat] ? null : num(p.quality),
    strip_metadata: p.strip_metadata === true,
    max_height: p.format === 'gif' && p.max_height === GIF_DEFAULT_HEIGHT ? null : num(p.max_height),
    target: (p.target as ConversionTarget | undefined) ?? 'new_asset',
  };
}

/** "WebP, 800 px wide" / "MP4, at most 720 px high": what a conversion makes, in a few words. */
export function describeParams(params: Conversion['params']): string {
  const format = String(params.format);
  const label = IMAGE_FORMATS.find((f) => f.value === format)?.label ?? format.toUpperCase().replace('WEBM', 'WebM');
  const parts = [label];
  const w = params.width;
  const h = params.height;
  if (typeof w === 'number' && typeof h === 'number') parts.push(`${w} × ${h}`);
  else if (typeof w === 'number') parts.push(translate('convert.params.wide', { n: w }));
  else if (typeof h === 'number') parts.push(translate('convert.params.high', { n: h }));
  if (typeof params.max_height === 'number') parts.push(translate('convert.params.atMostHigh', { n: params.max_height }));
  if (typeof params.quality === 'number') parts.push(translate('convert.params.quality', { n: params.quality }));
  if (params.strip_metadata === true) parts.push(translate('convert.params.noMetadata'));
  return parts.join(translate('convert.params.separator'));
}

/** A conversion's state in words, for the dialog's status line. */
export function statusText(c: Conversion): string {
  switch (c.status) {
    case 'queued':
      return c.error ? translate('convert.status.retrying', { reason: c.error }) : translate('convert.status.queued');
    case 'running':
      return c.kind === 'video' ? translate('convert.status.runningPercent', { percent: formatNumber(c.progress / 100, { style: 'percent' }) }) : translate('convert.status.running');
    case 'succeeded':
      return translate(c.params.target === 'new_version' ? 'convert.status.doneVersion' : 'convert.status.doneAsset');
    case 'failed':
      return c.error ?? translate('convert.status.failed');
    case 'canceled':
      return translate('convert.status.canceled');
  }
}

export function isFinished(c: Conversion): boolean {
  return c.status === 'succeeded' || c.status === 'failed' || c.status === 'canceled';
}

/** The form's fields an API refusal can name: a 400's `field`, or the format of a 422. */
const FIELDS = ['format', 'width', 'height', 'fit', 'quality', 'strip_metadata', 'max_height', 'target'] as const;
export type ConvertField = (typeof FIELDS)[number];

export function fieldOf(err: unknown): ConvertField | null {
  if (!(err instanceof ApiError)) return null;
  const named = err.field ?? (err.code === 'CONVERSION_UNSUPPORTED' ? 'format' : undefined);
  const field = named?.replace(/^body\./, '');
  return (FIELDS as readonly string[]).includes(field ?? '') ? (field as ConvertField) : null;
}
