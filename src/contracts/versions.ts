import { Type, type Static } from 'typebox';
import { Metadata } from './catalog.js';

/** issue #15: how a video version plays in a browser. */
export const VideoPreviewSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('pending'), Type.Literal('ready'), Type.Literal('unavailable'), Type.Literal('failed')], {
      description:
        'pending: being made; ready: play `url`; unavailable: none can be made (see note: ffmpeg missing, no video stream, an unreadable ' +
        'file, previews turned off); failed: the job gave up. Until ready, file_url may still play in browsers that read the format',
    }),
    url: Type.Union([Type.String(), Type.Null()], {
      description:
        'Signed URL of an H.264/AAC MP4 within 720p with +faststart, served with Range support for <video>; when the file itself already ' +
        'plays everywhere (an H.264 + AAC MP4 within 720p) this is its file_url and no copy was made. null until ready',
    }),
    mime_type: Type.Union([Type.Literal('video/mp4'), Type.Null()]),
    source: Type.Union([Type.Literal('transcode'), Type.Literal('original'), Type.Null()], {
      description: 'transcode: a copy made for playback; original: the file itself; null until ready',
    }),
    note: Type.Union([Type.String(), Type.Null()], { description: 'Why it is unavailable or failed' }),
  },
  { description: 'Web-playable preview of a video version (null for other files, and for videos of an instance with video previews off)' },
);
export type VideoPreviewView = Static<typeof VideoPreviewSchema>;

/**
 * seed 2.5: the version object, field for field, plus `preview_status` (issue #5: a version
 * says when its preview is unavailable). URLs are absolute and signed: they work in an <img>
 * or <video> tag without a bearer token until they expire (DAM_MEDIA_URL_TTL).
 */
export const VersionSchema = Type.Object({
  id: Type.Integer({ description: 'Version identifier' }),
  version: Type.String({ pattern: '^v[1-9][0-9]*$', description: 'Label v1, v2, ... assigned in upload order, never reused' }),
  asset_id: Type.Integer(),
  file_name: Type.String({ description: 'Original file name' }),
  display_file_name: Type.String(),
  file_size: Type.Integer({ description: 'Bytes' }),
  mime_type: Type.String(),
  created_at: Type.String({ description: 'ISO 8601 UTC timestamp, e.g. 2025-01-31T12:00:00.000Z' }),
  created_by: Type.String({ description: "Uploader's (or restorer's) name, or e-mail when the name is empty" }),
  thumbnail_url: Type.String({
    description: 'Signed URL of the 256 px WebP thumbnail; until one exists (or when none can be made) a generic icon of the file type',
  }),
  file_url: Type.String({ description: "Signed URL of the version's file, served inline for images, video and audio" }),
  is_current: Type.Boolean({ description: 'Exactly one version of an asset is current' }),
  metadata: Metadata,
  preview_status: Type.Union([Type.Literal('pending'), Type.Literal('ready'), Type.Literal('unavailable'), Type.Literal('failed')], {
    description:
      'pending: being made; ready: thumbnail and preview exist; unavailable: none can be made, and the preview endpoint says why ' +
      '(a type without previews, a tool not installed: ffmpeg for videos, pdftoppm for PDFs, LibreOffice for office documents; ' +
      'an unreadable, encrypted or corrupt file); failed: the job gave up. Previews are made of images, video poster frames, ' +
      "the first page of PDFs and office documents (docx, xlsx, pptx, odt, ods, odp, doc, xls, ppt, rtf) and the first lines of text files",
  }),
  restored_from: Type.Union([Type.Object({ id: Type.Integer(), version: Type.String({ pattern: '^v[1-9][0-9]*$' }) }), Type.Null()], {
    description:
      'For a version made by POST /dam/versions/:id/restore: the id and label of the version it copies (kept when that ' +
      'version is deleted later); null for uploaded versions',
  }),
  video_preview: Type.Union([VideoPreviewSchema, Type.Null()]),
  page_count: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
    description:
      'Pages of a PDF, or of an office document as converted to PDF (slides; printed pages of a spreadsheet); counted by the ' +
      'preview job, so null while preview_status is pending, and null for other files or when the pages cannot be counted',
  }),
  sha256: Type.Union([Type.String(), Type.Null()], {
    description: "SHA-256 of the version's file (64 lowercase hex digits), computed by a background job shortly after it is stored; null until then",
  }),
});
export type VersionView = Static<typeof VersionSchema>;

export const PreviewSchema = Type.Object({
  url: Type.String({ description: 'Signed, short-lived URL of the 1440 px WebP preview' }),
  mime_type: Type.String(),
  width: Type.Integer(),
  height: Type.Integer(),
});
export type PreviewView = Static<typeof PreviewSchema>;

export const JobStatus = Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]);

export const JobSchema = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  payload: Type.Unknown(),
  status: JobStatus,
  attempts: Type.Integer({ description: 'Runs so far' }),
  max_attempts: Type.Integer(),
  run_at: Type.Integer({ description: 'Unix seconds; a queued job is not run before' }),
  locked_by: Type.Union([Type.String(), Type.Null()], { description: 'Worker running it (host:pid:id)' }),
  locked_until: Type.Union([Type.Integer(), Type.Null()], { description: 'Lease end, Unix seconds' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
  finished_at: Type.Union([Type.Integer(), Type.Null()]),
});
export type JobView = Static<typeof JobSchema>;
