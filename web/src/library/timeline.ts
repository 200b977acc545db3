import type { TimelineAnswer } from '../api/overview';
import { translate } from '../i18n';
import { formatDate } from '../util/format';

/**
 * The timeline's sections (issue #27): one per month taken, newest first, then "No date". GET /dam/assets/timeline
 * counts them; a search sorted by taken_at:desc lists the same assets in the same order, so a section's assets are
 * the slice [start, start + count) of that list, read in pages.
 */
export interface TimelineSection {
  /** `YYYY-MM`, or `undated`. */
  key: string;
  label: string;
  /** `YYYY`; null for "No date". */
  year: string | null;
  count: number;
  /** The position of its first asset in the taken_at:desc list. */
  start: number;
}

/** Assets per page of the search behind the timeline (the API's largest per_page is 250). */
export const TIMELINE_PAGE = 100;
/** A section shows at most this many; the rest open in the grid, filtered to the month. */
export const SECTION_CAP = 200;

const monthDate = (key: string) => new Date(`${key}-01T00:00:00Z`);
/** "January 2024" in the client's language. */
export const monthLabel = (key: string): string => formatDate(`${key}-01T00:00:00Z`, { month: 'long', year: 'numeric', timeZone: 'UTC' }) || String(monthDate(key));
/** "Jan" in the client's language. */
export const shortMonth = (key: string): string => formatDate(`${key}-01T00:00:00Z`, { month: 'short', timeZone: 'UTC' });

export function timelineSections(answer: TimelineAnswer): TimelineSection[] {
  const sections: TimelineSection[] = [];
  let start = 0;
  for (const { month, count } of answer.months) {
    sections.push({ key: month, label: monthLabel(month), year: month.slice(0, 4), count, start });
    start += count;
  }
  if (answer.undated > 0) sections.push({ key: 'undated', label: translate('library.timeline.noDate'), year: null, count: answer.undated, start });
  return sections;
}

/** The 1-based pages of TIMELINE_PAGE that hold the assets a section shows. */
export function pagesOf(section: TimelineSection): number[] {
  const shown = Math.min(section.count, SECTION_CAP);
  if (shown === 0) return [];
  const first = Math.floor(section.start / TIMELINE_PAGE) + 1;
  const last = Math.floor((section.start + shown - 1) / TIMELINE_PAGE) + 1;
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** The scrubber's years, newest first, each with its sections; "No date" last on its own. */
export function scrubberYears(sections: readonly TimelineSection[]): { year: string; label: string; sections: TimelineSection[] }[] {
  const years: { year: string; label: string; sections: TimelineSection[] }[] = [];
  for (const section of sections) {
    const year = section.year ?? 'undated';
    const last = years[years.length - 1];
    if (last?.year === year) last.sections.push(section);
    else years.push({ year, label: section.year ?? translate('library.timeline.noDate'), sections: [section] });
  }
  return years;
}

/** The first and last day (YYYY-MM-DD) of a month: the grid's date-taken filter for "show all" of a section. */
export function monthDays(key: string): { from: string; to: string } {
  const end = monthDate(key);
  end.setUTCMonth(end.getUTCMonth() + 1, 0);
  return { from: `${key}-01`, to: end.toISOString().slice(0, 10) };
}
