import type { DB } from '../db/database.js';
import type { UploadSessionRow } from '../db/schema.js';
import type { CorsRule, StoredPart } from '../storage/object-store.js';

export async function insertUploadSession(
  db: DB,
  s: { id: string; workspaceId: number; assetId: number; userId: number; key: string; mimeType: string; fileName: string; now: number; reservedBytes?: number },
): Promise<void> {
  await db
    .insertInto('upload_sessions')
    .values({
      id: s.id,
      workspace_id: s.workspaceId,
      asset_id: s.assetId,
      user_id: s.userId,
      storage_key: s.key,
      mime_type: s.mimeType,
      file_name: s.fileName,
      created_at: s.now,
      touched_at: s.now,
      completed_at: null,
      completion: null,
      reserved_bytes: s.reservedBytes ?? 0,
    })
    .execute();
}

/** The session only when it belongs to this asset and workspace: a mismatch reads as unknown. */
export function findUploadSession(db: DB, id: string, assetId: number, workspaceId: number): Promise<UploadSessionRow | undefined> {
  return db
    .selectFrom('upload_sessions')
    .selectAll()
    .where('id', '=', id)
    .where('asset_id', '=', assetId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export function findUploadSessionById(db: DB, id: string): Promise<UploadSessionRow | undefined> {
  return db.selectFrom('upload_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function touchUploadSession(db: DB, id: string, now: number): Promise<void> {
  await db.updateTable('upload_sessions').set({ touched_at: now }).where('id', '=', id).execute();
}

/** `mimeType` is the file's sniffed type, which replaces the one claimed at start-upload. */
export async function markUploadCompleted(db: DB, id: string, done: { completion: string; mimeType: string }, now: number): Promise<void> {
  await db
    .updateTable('upload_sessions')
    .set({ completed_at: now, completion: done.completion, mime_type: done.mimeType, touched_at: now })
    .where('id', '=', id)
    .execute();
}

export async function deleteUploadSession(db: DB, id: string): Promise<void> {
  await db.deleteFrom('upload_sessions').where('id', '=', id).execute();
}

/** Sessions not touched since `before` (open ones are abandoned; completed ones are past their idempotency window). */
export function listStaleUploadSessions(db: DB, before: number, limit: number): Promise<UploadSessionRow[]> {
  return db.selectFrom('upload_sessions').selectAll().where('touched_at', '<', before).orderBy('touched_at').limit(limit).execute();
}

/** Records a part; a repeated PUT of the same part number replaces it, as S3 does. */
export async function upsertUploadPart(db: DB, uploadId: string, part: StoredPart, now: number): Promise<void> {
  await db
    .insertInto('upload_parts')
    .values({ upload_id: uploadId, part_number: part.PartNumber, etag: part.ETag, size: part.Size, uploaded_at: now })
    .onConflict((oc) => oc.columns(['upload_id', 'part_number']).doUpdateSet({ etag: part.ETag, size: part.Size, uploaded_at: now }))
    .execute();
  await db.updateTable('upload_sessions').set({ touched_at: now }).where('id', '=', uploadId).execute();
}

export async function listUploadParts(db: DB, uploadId: string): Promise<StoredPart[]> {
  const rows = await db
    .selectFrom('upload_parts')
    .select(['part_number', 'etag', 'size'])
    .where('upload_id', '=', uploadId)
    .orderBy('part_number')
    .execute();
  return rows.map((r) => ({ PartNumber: r.part_number, ETag: r.etag, Size: r.size }));
}

const CORS_SETTING = 'storage.cors';

export async function getStoredCorsRules(db: DB): Promise<CorsRule[] | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', CORS_SETTING).executeTakeFirst();
  return row ? (JSON.parse(row.value) as CorsRule[]) : undefined;
}

export async function putStoredCorsRules(db: DB, rules: CorsRule[]): Promise<void> {
  const value = JSON.stringify(rules);
  await db
    .insertInto('settings')
    .values({ name: CORS_SETTING, value })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
    .execute();
}
