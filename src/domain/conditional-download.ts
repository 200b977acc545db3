/**
 * Validators and conditional requests of downloads (RFC 9110 §8.8, §13): what identifies the bytes a download URL
 * serves, and how If-None-Match, If-Modified-Since and If-Range are judged against it. Pure functions; the stream
 * itself is src/services/downloads.ts.
 */

/** What identifies the bytes a download serves. */
export interface DownloadValidator {
  /** The entity tag as sent, quoted; `W/"…"` when the bytes behind the URL may change without the tag changing. */
  etag: string;
  /** Unix seconds: the time the served version was made; undefined when unknown (no Last-Modified). */
  lastModified?: number;
  /**
   * Whether the URL always serves these same bytes (it names a version). Only then is Last-Modified a strong
   * validator: a URL serving "the current version" may change to a version made within the same second (times are
   * whole seconds, and a version's time is when its upload began), so date conditions are not trusted there.
   */
  pinned: boolean;
}

/** The request headers a download answers to (Range and its preconditions). */
export interface DownloadConditions {
  range?: string;
  ifRange?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
}

type HeaderBag = Record<string, string | string[] | undefined>;

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** The conditions of a request, from its (lower-cased) headers. */
export function downloadConditions(headers: HeaderBag): DownloadConditions {
  return {
    range: single(headers.range),
    ifRange: single(headers['if-range']),
    ifNoneMatch: single(headers['if-none-match']),
    ifModifiedSince: single(headers['if-modified-since']),
  };
}

/**
 * The validator of a version's file. The SHA-256 names the bytes themselves once the hash job stored it (the same
 * bytes restored as another version keep the tag); before that the version id does, since a version's object is
 * written once. The tag changes when the hash arrives: a resume across that moment is answered whole, never mixed.
 */
export function versionValidator(version: { id: number; sha256: string | null; created_at: number }, pinned: boolean): DownloadValidator {
  const etag = version.sha256 ? `"${version.sha256}"` : `"v${version.id}"`;
  return { etag, lastModified: version.created_at, pinned };
}

/**
 * A rendition (thumbnail, preview, video preview) is remade under the same key when its job runs again, and has no
 * hash: its tag is weak. Weak tags serve If-None-Match, and never satisfy If-Range (strong comparison), so a resume
 * of a rendition that may have changed is answered whole.
 */
export function renditionValidator(versionId: number, kind: string, size: number): DownloadValidator {
  return { etag: `W/"v${versionId}-${kind}-${size}"`, pinned: false };
}

/** Last-Modified as an HTTP date. */
export const httpDate = (unixSeconds: number): string => new Date(unixSeconds * 1000).toUTCString();

/** Unix seconds of an HTTP date; undefined when it is not one. */
function parseHttpDate(value: string): number | undefined {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

const opaque = (tag: string): string => tag.replace(/^W\//, '');

/** The entity tags of an If-None-Match list (`"a", W/"b"`); a tag holding a comma is kept whole. */
function tagList(value: string): string[] {
  return value.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

/**
 * Whether the client's copy is current, so 304 may answer (§13.1.2, §13.1.3). If-None-Match uses weak comparison
 * and takes precedence; If-Modified-Since is judged only when it is absent, and only where dates are strong.
 */
export function notModified(conditions: DownloadConditions, validator: DownloadValidator | undefined): boolean {
  if (!validator) return false;
  if (conditions.ifNoneMatch !== undefined) {
    if (conditions.ifNoneMatch.trim() === '*') return true;
    return tagList(conditions.ifNoneMatch).some((tag) => opaque(tag) === opaque(validator.etag));
  }
  if (conditions.ifModifiedSince === undefined || !validator.pinned || validator.lastModified === undefined) return false;
  const since = parseHttpDate(conditions.ifModifiedSince);
  return since !== undefined && validator.lastModified <= since;
}

/**
 * Whether a Range may be answered (§13.1.5): yes without If-Range; with it, only when it names these very bytes,
 * a strong tag equal to ours (weak tags never match) or, on a URL that always serves the same bytes, its exact
 * Last-Modified. Otherwise the whole file is answered (200), so a resume never appends another version's bytes.
 */
export function rangeApplies(ifRange: string | undefined, validator: DownloadValidator | undefined): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  if (!validator) return false;
  if (value.startsWith('"') || value.startsWith('W/')) {
    return !value.startsWith('W/') && !validator.etag.startsWith('W/') && value === validator.etag;
  }
  if (!validator.pinned || validator.lastModified === undefined) return false;
  return parseHttpDate(value) === validator.lastModified;
}
