import { sql } from 'kysely';
import type { DB } from '../db/database.js';

export interface CounterState {
  count: number;
  /** Unix milliseconds. */
  expiresAt: number;
}

/**
 * Counts one hit of `key` in one statement: a new or expired window starts at 1 and lasts
 * `windowMs`, a live one is incremented. Atomic under concurrent processes (the row lock of
 * ON CONFLICT DO UPDATE), so hits spread over several processes are counted together.
 */
export async function hitCounter(db: DB, key: string, nowMs: number, windowMs: number): Promise<CounterState> {
  const expiresAt = nowMs + windowMs;
  const row = await db
    .insertInto('rate_limit_counters')
    .values({ key, count: 1, expires_at: expiresAt })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        count: sql<number>`case when rate_limit_counters.expires_at <= ${nowMs} then 1 else rate_limit_counters.count + 1 end`,
        expires_at: sql<number>`case when rate_limit_counters.expires_at <= ${nowMs} then ${expiresAt} else rate_limit_counters.expires_at end`,
      }),
    )
    .returning(['count', 'expires_at'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), expiresAt: Number(row.expires_at) };
}

/** The live window of `key` without counting, or undefined. */
export async function readCounter(db: DB, key: string, nowMs: number): Promise<CounterState | undefined> {
  const row = await db
    .selectFrom('rate_limit_counters')
    .select(['count', 'expires_at'])
    .where('key', '=', key)
    .where('expires_at', '>', nowMs)
    .executeTakeFirst();
  return row && { count: Number(row.count), expiresAt: Number(row.expires_at) };
}

/** Takes one count back from the live window of `key` (never below 0). */
export async function refundCounter(db: DB, key: string, nowMs: number): Promise<void> {
  await db
    .updateTable('rate_limit_counters')
    .set({ count: sql<number>`count - 1` })
    .where('key', '=', key)
    .where('expires_at', '>', nowMs)
    .where('count', '>', 0)
    .execute();
}

/** Drops windows that are over; called from housekeeping. */
export async function deleteExpiredCounters(db: DB, nowMs: number): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('expires_at', '<=', nowMs).execute();
}
