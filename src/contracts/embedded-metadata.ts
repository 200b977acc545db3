import { Type, type TSchema } from 'typebox';
import { TEXT_LIMITS } from '../domain/embedded-metadata.js';

/**
 * The embedded-metadata part of the asset schemas (issue #12): what ExifTool read from the current file, and
 * the descriptive fields managers may edit. Spread into AssetSchema and AssetPatchBody (./catalog.ts).
 */

const Nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });
const READ = 'read from the current file; null when it has none or it was not read yet';

export const EmbeddedProperties = {
  taken_at: Nullable(
    Type.Integer(),
    'Date taken, Unix seconds: EXIF DateTimeOriginal, XMP DateTimeOriginal, EXIF/XMP CreateDate, then QuickTime CreationDate/CreateDate, ' +
      'with the offset the file records (OffsetTimeOriginal…); a date without any offset is taken as UTC. ' +
      READ,
  ),
  camera_make: Nullable(Type.String(), `Camera maker (EXIF Make); ${READ}`),
  camera_model: Nullable(Type.String(), `Camera model (EXIF Model); ${READ}`),
  lens: Nullable(Type.String(), `Lens (EXIF LensModel, else ExifTool's LensID); ${READ}`),
  iso: Nullable(Type.Integer(), `ISO speed; ${READ}`),
  exposure: Nullable(Type.String(), `Exposure time as cameras write it, e.g. "1/250" (seconds); ${READ}`),
  aperture: Nullable(Type.Number(), `F-number, e.g. 5.6; ${READ}`),
  focal_length: Nullable(Type.Number(), `Focal length in millimetres; ${READ}`),
  gps_lat: Nullable(Type.Number(), `Latitude in signed decimal degrees (south negative); null also for the (0, 0) many tools write for "no position"; ${READ}`),
  gps_lon: Nullable(Type.Number(), `Longitude in signed decimal degrees (west negative); ${READ}`),
  duration: Nullable(Type.Number(), `Seconds, audio and video only; ${READ}`),
  color_space: Nullable(Type.String(), `EXIF ColorSpace (sRGB, Adobe RGB), else the ICC profile's description; ${READ}`),
  caption: Nullable(Type.String(), `IPTC Caption-Abstract, XMP dc:description or EXIF ImageDescription (the first present); editable`),
  creator: Nullable(Type.String(), 'XMP dc:creator (several joined by "; "), IPTC By-line or EXIF Artist; editable'),
  copyright: Nullable(Type.String(), 'XMP dc:rights, IPTC CopyrightNotice or EXIF Copyright; editable'),
  usage_terms: Nullable(Type.String(), 'XMP xmpRights:UsageTerms; editable'),
  keywords: Type.Array(Type.String(), {
    description:
      "The file's own keywords (IPTC Keywords and XMP dc:subject, without repeats in any case) as last read. Keywords new since the " +
      'previous read are added to tags (unless a tag of that name exists, up to 100 tags), so a tag removed by a user does not come back ' +
      'from the same file.',
  }),
  metadata_edited: Type.Array(Type.Union([Type.Literal('caption'), Type.Literal('creator'), Type.Literal('copyright'), Type.Literal('usage_terms')]), {
    description: 'The fields a user edited (PATCH): a later read of the file, of this or a new version, leaves them as edited',
  }),
  metadata_version_id: Nullable(
    Type.Integer(),
    'The version whose file the fields above were read from; null until the first read finished. A new version is read by a job ' +
      'shortly after it becomes current; until then the fields are those of the previous file.',
  ),
};

/** `embedded_metadata` of GET and PATCH /dam/assets/:id only (lists leave it out: it may be 64 KiB per asset). */
export const EmbeddedMetadataProperty = {
  embedded_metadata: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), {
      description:
        'Every tag ExifTool read from the current file, named Group:Tag (EXIF:Make, IPTC:Keywords, XMP:Subject, QuickTime:Duration…), ' +
        'read-only: without file-system tags (name, size, dates, permissions of the copy read) and binary values; text without control ' +
        'characters and cut at 2,000 characters, lists at 100 items; at most 1,000 tags and 64 KiB as JSON, the largest values left out ' +
        'first. {} until read. Answered by GET and PATCH /dam/assets/:id only. Kept apart from `metadata` (the user\'s own object) so ' +
        'that sending `metadata` back in a PATCH never carries it.',
    }),
  ),
};

const Editable = (maxLength: number, multiline: boolean, description: string) =>
  Type.Optional(
    Type.Union([Type.String({ maxLength, 'x-plain-text': multiline ? 'multiline' : true }), Type.Null()], {
      description: `${description}; null or blank clears it. An edited field is never overwritten by reading the file again.`,
    }),
  );

export const EmbeddedPatchProperties = {
  caption: Editable(TEXT_LIMITS.caption, true, `Caption, up to ${TEXT_LIMITS.caption} characters, tabs and line breaks allowed`),
  creator: Editable(TEXT_LIMITS.line, false, `Creator, one line of up to ${TEXT_LIMITS.line} characters (several joined by "; ")`),
  copyright: Editable(TEXT_LIMITS.line, false, `Copyright notice, one line of up to ${TEXT_LIMITS.line} characters`),
  usage_terms: Editable(TEXT_LIMITS.usage_terms, true, `Usage terms, up to ${TEXT_LIMITS.usage_terms} characters, tabs and line breaks allowed`),
};
