import { sql, type Kysely } from 'kysely';
import type { DialectSupport } from '../dialects/types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Issue #27 (docs/features/teams.md): bringing a team in and administering accounts.
 * - users: disabled_at (a disabled account signs in no more; its sessions are revoked when it is
 *   disabled), last_login_at, must_change_password (after an admin set a temporary password).
 * - sessions: the address and User-Agent at sign-in and the last use (at most once a minute), for the
 *   user's list of their sessions.
 * - invitations: a workspace admin's invitation of an e-mail with a role; the token is kept as its
 *   SHA-256 only (token_hash, unique), single use, expiring.
 * - password_links: single-use links that set a password: a reset (e-mailed, an hour) or an account
 *   setup (an admin created the account). Hashed like invitations.
 */
export async function up(db: AnyDB, d: DialectSupport): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', d.bigint).execute();
  await db.schema.alterTable('users').addColumn('last_login_at', d.bigint).execute();
  await db.schema.alterTable('users').addColumn('must_change_password', 'integer', (c) => c.notNull().defaultTo(0)).execute();

  await db.schema.alterTable('sessions').addColumn('ip', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('user_agent', 'text').execute();
  await db.schema.alterTable('sessions').addColumn('last_used_at', d.bigint).execute();

  await d
    .addIdColumn(db.schema.createTable('invitations'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('viewer', 'manager', 'admin')`))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('invited_by_name', 'text', (c) => c.notNull())
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('expires_at', d.bigint, (c) => c.notNull())
    .addColumn('last_sent_at', d.bigint, (c) => c.notNull())
    .addColumn('accepted_at', d.bigint)
    .addColumn('accepted_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('revoked_at', d.bigint)
    .execute();
  await db.schema.createIndex('invitations_token_idx').on('invitations').column('token_hash').unique().execute();
  await db.schema.createIndex('invitations_workspace_idx').on('invitations').columns(['workspace_id', 'id']).execute();
  await db.schema.createIndex('invitations_email_idx').on('invitations').column('email').execute();

  await db.schema
    .createTable('password_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('reset', 'setup')`))
    .addColumn('created_at', d.bigint, (c) => c.notNull())
    .addColumn('expires_at', d.bigint, (c) => c.notNull())
    .addColumn('used_at', d.bigint)
    .execute();
  await db.schema.createIndex('password_links_user_idx').on('password_links').column('user_id').execute();
}
