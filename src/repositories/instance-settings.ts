import type { DB } from '../db/database.js';

/**
 * Writes `value` under `name` unless a value is there already, then returns the stored one: of
 * several processes racing at first start, the first insert wins (primary key) and all read it.
 */
export async function insertSettingIfAbsent(db: DB, name: string, value: string): Promise<string> {
  await db
    .insertInto('settings')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}

export async function getSetting(db: DB, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Writes `value` under `name`, replacing what was there. */
export async function putSetting(db: DB, name: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
    .execute();
}
