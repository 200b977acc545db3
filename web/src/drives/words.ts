import type { DriveConnection, DriveImportItem, DriveImportSummary, DriveItem, DriveProvider } from '../api/drives';
import { ApiError } from '../api/http';
import { translate } from '../i18n';
import { errorText } from '../stores/toasts';
import { formatBytes } from '../util/format';

/** What the Drives page and the Send to drive dialog say, in the user's words (issue #16). */


/** The providers' names (GET /drives says them; these serve for an import of a provider no longer configured). */
const KNOWN_NAMES: Record<string, string> = { 'drive-ext-1': 'Google Drive', 'drive-ext-2': 'Dropbox', 'drive-ext-3': 'OneDrive' };

export function driveName(id: string, providers: readonly Pick<DriveProvider, 'id' | 'name'>[] = []): string {
  return providers.find((p) => p.id === id)?.name ?? (Object.hasOwn(KNOWN_NAMES, id) ? KNOWN_NAMES[id]! : id);
}

/** The query the OAuth callback sends the browser back with. */
export interface CallbackQuery {
  connected?: unknown;
  error?: unknown;
  provider?: unknown;
}

export interface Outcome {
  kind: 'success' | 'error';
  text: string;
}

/**
 * ?connected=<id> or ?error=<code>&provider=<id> after the provider's sign-in: what happened, or null when the
 * query says nothing of it. The error codes are the callback's (access_denied or the provider's own code when
 * the user declined, exchange_failed, invalid_state).
 */
export function callbackOutcome(query: CallbackQuery, providers: readonly Pick<DriveProvider, 'id' | 'name'>[]): Outcome | null {
  const one = (v: unknown): unknown => (Array.isArray(v) ? (v as unknown[])[0] : v);
  const connected = one(query.connected);
  const error = one(query.error);
  // Only a drive this client knows is named: the query is whatever the address bar holds.
  const nameOf = (id: unknown) => (typeof id === 'string' && (Object.hasOwn(KNOWN_NAMES, id) || providers.some((p) => p.id === id)) ? driveName(id, providers) : translate('drives.theDrive'));
  if (typeof connected === 'string' && connected) return { kind: 'success', text: translate('drives.callback.connected', { name: nameOf(connected) }) };
  if (typeof error !== 'string' || !error) return null;
  const name = nameOf(one(query.provider));
  switch (error) {
    case 'access_denied':
      return { kind: 'error', text: translate('drives.callback.denied', { name }) };
    case 'invalid_state':
      return { kind: 'error', text: translate('drives.callback.invalidState', { name }) };
    case 'exchange_failed':
      return { kind: 'error', text: translate('drives.callback.exchangeFailed', { name }) };
    default:
      return { kind: 'error', text: translate('drives.callback.other', { name, code: error.slice(0, 64) }) };
  }
}

export type ConnectionState = 'none' | 'active' | 'reauth';

export function connectionState(provider: Pick<DriveProvider, 'connection'>): ConnectionState {
  if (!provider.connection) return 'none';
  return provider.connection.status === 'active' ? 'active' : 'reauth';
}

/** Who is connected: e-mail, else name, else the provider's account id. */
export function accountLabel(connection: DriveConnection): string {
  return connection.account_email ?? connection.account_name ?? connection.account_id;
}

/** A drive operation's failure, naming the drive; 409s also say what to do. */
export function driveErrorText(err: unknown, driveName: string): string {
  if (err instanceof ApiError) {
    const name = driveName;
    if (err.code === 'DRIVE_REAUTH_REQUIRED') return translate('drives.error.reauth', { name });
    if (err.code === 'DRIVE_NOT_CONNECTED') return translate('drives.error.notConnected', { name });
    if (err.code === 'DRIVE_NOT_CONFIGURED') return translate('drives.error.notConfigured', { name });
    if (err.code === 'DRIVE_PROVIDER_ERROR') {
      const wait = Number(err.details.retry_after);
      return Number.isFinite(wait) && wait > 0
        ? translate('drives.error.providerWait', { name, message: err.message, seconds: Math.ceil(wait) })
        : translate('drives.error.provider', { name, message: err.message });
    }
  }
  return errorText(err);
}

