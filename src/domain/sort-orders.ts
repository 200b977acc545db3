/**
 * The orders a search (`sort_by`) and the catalog lists (`?sort_by=`) accept:
 * seed 4.1's four date orders and, since issue #11, name and size. Every
 * order ends with the id in the same direction, so it is total and pages
 * never overlap or skip.
 */
export const SORT_ORDERS = [
  'modified_at:desc',
  'modified_at:asc',
  'created_at:desc',
  'created_at:asc',
  'display_file_name:asc',
  'display_file_name:desc',
  'file_size:asc',
  'file_size:desc',
] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/**
 * A search also sorts by date taken (issue #12): the catalog lists do not (they would need a B-tree
 * of their own on assets, and the library views that want it read the search).
 */
export const SEARCH_SORT_ORDERS = [...SORT_ORDERS, 'taken_at:desc', 'taken_at:asc'] as const;
export type SearchSortOrder = (typeof SEARCH_SORT_ORDERS)[number];

export type SortField = 'modified_at' | 'created_at' | 'display_file_name' | 'file_size';
export type SearchSortField = SortField | 'taken_at';
export type SortDirection = 'asc' | 'desc';

export interface Sort {
  readonly field: SortField;
  readonly direction: SortDirection;
}

/** A search's order: `taken_at` only for assets (see parseSearchSortOrder). */
export interface SearchSort {
  readonly field: SearchSortField;
  readonly direction: SortDirection;
}

/**
 * The order of a list of `what`. Folders and collections have no size: a
 * size order sorts them by name in the same direction (a size of 0 for all
 * would leave them in id order, which no one asks for).
 */
export function parseSortOrder(order: SortOrder, what: 'assets' | 'folders' | 'collections'): Sort {
  const [field, direction] = order.split(':') as [SortField, SortDirection];
  return { field: field === 'file_size' && what !== 'assets' ? 'display_file_name' : field, direction };
}

/**
 * The order of a search in `what`. Assets without a date taken come after those with one, in both
 * directions, by id in the same direction. Folders and collections have no date taken: a taken_at
 * order sorts them by created_at, the date they do have, in the same direction.
 */
export function parseSearchSortOrder(order: SearchSortOrder, what: 'assets' | 'folders' | 'collections'): SearchSort {
  const [field, direction] = order.split(':') as [SearchSortField, SortDirection];
  if (field !== 'taken_at') return parseSortOrder(order as SortOrder, what);
  return { field: what === 'assets' ? field : 'created_at', direction };
}
