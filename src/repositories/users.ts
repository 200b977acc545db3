import type { DB } from '../db/database.js';
import type { UserRow } from '../db/schema.js';

export function findUserByEmail(db: DB, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export function findUserById(db: DB, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
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
