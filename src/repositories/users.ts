import { sql, type SqlBool } from 'kysely';
import type { DB } from '../db/database.js';
import type { UserRow } from '../db/schema.js';
import { prepared } from '../db/prepared.js';

export function findUserByEmail(db: DB, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

const userById = prepared((db: DB, id: number) => db.selectFrom('users').selectAll().where('id', '=', id));

/** Compiled once (src/db/prepared.ts): GET /auth/me reads it on every call. */
export async function findUserById(db: DB, id: number): Promise<UserRow | undefined> {
  return (await userById(db, id))[0];
}

export async function countUsers(db: DB): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertUser(
  db: DB,
  user: { email: string; name: string; passwordHash: string | null; isInstanceAdmin: boolean; now: number },
): Promise<UserRow> {
  return db
    .insertInto('users')
    .values({
      email: user.email.toLowerCase(),
      name: user.name,
      password_hash: user.passwordHash,
      is_instance_admin: user.isInstanceAdmin ? 1 : 0,
      created_at: user.now,
      modified_at: user.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Changes the given profile fields (name, phone in E.164 or null, locale or null) and answers the updated row. */
export function updateUserProfile(
  db: DB,
  id: number,
  changes: { name?: string; phone?: string | null; locale?: string | null },
  now: number,
): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ ...changes, modified_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Issue #27: the admin list's page, by e-mail; `q` matches e-mail or name (case-insensitive, as a substring). */
export async function listUsersPage(db: DB, q: string | undefined, limit: number, offset: number): Promise<{ rows: UserRow[]; total: number }> {
  let base = db.selectFrom('users');
  if (q) {
    const pattern = `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    // ESCAPE: SQLite's LIKE has no escape character unless told (PostgreSQL's default is the backslash).
    base = base.where(sql<SqlBool>`(lower(email) LIKE ${pattern} ESCAPE '\\' OR lower(name) LIKE ${pattern} ESCAPE '\\')`);
  }
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('email').limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function updateUserAdminFields(
  db: DB,
  id: number,
  changes: { name?: string; disabled_at?: number | null; is_instance_admin?: number },
  now: number,
): Promise<UserRow | undefined> {
  return db.updateTable('users').set({ ...changes, modified_at: now }).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function setUserPassword(db: DB, id: number, passwordHash: string, mustChange: boolean, now: number): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash, must_change_password: mustChange ? 1 : 0, modified_at: now }).where('id', '=', id).execute();
}

export async function recordLogin(db: DB, id: number, now: number): Promise<void> {
  await db.updateTable('users').set({ last_login_at: now }).where('id', '=', id).execute();
}

/** Instance admins that are not disabled. */
export async function countActiveInstanceAdmins(db: DB): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('is_instance_admin', '=', 1)
    .where('disabled_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteUser(db: DB, id: number): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
}
