import type { UploadItem } from './upload-queue';

/**
 * What the upload panel's live regions say (issue #29): milestones, not every percent. The polite
 * status says when uploads start, how many are left and done, and the result; the alert says which
 * uploads failed and why. A text changes only at a milestone, so a screen reader reads each once.
 */
const ACTIVE = new Set<UploadItem['state']>(['checking', 'queued', 'uploading', 'completing']);

const files = (n: number) => `${n} file${n === 1 ? '' : 's'}`;

export function uploadStatusText(items: readonly UploadItem[], unreadable = 0): string {
  if (!items.length) return '';
  const count = (state: UploadItem['state']) => items.filter((i) => i.state === state).length;
  const active = items.filter((i) => ACTIVE.has(i.state)).length;
  const done = count('done');
  if (active) return `Uploading ${files(active)}${done ? `, ${done} uploaded` : ''}`;
  const duplicates = count('duplicate');
  if (duplicates) return `${files(duplicates)} already in the library: skip or upload anyway`;
  const failed = count('failed');
  return `Uploads finished: ${done} uploaded${failed ? `, ${failed} failed` : ''}${unreadable ? `, ${unreadable} unreadable` : ''}`;
}

export function uploadAlertText(items: readonly UploadItem[]): string {
  return items
    .filter((i) => i.state === 'failed')
    .map((i) => `Upload of ${i.name} failed: ${i.refusal?.quota ? "over the workspace plan's limit" : (i.error ?? 'unknown error')}`)
    .join('. ');
}
