import type { UploadItem } from './upload-queue';
import { translate } from '../i18n';

/**
 * What the upload panel's live regions say (issue #29): milestones, not every percent. The polite
 * status says when uploads start, how many are left and done, and the result; the alert says which
 * uploads failed and why. A text changes only at a milestone, so a screen reader reads each once.
 */
const ACTIVE = new Set<UploadItem['state']>(['checking', 'queued', 'uploading', 'completing']);

/** Which of the four "done, failed, unreadable" sentences fits (upload.counts.* and upload.status.finished.*). */
export function countsVariant(failed: number, unreadable: number): 'done' | 'failed' | 'unreadable' | 'failedUnreadable' {
  if (failed && unreadable) return 'failedUnreadable';
  if (failed) return 'failed';
  return unreadable ? 'unreadable' : 'done';
}

export function uploadStatusText(items: readonly UploadItem[], unreadable = 0): string {
  if (!items.length) return '';
  const count = (state: UploadItem['state']) => items.filter((i) => i.state === state).length;
  const active = items.filter((i) => ACTIVE.has(i.state)).length;
  const done = count('done');
  if (active) return done ? translate('upload.status.uploadingDone', { n: active, done }, active) : translate('upload.status.uploading', { n: active }, active);
  const duplicates = count('duplicate');
  if (duplicates) return translate('upload.status.duplicates', { n: duplicates }, duplicates);
  const failed = count('failed');
  return translate(`upload.status.finished.${countsVariant(failed, unreadable)}`, { done, failed, unreadable });
}

export function uploadAlertText(items: readonly UploadItem[]): string {
  return items
    .filter((i) => i.state === 'failed')
    .map((i) => {
      if (i.refusal?.quota) return translate('upload.alert.quota', { name: i.name });
      return i.error ? translate('upload.alert.failed', { name: i.name, reason: i.error }) : translate('upload.alert.unknown', { name: i.name });
    })
    .join(translate('upload.alert.separator'));
}

