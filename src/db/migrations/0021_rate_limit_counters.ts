import type { Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Scale-out (issue #18).
 * - rate_limit_counters: the rate-limit windows shared by every process on PostgreSQL (one row per
 *   limiter key, counted by one upsert per request; expired rows are swept by housekeeping).
 *   Created on SQLite too, unused there: one process keeps its counters in memory.
 * The instance signing secret and the data-dir marker live in the existing `settings` table.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('count', 'integer', (c) => c.notNull())
    // Unix milliseconds: windows are configured in milliseconds.
    .addColumn('expires_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('rate_limit_counters_expires_at').on('rate_limit_counters').column('expires_at').execute();
}
