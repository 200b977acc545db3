/**
 * Rules of shared links (issue #14) that need no I/O: a link's state, its default expiry, the
 * wrong-password throttle's numbers and the path of an item inside a "Download all" archive.
 */

/** A link made without `expires_at` lasts this long (the default), or a manager's cap when that is shorter. */
export const DEFAULT_SHARE_LIFETIME = 30 * 24 * 3600;

/**
 * How far ahead a manager may set a link's expiry (issue #28): a workspace setting, share_max_expiry_days
 * (migration 0030). Workspace admins are not capped (and alone may set none). Bounded so that the setting
 * itself cannot be made "never".
 */
export const DEFAULT_SHARE_MAX_EXPIRY_DAYS = 90;
export const MAX_SHARE_MAX_EXPIRY_DAYS = 3650;
/** Allowed past the cap, so that a client whose clock runs a little ahead may still pick "N days from now". */
export const SHARE_EXPIRY_CAP_GRACE = 3600;

/**
 * How long a download grant lasts (issue #28): a counted download of one file hands the visitor a signed
 * grant (services/shares/download-grants.ts), and requests of the same file carrying it, ranged or not, are that
 * download resumed and are not counted again, even once the link's limit is reached. A day covers a large
 * file over a slow line paused overnight; after it a request counts as a new download.
 */
export const DOWNLOAD_GRANT_SECONDS = 24 * 3600;

/**
 * The shortest password a link may be given (issue #28): behind a per-link limit of 1,200 requests a
 * minute a one-character password lasted under a second. Links made earlier keep theirs.
 */
export const MIN_SHARE_PASSWORD = 8;

/** Wrong passwords allowed per link and client address (an IPv6 /64) within the window; the next try is refused (429). */
export const UNLOCK_FAILURES_ALLOWED = 10;
export const UNLOCK_WINDOW_SECONDS = 15 * 60;
/**
 * Wrong passwords allowed per link from all addresses together within the window (issue #28): past it the
 * link refuses every password, the right one too, until the window has passed. Its access log shows each try.
 */
export const LINK_UNLOCK_FAILURES_ALLOWED = 50;

/** Key: base64url of this many random bytes (144 bits, 24 characters). */
export const SHARE_KEY_BYTES = 18;

/** The most assets a link to a list of assets holds (as POST /dam/assets/bulk). */
export const MAX_SHARED_ASSETS = 1000;

/** Longest user agent kept in the access log; the rest is cut. */
export const USER_AGENT_CHARS = 512;

export type ShareStatus = 'active' | 'expired' | 'revoked';

/** Revoked wins over expired; a link expires at `expires_at` exactly. */
export function shareStatus(link: { revoked_at: number | null; expires_at: number | null }, now: number): ShareStatus {
  if (link.revoked_at !== null) return 'revoked';
  if (link.expires_at !== null && link.expires_at <= now) return 'expired';
  return 'active';
}

/** Downloads still allowed; null: no limit. */
export function downloadsLeft(link: { max_downloads: number | null; download_count: number }): number | null {
  return link.max_downloads === null ? null : Math.max(0, link.max_downloads - link.download_count);
}

/**
 * An item's path in the archive: its folders below the shared folder, then its name. A `/` or `\` inside
 * one name would read as a directory boundary, so it becomes `_`; the archive writer sanitises the rest.
 */
export function archivePath(folderPath: readonly string[], name: string): string {
  return [...folderPath, name].map((segment) => segment.replace(/[/\\]/g, '_')).join('/');
}
