import type { ZipEntry, ZipImport } from '../api/zip';

/** Why an entry of an archive is not extracted, in a reader's words (GET /zip/list's `problem`). */
const PROBLEMS: Record<NonNullable<ZipEntry['problem']>, string> = {
  unsafe_name: 'unsafe name',
  symlink: 'symbolic link',
  special_file: 'special file',
  encrypted: 'encrypted',
  unsupported_compression: 'unsupported compression',
};

export function entryProblem(entry: ZipEntry): string | null {
  if (entry.problem) return PROBLEMS[entry.problem];
  return entry.encrypted ? PROBLEMS.encrypted : null;
}

/** The entry's own name (its last path segment) for a saved file. */
export function entryFileName(entry: ZipEntry): string {
  return entry.name.split('/').filter(Boolean).pop() ?? 'entry';
}

/** "12 entries imported (files and folders), 1 skipped" of a finished import. */
export function importSummary(job: ZipImport): string {
  const parts = [`${job.imported} ${job.imported === 1 ? 'entry' : 'entries'} imported (files and folders)`];
  if (job.skipped) parts.push(`${job.skipped} skipped`);
  if (job.failed) parts.push(`${job.failed} failed`);
  return parts.join(', ');
}
