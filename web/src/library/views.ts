import type { IconName } from '../components/icons';

/** The library's ways of showing the same search (issue #27): a paged grid, a timeline by month taken, a map. */
export type LibraryViewName = 'grid' | 'timeline' | 'map';

/** Each view's name is its label's key under library.views. */
export const LIBRARY_VIEWS: readonly { name: LibraryViewName; path: string; icon: IconName }[] = [
  { name: 'grid', path: '/library', icon: 'grid' },
  { name: 'timeline', path: '/library/timeline', icon: 'calendar' },
  { name: 'map', path: '/library/map', icon: 'map-pin' },
];

/** The view of a library path; the grid for any other (the trash, /library itself). */
export function viewOfPath(path: string): LibraryViewName {
  return LIBRARY_VIEWS.find((v) => v.path === path)?.name ?? 'grid';
}

/** The path of a view. */
export const pathOfView = (name: LibraryViewName): string => LIBRARY_VIEWS.find((v) => v.name === name)!.path;
