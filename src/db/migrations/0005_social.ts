import type { Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/** Social login (seed 4.4, 5.4): users' identities at a provider, and the provider tokens already spent. */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  // A user is found again by the provider's subject (stable), never by e-mail (it can change).
  await db.schema
    .createTable('user_identities')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('last_login_at', d.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('user_identities_pk', ['provider', 'subject'])
    .execute();
  await db.schema.createIndex('user_identities_user_idx').on('user_identities').column('user_id').execute();

  // seed 5.4: provider tokens are single-use. Only a SHA-256 of each is kept, until the token expires.
  await db.schema
    .createTable('social_used_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', d.bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('social_used_tokens_expiry_idx').on('social_used_tokens').column('expires_at').execute();
}
