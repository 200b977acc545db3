import { formatLocale, translate } from '../i18n';

/**
 * Dates, numbers, file sizes and relative times in the language the client shows (issue #29): every helper takes
 * the active locale by default (reactive: a template or computed calling one follows a change of language), or
 * an explicit one. Never toLocaleString() without a locale, never hand-made plurals.
 */

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/** A size in binary steps (1 KB = 1,024 bytes, as the server and the rest of the client count): "2.0 kB", "928 kB", "5,0 Mo". */
export function formatBytes(bytes: number, locale: string = formatLocale()): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = value >= 10 || unit === 0 ? 0 : 1;
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit: UNITS[unit],
    unitDisplay: 'short',
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(digits === 0 ? Math.round(value) : value);
}

/** A count or amount with the locale's grouping and decimal marks: "1,234" / "1.234" / "1 234". */
export function formatNumber(value: number, options: Intl.NumberFormatOptions = {}, locale: string = formatLocale()): string {
  return new Intl.NumberFormat(locale, options).format(value);
}

/** A length as a player shows it: "0:04", "2:05", "1:02:05" (rounded to the second); null when there is none. */
export function formatClock(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return null;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** Unix seconds, milliseconds or an ISO string, as a Date (null when there is none or it is not a date). */
export function toDate(value: number | string | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  const date = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** Unix seconds, milliseconds or an ISO string, as a local date and time in the locale ("Jan 5, 2025, 09:30"). */
export function formatDate(
  value: number | string | null | undefined,
  options: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' },
  locale: string = formatLocale(),
): string {
  if (value === null || value === undefined || value === '') return '';
  const date = toDate(value);
  if (!date) return String(value);
  return new Intl.DateTimeFormat(locale, options).format(date);
}

/** A past Unix time relative to now: "just now", "5 minutes ago", "vor 3 Stunden", "il y a 2 jours"; the date after 30 days. */
export function formatRelative(unixSeconds: number, now = Date.now(), locale: string = formatLocale()): string {
  const diff = Math.round(now / 1000 - unixSeconds);
  if (diff < 60) return translate('common.time.justNow');
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });
  if (diff < 3600) return rtf.format(-Math.floor(diff / 60), 'minute');
  if (diff < 86400) return rtf.format(-Math.floor(diff / 3600), 'hour');
  if (diff < 30 * 86400) return rtf.format(-Math.floor(diff / 86400), 'day');
  return formatDate(unixSeconds, undefined, locale);
}

/** How long until a Unix time, in days: "in 30 days", "in 1 day", "within a day"; "soon" once past (housekeeping has yet to run). */
export function formatDaysLeft(unixSeconds: number, now = Date.now(), locale: string = formatLocale()): string {
  const seconds = unixSeconds - now / 1000;
  if (seconds <= 0) return translate('common.time.soon');
  const days = Math.round(seconds / 86400);
  if (days < 1) return translate('common.time.withinADay');
  return new Intl.RelativeTimeFormat(locale, { numeric: 'always' }).format(days, 'day');
}
