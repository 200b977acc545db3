import { sql } from 'kysely';
import type { DatabaseHandle } from './database.js';

/** First key of PostgreSQL's two-key advisory locks taken by this service ("DAM" in ASCII). */
const LOCK_NAMESPACE = 0x44414d;

/**
 * Runs `body` unless another process is running the same `name` right now; returns whether it ran.
 *
 * PostgreSQL: a session-level `pg_try_advisory_lock` on one pooled connection, held for the whole
 * body and released after it (or by the server when the connection dies with its process), so of
 * several processes at most one runs a given sweep at a time and the others skip it this round.
 * The second key hashes the name with the current schema, so instances sharing one database in
 * separate schemas do not block each other. The body runs its own queries on other connections.
 *
 * SQLite: one process owns the database file, so the body always runs.
 */
export async function runExclusive(database: DatabaseHandle, name: string, body: () => Promise<void>): Promise<boolean> {
  if (database.dialect !== 'postgres') {
    await body();
    return true;
  }
  return database.db.connection().execute(async (conn) => {
    const key = sql`hashtext(current_schema() || ':' || ${name})`;
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${LOCK_NAMESPACE}, ${key}) as locked`.execute(conn);
    if (!rows[0]?.locked) return false;
    try {
      await body();
    } finally {
      await sql`select pg_advisory_unlock(${LOCK_NAMESPACE}, ${key})`.execute(conn);
    }
    return true;
  });
}
