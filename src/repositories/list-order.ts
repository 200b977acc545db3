import { sql, type RawBuilder } from 'kysely';
import type { Sort } from '../domain/sort-orders.js';

/** The catalog column of each sort field: names sort by their stored key (src/domain/sort-key.ts). */
const COLUMN = { display_file_name: 'name_key', file_size: 'file_size', modified_at: 'modified_at', created_at: 'created_at' } as const;

/**
 * ORDER BY terms of a catalog list: the sort's column, then the id in the
 * same direction (a total order: pages never overlap or skip); without a
 * sort, the id ascending, as before sorting existed. `table` qualifies the
 * columns when the query joins. Name and size orders read the B-trees
 * (workspace_id, name_key, id) and (workspace_id, file_size, id) of migration 0010.
 */
export function listOrder(sort: Sort | undefined, table?: string): { by: RawBuilder<unknown>; direction: 'asc' | 'desc' }[] {
  const ref = (column: string) => sql.ref(table ? `${table}.${column}` : column);
  if (!sort) return [{ by: ref('id'), direction: 'asc' }];
  return [
    { by: ref(COLUMN[sort.field]), direction: sort.direction },
    { by: ref('id'), direction: sort.direction },
  ];
}
