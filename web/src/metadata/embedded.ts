import type { EditableEmbeddedField, EmbeddedFields } from '../api/types';
import { formatClock, formatNumber } from '../util/format';
import { formatLocale, translate } from '../i18n';

/**
 * The asset page's embedded-metadata panel in words (issue #12): each function answers null when
 * there is nothing to show, so the panel leaves the row out.
 */

/** "Canon EOS R5", not "Canon Canon EOS R5": most models already start with their maker's first word. */
export function cameraName(make: string | null | undefined, model: string | null | undefined): string | null {
  const m = model?.trim() ?? '';
  const k = make?.trim() ?? '';
  if (!m) return k || null;
  const brand = k.split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!k || (brand && m.toLowerCase().startsWith(brand))) return m;
  return `${k} ${m}`;
}

/** A number without trailing zeros and at most `digits` decimals, in the reader's language: 2.8, 4, 5.6 (2,8 in German). */
const trim = (n: number, digits = 1) => formatNumber(Number(n.toFixed(digits)), { maximumFractionDigits: digits, useGrouping: false });

/** "1/250 s" from "1/250", "0.5 s", "30 s"; as written when it is something else. */
export function exposureTime(value: string | null | undefined): string | null {
  const text = value?.trim();
  if (!text) return null;
  if (/^\d+\/\d+$/.test(text)) return `${text} s`;
  if (/^\d+(\.\d+)?$/.test(text)) return `${formatNumber(Number(text), { maximumFractionDigits: 6, useGrouping: false })} s`;
  return text;
}

/** "1/250 s · f/2.8 · ISO 200 · 35 mm", with only the parts the file has. */
export function exposureSummary(f: Pick<Partial<EmbeddedFields>, 'exposure' | 'aperture' | 'iso' | 'focal_length'>): string | null {
  const parts = [
    exposureTime(f.exposure),
    f.aperture ? `f/${trim(f.aperture)}` : null,
    f.iso ? `ISO ${formatNumber(f.iso, { useGrouping: false })}` : null,
    f.focal_length ? `${trim(f.focal_length)} mm` : null,
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join(' · ') : null;
}

/** "4.2 s" under a minute, else "2:05" or "1:02:05". */
export function formatDuration(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return null;
  return seconds < 60 ? `${trim(seconds)} s` : formatClock(seconds);
}

export interface Place {
  /** "48.85837° N, 2.29448° E" */
  text: string;
  /** The spot on openstreetmap.org (a link: a map image would come from a tile server the page may not load). */
  href: string;
}

export function place(lat: number | null | undefined, lon: number | null | undefined): Place | null {
  if (lat === null || lat === undefined || lon === null || lon === undefined || !Number.isFinite(lat) || !Number.isFinite(lon)) return null;
  const la = Number(lat.toFixed(5));
  const lo = Number(lon.toFixed(5));
  const degrees = (n: number) => formatNumber(Math.abs(n), { maximumFractionDigits: 5, useGrouping: false });
  const text = `${degrees(la)}° ${translate(la < 0 ? 'asset.embedded.south' : 'asset.embedded.north')}, ${degrees(lo)}° ${translate(lo < 0 ? 'asset.embedded.west' : 'asset.embedded.east')}`;
  return { text, href: `https://www.openstreetmap.org/?mlat=${la}&mlon=${lo}#map=16/${la}/${lo}` };
}

/** The server's order of the tags a date taken comes from (src/media/embedded-fields.ts). */
const DATE_TAGS = ['EXIF:DateTimeOriginal', 'XMP:DateTimeOriginal', 'EXIF:CreateDate', 'XMP:CreateDate', 'QuickTime:CreationDate', 'QuickTime:CreateDate'];
const EXIF_OFFSETS: Record<string, string[]> = {
  'EXIF:DateTimeOriginal': ['EXIF:OffsetTimeOriginal', 'EXIF:OffsetTimeDigitized', 'EXIF:OffsetTime'],
  'EXIF:CreateDate': ['EXIF:OffsetTimeDigitized', 'EXIF:OffsetTimeOriginal', 'EXIF:OffsetTime'],
};

const minutesOf = (zone: string): number | null => {
  if (/^z$/i.test(zone)) return 0;
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : null;
};

/**
 * Where the date taken's clock was: minutes east of UTC when the file records an offset, 'utc' when
 * the date is UTC by its format (QuickTime's CreateDate), null when the file does not say (a camera's
 * own clock, which the server stores as if it were UTC).
 */
export function recordedZone(embedded: Record<string, unknown> | undefined): number | 'utc' | null {
  if (!embedded) return null;
  for (const tag of DATE_TAGS) {
    const value = embedded[tag];
    if (typeof value !== 'string' || !value.trim()) continue;
    const own = /(Z|[+-]\d{2}:?\d{2})$/i.exec(value.trim());
    if (own) return minutesOf(own[1]!);
    for (const offsetTag of EXIF_OFFSETS[tag] ?? []) {
      const offset = embedded[offsetTag];
      const minutes = typeof offset === 'string' ? minutesOf(offset.trim()) : null;
      if (minutes !== null) return minutes;
    }
    return tag === 'QuickTime:CreateDate' ? 'utc' : null;
  }
  return null;
}

const zoneName = (minutes: number) => {
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  return `UTC${minutes < 0 ? '−' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
};

/**
 * The date taken as the photographer's clock showed it: at the offset the file records (named), else
 * the camera's own clock as written (no zone: the file does not say which), and a UTC date (videos)
 * in the reader's own time zone.
 */
export function takenAtText(takenAt: number | null | undefined, embedded?: Record<string, unknown>, locale?: string, timeZone?: string): string | null {
  if (takenAt === null || takenAt === undefined || !Number.isFinite(takenAt)) return null;
  const style = { dateStyle: 'medium', timeStyle: 'short' } as const;
  locale ??= formatLocale();
  const zone = recordedZone(embedded);
  if (zone === 'utc') return new Intl.DateTimeFormat(locale, { ...style, timeZone }).format(new Date(takenAt * 1000));
  const wall = new Intl.DateTimeFormat(locale, { ...style, timeZone: 'UTC' }).format(new Date((takenAt + (zone ?? 0) * 60) * 1000));
  return zone === null ? wall : `${wall} (${zoneName(zone)})`;
}

/** The descriptive fields managers edit; each one's label is asset.embedded.fields.<field>. */
export const EDITABLE_FIELDS: { field: EditableEmbeddedField; multiline: boolean; max: number }[] = [
  { field: 'caption', multiline: true, max: 10_000 },
  { field: 'creator', multiline: false, max: 2_000 },
  { field: 'copyright', multiline: false, max: 2_000 },
  { field: 'usage_terms', multiline: true, max: 10_000 },
];

/**
 * The PATCH of an edit: only the fields that changed; blank clears (null). Trailing spaces are not a
 * change of their own.
 */
export function editPatch(current: Partial<Record<EditableEmbeddedField, string | null>>, edited: Record<EditableEmbeddedField, string>) {
  const patch: Partial<Record<EditableEmbeddedField, string | null>> = {};
  for (const { field } of EDITABLE_FIELDS) {
    const next = edited[field].trim() === '' ? null : edited[field].trim();
    if (next !== (current[field] ?? null)) patch[field] = next;
  }
  return patch;
}
