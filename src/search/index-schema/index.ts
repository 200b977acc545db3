import type { Kysely } from 'kysely';
import type { DialectName } from '../../db/dialects/types.js';
import { createPostgresSearchSchema } from './postgres.js';
import { createSqliteSearchSchema } from './sqlite.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** Creates the search index tables, backfills them from the catalog and installs the triggers that keep them in step. */
export const createSearchSchema: Readonly<Record<DialectName, (db: AnyDB) => Promise<void>>> = {
  sqlite: createSqliteSearchSchema,
  postgres: createPostgresSearchSchema,
};
