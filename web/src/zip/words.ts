import type { ZipEntry, ZipImport } from '../api/zip';
import { translate } from '../i18n';

/** Why an entry of an archive is not extracted, in a reader's words (GET /zip/list's `problem`): its message key. */
const PROBLEMS: Record<NonNullable<ZipEntry['problem']>, string> = {
  unsafe_name: 'unsafeName',
  symlink: 'symlink',
  special_file: 'specialFile',
  encrypted: 'encrypted',
  unsupported_compression: 'unsupportedCompression',
};

export function entryProblem(entry: ZipEntry): string | null {
  const key = entry.problem ? PROBLEMS[entry.problem] : entry.encrypted ? PROBLEMS.encrypted : null;
  return key ? translate(`zip.problem.${key}`) : null;
}

/** The entry's own name (its last path segment) for a saved file. */
export function entryFileName(entry: ZipEntry): string {
  return entry.name.split('/').filter(Boolean).pop() ?? 'entry';
}

/** "12 entries imported (files and folders), 1 skipped" of a finished import. */
export function importSummary(job: ZipImport): string {
  const variant = job.skipped && job.failed ? 'skippedFailed' : job.skipped ? 'skipped' : job.failed ? 'failed' : 'done';
  return translate(`zip.summary.${variant}`, { n: job.imported, skipped: job.skipped, failed: job.failed }, job.imported);
}
