const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${UNITS[unit]}`;
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

/** Unix seconds, milliseconds or an ISO string, as a local date and time. */
export function formatDate(value: number | string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const date = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function formatRelative(unixSeconds: number, now = Date.now()): string {
  const diff = Math.round(now / 1000 - unixSeconds);
  if (diff < 60) return 'just now';
  if (diff < 3600) return `${Math.floor(diff / 60)} min ago`;
  if (diff < 86400) return `${Math.floor(diff / 3600)} h ago`;
  if (diff < 30 * 86400) return `${Math.floor(diff / 86400)} d ago`;
  return formatDate(unixSeconds);
}

/** How long until a Unix time, in days: "in 30 days", "in 1 day", "within a day"; "soon" once past (housekeeping has yet to run). */
export function formatDaysLeft(unixSeconds: number, now = Date.now()): string {
  const seconds = unixSeconds - now / 1000;
  if (seconds <= 0) return 'soon';
  const days = Math.round(seconds / 86400);
  if (days < 1) return 'within a day';
  return `in ${days} day${days === 1 ? '' : 's'}`;
}
