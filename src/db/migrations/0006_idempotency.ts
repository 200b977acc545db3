import type { Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** Idempotency-Key (issue #10): one row per (user, key), the claim and then the first answer, kept 24 hours. */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  // The primary key is the claim: INSERT … ON CONFLICT DO NOTHING lets exactly one of two simultaneous requests act.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('claim_id', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('content_type', 'text')
    .addColumn('response_body', 'text')
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
}
