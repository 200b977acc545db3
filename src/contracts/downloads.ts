import { Type } from 'typebox';
import { ErrorBody } from '../http/schemas.js';

/**
 * OpenAPI of the file downloads (/storage/download, version downloads, shared-link items, /media): the conditional
 * request headers they answer and the validators they send (src/domain/conditional-download.ts, issue #38).
 */

export const RESUME_NOTE =
  'Every answer carries a strong `ETag` (the SHA-256 of the file once hashed, else `"v<version id>"`; a thumbnail, ' +
  'preview or video preview a weak one) and `Last-Modified` (when the version was made). `If-None-Match` with the ETag ' +
  '(or `If-Modified-Since`, on a URL that names a version) answers 304. A `Range` sent with `If-Range` is answered with ' +
  '206 only while the file is the one the ETag (or, on a version URL, the date) names; after a new version it is the ' +
  'whole file with 200, so a resumed download is never spliced from two versions. A resume without `If-Range` (curl -C, ' +
  'wget -c) cannot be checked: resume a URL that names the version (the version download, or a version key). An ' +
  'unsatisfiable range answers 416 with `Content-Range: bytes */<size>`.';

/** Bounded as every input is: a strong ETag is 66 characters, an HTTP date 29; a longer value is 400 naming the header. */
const header = (maxLength: number, description: string) => Type.Optional(Type.String({ maxLength, description }));

/** The conditional request headers of a download. */
export const ConditionalHeaders = {
  range: header(255, 'One byte range (`bytes=<first>-[<last>]`, or `bytes=-<suffix>`); several ranges get the whole file'),
  'if-range': header(128, 'An ETag (strong) or an HTTP date: the Range is served only while the file is still the one named, else 200 with all of it'),
  'if-none-match': header(255, 'ETags (or `*`) of copies the client holds: 304 when one is the current file'),
  'if-modified-since': header(
    128,
    'An HTTP date: 304 when the file is no newer (URLs that name a version; ignored when If-None-Match is sent)',
  ),
};

const VALIDATORS = {
  ETag: { type: 'string', description: 'Names the bytes: changes whenever the file served at this URL changes' },
  'Last-Modified': { type: 'string', description: 'When the version was made (HTTP date)' },
};

/** 200, 206, 304 and 416 of a download, with the headers each carries. */
export const DownloadResponses = {
  200: Type.Any({ description: 'The file', headers: VALIDATORS }),
  206: Type.Any({
    description: 'Part of the file',
    headers: { ...VALIDATORS, 'Content-Range': { type: 'string', description: 'bytes <first>-<last>/<size>' } },
  }),
  304: Type.Null({ description: 'Not modified: the copy named by If-None-Match (or If-Modified-Since) is current', headers: VALIDATORS }),
  416: Type.Object(ErrorBody.properties, {
    additionalProperties: true,
    description: 'The range is outside the file (RANGE_NOT_SATISFIABLE, with its size)',
    headers: { 'Content-Range': { type: 'string', description: 'bytes */<size>: the size of the file' } },
  }),
};
