import type { Kysely } from 'kysely';
import type { DialectName } from '../../db/dialects/types.js';
import { createPostgresSortSchema } from './postgres.js';
import { createSqliteSortSchema } from './sqlite.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** Creates search_sort (name and size order of every catalog row), fills it from the catalog's name_key and installs its triggers. */
export const createSortSchema: Readonly<Record<DialectName, (db: AnyDB) => Promise<void>>> = {
  sqlite: createSqliteSortSchema,
  postgres: createPostgresSortSchema,
};
