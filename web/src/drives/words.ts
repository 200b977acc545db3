import type { DriveConnection, DriveImportItem, DriveImportSummary, DriveItem, DriveProvider } from '../api/drives';
import { ApiError } from '../api/http';
import { errorText } from '../stores/toasts';
import { formatBytes } from '../util/format';

/** What the Drives page and the Send to drive dialog say, in the user's words (issue #16). */

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

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
  const nameOf = (id: unknown) => (typeof id === 'string' && (Object.hasOwn(KNOWN_NAMES, id) || providers.some((p) => p.id === id)) ? driveName(id, providers) : 'The drive');
  if (typeof connected === 'string' && connected) return { kind: 'success', text: `${nameOf(connected)} is connected. Browse it below.` };
  if (typeof error !== 'string' || !error) return null;
  const name = nameOf(one(query.provider));
  switch (error) {
    case 'access_denied':
      return { kind: 'error', text: `${name} was not connected: access was not granted.` };
    case 'invalid_state':
      return {
        kind: 'error',
        text: `${name} was not connected: the sign-in expired, was used already or was finished in another browser. Connect again from this page.`,
      };
    case 'exchange_failed':
      return { kind: 'error', text: `${name} was not connected: it did not accept the sign-in. Try again.` };
    default:
      return { kind: 'error', text: `${name} was not connected (${error.slice(0, 64)}).` };
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
    if (err.code === 'DRIVE_REAUTH_REQUIRED') return `${driveName} has to be authorised again: use Re-authorise on the Drives page.`;
    if (err.code === 'DRIVE_NOT_CONNECTED') return `${driveName} is not connected: connect it on the Drives page.`;
    if (err.code === 'DRIVE_NOT_CONFIGURED') return `${driveName} is not set up on this server.`;
    if (err.code === 'DRIVE_PROVIDER_ERROR') {
      const wait = Number(err.details.retry_after);
      return `${driveName} failed: ${err.message}${Number.isFinite(wait) && wait > 0 ? ` Try again in ${Math.ceil(wait)} s.` : ''}`;
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
  if (item.unsupported) return `Cannot be imported: ${item.unsupported}`;
  if (item.is_folder) return 'Folder';
  if (item.export) return `Imported as ${item.export.extension.replace(/^\./, '').toUpperCase()}`;
  return item.size === null ? '' : formatBytes(item.size);
}

const REASONS: Record<string, string> = {
  unchanged: 'Already imported, unchanged',
  unsupported: 'Cannot be imported',
  too_large: 'Too large',
  not_found: 'Not found on the drive',
  provider_error: 'The drive failed',
  rejected: 'Refused by the library',
  new: 'Imported',
  new_version: 'Imported as a new version',
};

/** What became of one item of an import, with the server's message when there is one. */
export function itemOutcome(item: Pick<DriveImportItem, 'kind' | 'status' | 'reason' | 'message'>): string {
  let words: string;
  if (item.status === 'pending') words = 'Waiting';
  else if (item.kind === 'folder' && item.status === 'imported') words = 'Folder created';
  else words = (item.reason && REASONS[item.reason]) || { imported: 'Imported', skipped: 'Skipped', failed: 'Failed' }[item.status];
  return item.message ? `${words}: ${item.message}` : words;
}

export const STATUS_LABEL: Record<DriveImportSummary['status'], string> = {
  queued: 'Waiting',
  running: 'Importing',
  succeeded: 'Done',
  failed: 'Failed',
};

export function isFinished(imp: Pick<DriveImportSummary, 'status'>): boolean {
  return imp.status === 'succeeded' || imp.status === 'failed';
}

/** One line on how an import goes or went. */
export function importStatusText(imp: DriveImportSummary): string {
  switch (imp.status) {
    case 'queued':
      return imp.error ? `Waiting to try again: ${imp.error}` : 'Waiting to start…';
    case 'running':
      return imp.planned
        ? `Importing: ${imp.processed_files} of ${count(imp.total_files, 'file')} done`
        : `Finding files: ${count(imp.total_files, 'file')} so far, ${imp.processed_files} done`;
    case 'succeeded':
      return `Done: ${importCounts(imp)}`;
    case 'failed':
      return `Failed: ${imp.error ?? 'the import stopped'}${imp.imported ? ` (${count(imp.imported, 'file')} imported before it stopped)` : ''}`;
  }
}

/** "3 imported · 1 unchanged · 1 failed · 2 folders · 4.2 MB"; a count of 0 is left out (all of them: "no files"). */
export function importCounts(imp: Pick<DriveImportSummary, 'imported' | 'skipped' | 'failed' | 'folders' | 'bytes'>): string {
  const parts = [
    imp.imported ? `${imp.imported} imported` : '',
    imp.skipped ? `${imp.skipped} skipped` : '',
    imp.failed ? `${imp.failed} failed` : '',
    imp.folders ? count(imp.folders, 'folder') : '',
  ].filter(Boolean);
  if (!parts.length) parts.push('no files');
  if (imp.bytes) parts.push(formatBytes(imp.bytes));
  return parts.join(' · ');
}
