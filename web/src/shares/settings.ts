import type { Share, ShareCreateRequest, SharePatch, ShareTarget } from '../api/shares';
import { translate } from '../i18n';
import { formatDate, formatNumber } from '../util/format';

/**
 * A shared link's settings as the Share dialog and the edit dialog hold them (issue #14), and the
 * requests they make: POST /shared with what was chosen, PATCH /shared/:id with only what changed.
 */

const DAY = 86_400;

/** Bounds of the API (src/contracts/shares.ts). */
export const MAX_PASSWORD = 256;
/** A new password's shortest length (issue #28). */
export const MIN_PASSWORD = 8;
export const MAX_DESCRIPTION = 2000;
export const MAX_DOWNLOADS = 1_000_000;

/** `keep`: the link's expiry as it is (editing); `date`: the end of a chosen day, in the browser's time zone. */
export type ExpiryChoice = 'keep' | '1d' | '7d' | '30d' | '90d' | '365d' | 'date' | 'never';
/** `none`: no password; `keep`: the current one (editing); `set`: a new one; `remove`: take it off. */
export type PasswordChoice = 'none' | 'keep' | 'set' | 'remove';

export interface ShareForm {
  expiry: ExpiryChoice;
  /** yyyy-mm-dd, for `date`. */
  date: string;
  passwordMode: PasswordChoice;
  password: string;
  allowDownload: boolean;
  limitDownloads: boolean;
  maxDownloads: number | null;
  description: string;
}

const PRESET_DAYS: Partial<Record<ExpiryChoice, number>> = { '1d': 1, '7d': 7, '30d': 30, '90d': 90, '365d': 365 };
/** The server's default lifetime: a new link made with it sends no expires_at. */
export const DEFAULT_EXPIRY: ExpiryChoice = '30d';

/** A new link: 30 days, no password, downloads allowed without a limit. */
export function newShareForm(): ShareForm {
  return { expiry: DEFAULT_EXPIRY, date: '', passwordMode: 'none', password: '', allowDownload: true, limitDownloads: false, maxDownloads: null, description: '' };
}

/** An existing link's settings, each kept as it is until changed. */
export function editShareForm(link: Share): ShareForm {
  return {
    expiry: 'keep',
    date: '',
    passwordMode: link.has_password ? 'keep' : 'none',
    password: '',
    allowDownload: link.allow_download,
    limitDownloads: link.max_downloads !== null,
    maxDownloads: link.max_downloads,
    description: link.description ?? '',
  };
}

export interface Option<T> {
  value: T;
  label: string;
}

/**
 * The expiry picker's choices. "Never" only for workspace admins (the server refuses it to
 * managers); when editing, the current expiry comes first as "keep".
 */
export function expiryOptions(opts: { isAdmin: boolean; current?: number | null; editing?: boolean; now?: number; maxDays?: number | null }): Option<ExpiryChoice>[] {
  const options: Option<ExpiryChoice>[] = [];
  if (opts.editing) options.push({ value: 'keep', label: translate('shares.expiry.keep', { expiry: describeExpiry(opts.current ?? null, opts.now) }) });
  const preset = (days: number) => translate(opts.editing ? 'shares.expiry.fromNowDays' : 'shares.expiry.days', { n: days }, days);
  const year = translate(opts.editing ? 'shares.expiry.fromNowYear' : 'shares.expiry.year');
  options.push(
    { value: '1d', label: preset(1) },
    { value: '7d', label: preset(7) },
    { value: '30d', label: preset(30) },
    { value: '90d', label: preset(90) },
    { value: '365d', label: year },
    { value: 'date', label: translate('shares.expiry.untilDate') },
  );
  // Issue #28: a manager's presets stop at the workspace's cap (share_max_expiry_days); the server refuses later ones.
  const cap = opts.isAdmin ? null : (opts.maxDays ?? null);
  if (cap !== null) return options.filter((o) => (PRESET_DAYS[o.value] ?? 0) <= cap);
  if (opts.isAdmin && !(opts.editing && opts.current === null)) options.push({ value: 'never', label: translate('shares.expiry.never') });
  return options;
}

