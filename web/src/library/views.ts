import type { IconName } from '../components/icons';

/** The library's ways of showing the same search (issue #27): a paged grid, a timeline by month taken, a map. */
export type LibraryViewName = 'grid' | 'timeline' | 'map';

export const LIBRARY_VIEWS: readonly { name: LibraryViewName; path: string; label: string; icon: IconName }[] = [
  { name: 'grid', path: '/library', label: 'Grid', icon: 'grid' },
  { name: 'timeline', path: '/library/timeline', label: 'Timeline', icon: 'calendar' },
  { name: 'map', path: '/library/map', label: 'Map', icon: 'map-pin' },
];

/** The view of a library path; the grid for any other (the trash, /library itself). */
export function viewOfPath(path: string): LibraryViewName {
  return LIBRARY_VIEWS.find((v) => v.path === path)?.name ?? 'grid';
}

/** The path of a view. */
export const pathOfView = (name: LibraryViewName): string => LIBRARY_VIEWS.find((v) => v.name === name)!.path;