/** Whether the error means the connection is unusable until connected again (the page then offers that). */
export function connectionProblem(err: unknown): 'reauth_required' | 'gone' | null {
  if (!(err instanceof ApiError)) return null;
  if (err.code === 'DRIVE_REAUTH_REQUIRED') return 'reauth_required';
  if (err.code === 'DRIVE_NOT_CONNECTED') return 'gone';
  return null;
}

/** The kind of file an item is, for FileTypeIcon. */
export function itemKind(item: Pick<DriveItem, 'is_folder' | 'mime_type' | 'export'>): string {
  if (item.is_folder) return 'folder';
  const type = item.export?.mime_type ?? item.mime_type ?? '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  if (/zip|x-tar|x-7z|x-rar|gzip/.test(type)) return 'archive';
  if (/pdf|document|sheet|presentation|text\/|msword|ms-excel|ms-powerpoint|json/.test(type)) return 'document';
  return 'file';
}

/** The line under an item's name: size (or what a provider document becomes), or why it cannot be imported. */
export function itemDetail(item: DriveItem): string {
  if (item.unsupported) return translate('drives.item.unsupported', { reason: item.unsupported });
  if (item.is_folder) return translate('drives.item.folder');
  if (item.export) return translate('drives.item.exportAs', { format: item.export.extension.replace(/^\./, '').toUpperCase() });
  return item.size === null ? '' : formatBytes(item.size);
}

/** The server's reasons, each with its message key (drives.reason.*). */
const REASONS: Record<string, string> = {
  unchanged: 'unchanged',
  unsupported: 'unsupported',
  too_large: 'tooLarge',
  not_found: 'notFound',
  provider_error: 'providerError',
  rejected: 'rejected',
  new: 'new',
  new_version: 'newVersion',
};

/** What became of one item of an import, with the server's message when there is one. */
export function itemOutcome(item: Pick<DriveImportItem, 'kind' | 'status' | 'reason' | 'message'>): string {
  let words: string;
  const reason = item.reason && Object.hasOwn(REASONS, item.reason) ? REASONS[item.reason] : undefined;
  if (item.status === 'pending') words = translate('drives.outcome.pending');
  else if (item.kind === 'folder' && item.status === 'imported') words = translate('drives.outcome.folderCreated');
  else words = reason ? translate(`drives.reason.${reason}`) : translate(`drives.outcome.${item.status}`);
  return item.message ? translate('drives.outcome.withMessage', { words, message: item.message }) : words;
}

/** An import's state in a word (its badge). */
export function statusLabel(status: DriveImportSummary['status']): string {
  return translate(`drives.status.${status}`);
}

export function isFinished(imp: Pick<DriveImportSummary, 'status'>): boolean {
  return imp.status === 'succeeded' || imp.status === 'failed';
}

/** One line on how an import goes or went. */
export function importStatusText(imp: DriveImportSummary): string {
  switch (imp.status) {
    case 'queued':
      return imp.error ? translate('drives.import.retrying', { reason: imp.error }) : translate('drives.import.queued');
    case 'running':
      return imp.planned
        ? translate('drives.import.running', { done: imp.processed_files, n: imp.total_files }, imp.total_files)
        : translate('drives.import.finding', { n: imp.total_files, done: imp.processed_files }, imp.total_files);
    case 'succeeded':
      return translate('drives.import.done', { counts: importCounts(imp) });
    case 'failed': {
      const reason = imp.error ?? translate('drives.import.stopped');
      return imp.imported
        ? translate('drives.import.failedAfter', { reason, n: imp.imported }, imp.imported)
        : translate('drives.import.failed', { reason });
    }
  }
}

/** "3 imported · 1 unchanged · 1 failed · 2 folders · 4.2 MB"; a count of 0 is left out (all of them: "no files"). */
export function importCounts(imp: Pick<DriveImportSummary, 'imported' | 'skipped' | 'failed' | 'folders' | 'bytes'>): string {
  const parts = [
    imp.imported ? translate('drives.count.imported', { n: imp.imported }, imp.imported) : '',
    imp.skipped ? translate('drives.count.skipped', { n: imp.skipped }, imp.skipped) : '',
    imp.failed ? translate('drives.count.failed', { n: imp.failed }, imp.failed) : '',
    imp.folders ? translate('drives.count.folders', { n: imp.folders }, imp.folders) : '',
  ].filter(Boolean);
  if (!parts.length) parts.push(translate('drives.count.none'));
  if (imp.bytes) parts.push(formatBytes(imp.bytes));
  return parts.join(' · ');
}
