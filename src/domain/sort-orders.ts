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

export type SortField = 'modified_at' | 'created_at' | 'display_file_name' | 'file_size';
export type SortDirection = 'asc' | 'desc';

export interface Sort {
  readonly field: SortField;
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
