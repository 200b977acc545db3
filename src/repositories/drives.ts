import type { Insertable, Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { DriveConnectionsTable, DriveOAuthStatesTable } from '../db/schema.js';

/** SQL for external-drive connections and pending authorization requests (migration 0018). Token columns hold sealed text only. */

export type DriveConnectionRecord = Selectable<DriveConnectionsTable>;
export type DriveStateRecord = Selectable<DriveOAuthStatesTable>;
export type NewDriveConnection = Omit<Insertable<DriveConnectionsTable>, 'id' | 'status' | 'status_note' | 'created_at' | 'updated_at'>;

export function findConnection(db: DB, userId: number, provider: string): Promise<DriveConnectionRecord | undefined> {
  return db.selectFrom('drive_connections').selectAll().where('user_id', '=', userId).where('provider', '=', provider).executeTakeFirst();
}

export function listConnections(db: DB, userId: number): Promise<DriveConnectionRecord[]> {
  return db.selectFrom('drive_connections').selectAll().where('user_id', '=', userId).orderBy('provider').execute();
}

/** Connecting again replaces the connection (another account included), active again. */
export async function upsertConnection(db: DB, values: NewDriveConnection, now: number): Promise<DriveConnectionRecord> {
  const { user_id: _user, provider: _provider, ...changes } = values;
  return db
    .insertInto('drive_connections')
    .values({ ...values, status: 'active', status_note: null, created_at: now, updated_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'provider']).doUpdateSet({ ...changes, status: 'active', status_note: null, updated_at: now }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * New tokens after a refresh, only onto the row they were refreshed for (`id` and its previous sealed
 * access token): a reconnect meanwhile wins over a late refresh.
 */
export async function updateTokens(
  db: DB,
  id: number,
  previousAccessToken: string,
  tokens: { access_token: string; refresh_token: string | null; expires_at: number | null },
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('drive_connections')
    .set({ ...tokens, updated_at: now })
    .where('id', '=', id)
    .where('access_token', '=', previousAccessToken)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function markReauthRequired(db: DB, id: number, note: string, now: number): Promise<void> {
  await db.updateTable('drive_connections').set({ status: 'reauth_required', status_note: note, updated_at: now }).where('id', '=', id).execute();
}

export async function deleteConnection(db: DB, id: number): Promise<void> {
  await db.deleteFrom('drive_connections').where('id', '=', id).execute();
}

export async function insertState(db: DB, values: DriveStateRecord): Promise<void> {
  await db.insertInto('drive_oauth_states').values(values).execute();
}

/**
 * Takes a state row out: the one DELETE … RETURNING decides, so of two callbacks with the same state at
 * most one gets the row, on both databases. An expired row is taken out too, and not answered.
 */
export async function consumeState(db: DB, nonce: string, now: number): Promise<DriveStateRecord | undefined> {
  const row = await db.deleteFrom('drive_oauth_states').where('nonce', '=', nonce).returningAll().executeTakeFirst();
  return row && row.expires_at > now ? row : undefined;
}

export async function deleteExpiredStates(db: DB, now: number): Promise<void> {
  await db.deleteFrom('drive_oauth_states').where('expires_at', '<=', now).execute();
}