/** The end (23:59:59) of a yyyy-mm-dd day in the browser's time zone, as Unix seconds; null if not a date. */
export function endOfDay(date: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return null;
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59);
  return Number.isNaN(d.getTime()) ? null : Math.floor(d.getTime() / 1000);
}

/** yyyy-mm-dd of a day in the browser's time zone (a date input's `min`). */
export function isoDay(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * The expiry to send: Unix seconds, null (never), or undefined (send nothing: the server's
 * default for a new link, the current expiry for an edited one).
 */
export function expiresAtOf(form: ShareForm, editing: boolean, now = Date.now()): number | null | undefined {
  if (form.expiry === 'keep') return undefined;
  if (form.expiry === 'never') return null;
  if (form.expiry === 'date') return endOfDay(form.date) ?? undefined;
  if (form.expiry === DEFAULT_EXPIRY && !editing) return undefined;
  return Math.floor(now / 1000) + (PRESET_DAYS[form.expiry] ?? 30) * DAY;
}

/** The last day a manager may choose (a date input's `max`): the last whose end is within `maxDays` from now; null: no cap. */
export function lastAllowedDay(maxDays: number | null | undefined, now = Date.now()): string | null {
  return maxDays ? isoDay(now + (maxDays - 1) * DAY * 1000) : null;
}

/**
 * What is wrong with the form before asking the server (its bounds and the dialog's own rules); null: nothing.
 * `maxDays`: a manager's cap on the expiry (the workspace's share_max_expiry_days), none for admins.
 */
export function formProblem(form: ShareForm, now = Date.now(), maxDays: number | null = null): { field: keyof ShareForm; message: string } | null {
  if (form.expiry === 'date') {
    const at = endOfDay(form.date);
    if (at === null) return { field: 'date', message: translate('shares.form.chooseDay') };
    if (at <= now / 1000) return { field: 'date', message: translate('shares.form.datePassed') };
    if (maxDays !== null && at > now / 1000 + maxDays * DAY) {
      return { field: 'date', message: translate('shares.form.dateCap', { n: maxDays }, maxDays) };
    }
  }
  if (form.passwordMode === 'set' && form.password.length === 0) return { field: 'password', message: translate('shares.form.passwordMissing') };
  if (form.passwordMode === 'set' && form.password.length < MIN_PASSWORD) {
    return { field: 'password', message: translate('shares.form.passwordShort', { n: MIN_PASSWORD }) };
  }
  if (form.password.length > MAX_PASSWORD) return { field: 'password', message: translate('shares.form.passwordLong', { n: MAX_PASSWORD }) };
  if (form.allowDownload && form.limitDownloads) {
    const n = form.maxDownloads;
    if (n === null || !Number.isInteger(n) || n < 1 || n > MAX_DOWNLOADS) {
      return { field: 'maxDownloads', message: translate('shares.form.limitRange', { max: formatNumber(MAX_DOWNLOADS) }) };
    }
  }
  if (form.description.length > MAX_DESCRIPTION) return { field: 'description', message: translate('shares.form.descriptionLong', { n: formatNumber(MAX_DESCRIPTION) }) };
  return null;
}

/** The limit to send: none when downloads are off (the limit then means nothing) or not limited. */
const limitOf = (form: ShareForm) => (form.allowDownload && form.limitDownloads ? form.maxDownloads : null);
const descriptionOf = (form: ShareForm) => (form.description.trim() ? form.description : null);

/** POST /shared for the target with the form's settings (defaults left to the server). */
export function createRequest(workspaceId: number, target: ShareTarget, form: ShareForm, now = Date.now()): ShareCreateRequest {
  const expiresAt = expiresAtOf(form, false, now);
  const limit = limitOf(form);
  const description = descriptionOf(form);
  return {
    workspaceId,
    ...target,
    ...(expiresAt !== undefined && { expires_at: expiresAt }),
    ...(form.passwordMode === 'set' && { password: form.password }),
    ...(!form.allowDownload && { allow_download: false }),
    ...(limit !== null && { max_downloads: limit }),
    ...(description !== null && { description }),
  };
}

/** PATCH /shared/:id with only the settings that differ from the link's; {} when nothing changed. */
export function patchRequest(link: Share, form: ShareForm, now = Date.now()): SharePatch {
  const patch: SharePatch = {};
  const expiresAt = expiresAtOf(form, true, now);
  if (expiresAt !== undefined && expiresAt !== link.expires_at) patch.expires_at = expiresAt;
  if (form.passwordMode === 'set') patch.password = form.password;
  if (form.passwordMode === 'remove' && link.has_password) patch.password = null;
  if (form.allowDownload !== link.allow_download) patch.allow_download = form.allowDownload;
  // With downloads off the limit is left as it is: turning them on again brings it back.
  if (form.allowDownload) {
    const limit = limitOf(form);
    if (limit !== link.max_downloads) patch.max_downloads = limit;
  }
  const description = descriptionOf(form);
  if (description !== link.description) patch.description = description;
  return patch;
}

/** "Never expires", "Expires in 3 days (12 Jun 2026, 14:00)", "Expires in 5 hours", "Expired on 2 Jun 2026, 09:00". */
export function describeExpiry(expiresAt: number | null, now = Date.now()): string {
  if (expiresAt === null) return translate('shares.expiry.never');
  const left = expiresAt - now / 1000;
  const when = formatDate(expiresAt);
  if (left <= 0) return translate('shares.expiry.expiredOn', { when });
  if (left < 3600) return translate('shares.expiry.inMinutes', { n: Math.max(1, Math.round(left / 60)), when });
  if (left < 2 * DAY) return translate('shares.expiry.inHours', { n: Math.round(left / 3600), when });
  const days = Math.round(left / DAY);
  return translate('shares.expiry.inDays', { n: days, when }, days);
}

/** "3 of 20 downloads", "3 downloads" (no limit), "Downloads off". */
export function describeDownloads(link: Pick<Share, 'allow_download' | 'download_count' | 'max_downloads'>): string {
  if (!link.allow_download) return translate('shares.downloads.off');
  const made = formatNumber(link.download_count);
  if (link.max_downloads === null) return translate('shares.downloads.count', { n: made }, link.download_count);
  return translate('shares.downloads.ofLimit', { n: made, max: formatNumber(link.max_downloads) }, link.max_downloads);
}

export interface TargetNames {
  folderName?: (id: number) => string | undefined;
  collectionName?: (id: number) => string | undefined;
  assetName?: (id: number) => string | undefined;
}

/**
 * What a link shows, in words: `Folder “Press”`, `Collection “Spring”`, `“photo.jpg”`, `3 assets`,
 * `A pinned version`. A folder, collection or version deleted for good since is null in the link.
 */
export function describeTarget(link: Pick<Share, 'target' | 'asset_ids' | 'folder_id' | 'collection_id' | 'version_id'>, names: TargetNames = {}): string {
  switch (link.target) {
    case 'folder': {
      if (link.folder_id === null) return translate('shares.target.deletedFolder');
      const name = names.folderName?.(link.folder_id);
      return name ? translate('shares.target.folder', { name }) : translate('shares.target.folderId', { id: link.folder_id });
    }
    case 'collection': {
      if (link.collection_id === null) return translate('shares.target.deletedCollection');
      const name = names.collectionName?.(link.collection_id);
      return name ? translate('shares.target.collection', { name }) : translate('shares.target.collectionId', { id: link.collection_id });
    }
    case 'version':
      return translate(link.version_id === null ? 'shares.target.deletedVersion' : 'shares.target.version');
    case 'assets': {
      const n = link.asset_ids.length;
      if (n === 1) {
        const name = names.assetName?.(link.asset_ids[0]!);
        return name ? translate('shares.target.asset', { name }) : translate('shares.target.oneAsset');
      }
      return n === 0 ? translate('shares.target.noAssets') : translate('shares.target.assets', { n }, n);
    }
    default:
      return translate('shares.target.files');
  }
}

/** An API field named by an error, as the form's field. */
export function formFieldOf(apiField: string | undefined): keyof ShareForm | null {
  switch (apiField?.replace(/^body\./, '')) {
    case 'expires_at':
      return 'expiry';
    case 'password':
      return 'password';
    case 'max_downloads':
      return 'maxDownloads';
    case 'description':
      return 'description';
    default:
      return null;
  }
}
