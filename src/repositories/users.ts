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

/** Changes the given profile fields (name, phone in E.164 or null) and answers the updated row. */
export function updateUserProfile(db: DB, id: number, changes: { name?: string; phone?: string | null }, now: number): Promise<UserRow | undefined> {
  return db
    .updateTable('users')
    .set({ ...changes, modified_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
