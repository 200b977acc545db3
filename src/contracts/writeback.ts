import { Type } from 'typebox';

/** `?embed_metadata=true` of GET /storage/download and GET /dam/versions/:id/download (issue #12). */
export const EmbedMetadata = Type.Optional(
  Type.Boolean({
    default: false,
    description:
      "true: the file is sent with the asset's current caption, creator, copyright, usage terms and tags (as keywords) written into it " +
      '(XMP, and IPTC and EXIF where the format has them), so metadata edited here travels with the file. See the operation description.',
  }),
);

/** The part of both download descriptions that explains embed_metadata. */
export const EMBED_METADATA_NOTE =
  'With embed_metadata=true, types ExifTool can write (JPEG, PNG, TIFF, WebP, GIF, HEIC/HEIF, AVIF, JPEG 2000, JPEG XL, DNG, PSD, PDF, EPS, ' +
  'MP4, MOV, M4V, M4A) up to 2 GiB are written on a temporary copy (the stored file never changes) and sent whole: 200, ' +
  '`Accept-Ranges: none`, any `Range` ignored, since the written bytes exist for this answer only. A field without a value is removed from ' +
  "the file, and the tags replace the file's keywords, once the file was read (metadata_version_id is the current version); before that " +
  'only values are written and the tags are added to its keywords. Other types, larger files and files ExifTool fails to rewrite are sent ' +
  'as stored (Range served as usual for the first two). The `Metadata-Embedded` header says which: `true` or `false`. ' +
  'Signed media URLs (file_url) always serve the stored bytes.';
