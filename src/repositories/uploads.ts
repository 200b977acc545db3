import type { DB } from '../db/database.js';
import type { UploadSessionRow } from '../db/schema.js';
import type { CorsRule, StoredPart } from '../domain/object-parts.js';

export async function insertUploadSession(
  db: DB,
  s: {
    id: string;
    workspaceId: number;
    assetId: number;
    userId: number;
    key: string;
    mimeType: string;
    fileName: string;
    now: number;
    reservedBytes?: number;
    declaredSize?: number;
  },
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
      declared_size: s.declaredSize ?? null,
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

/**
 * Sessions to sweep: untouched since `before` (open ones are abandoned; completed ones are past their
 * idempotency window), and open ones started before `startedBefore` (past DAM_UPLOAD_MAX_LIFETIME, however active).
 */
export function listStaleUploadSessions(
  db: DB,
  before: number,
  startedBefore: number,
  limit: number,
  skipWorkspaces: readonly number[] = [],
): Promise<UploadSessionRow[]> {
  let q = db
    .selectFrom('upload_sessions')
    .selectAll()
    .where((eb) => eb.or([eb('touched_at', '<', before), eb.and([eb('completed_at', 'is', null), eb('created_at', '<', startedBefore)])]));
  // Workspaces whose sweep is refused (issue #37) would otherwise fill every batch.
  if (skipWorkspaces.length > 0) q = q.where('workspace_id', 'not in', skipWorkspaces);
  return q.orderBy('touched_at').limit(limit).execute();
}

/** Uploads of the workspace not completed and stale (untouched since `before`, or started before `startedBefore`): how many, and the first few. */
export async function staleOpenUploads(
  db: DB,
  workspaceId: number,
  before: number,
  startedBefore: number,
  examples: number,
): Promise<{ count: number; first: { id: string; file_name: string }[] }> {
  const stale = db
    .selectFrom('upload_sessions')
    .where('workspace_id', '=', workspaceId)
    .where('completed_at', 'is', null)
    .where((eb) => eb.or([eb('touched_at', '<', before), eb('created_at', '<', startedBefore)]));
  const [count, first] = await Promise.all([
    stale.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
    examples > 0 ? stale.select(['id', 'file_name']).orderBy('touched_at').limit(examples).execute() : Promise.resolve([]),
  ]);
  return { count: Number(count.n), first };
}

/** The workspace's ready assets and uploads in progress: what a sweep of stale uploads is a share of. */
export async function countAssetsAndOpenUploads(db: DB, workspaceId: number): Promise<number> {
  const [assets, open] = await Promise.all([
    db.selectFrom('assets').select((eb) => eb.fn.countAll<number | string>().as('n')).where('workspace_id', '=', workspaceId).where('status', '=', 'ready').executeTakeFirstOrThrow(),
    db
      .selectFrom('upload_sessions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('workspace_id', '=', workspaceId)
      .where('completed_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  return Number(assets.n) + Number(open.n);
}

/** A part as the local store records it: with the file that holds its current body (null: `<n>-<md5>`, before migration 0030). */
export interface RecordedPart extends StoredPart {
  file: string | null;
}

/**
 * Records a part whose body is in `file`; a repeated PUT of the same part number replaces it, as S3 does.
 * Answers the part it replaced, whose file the caller removes. A compare-and-set on the file recorded, retried
 * until it lands: of concurrent PUTs of one part each replaces exactly one predecessor, so every file but the
 * one finally recorded is answered to exactly one of them, on either dialect and across processes.
 */
export async function swapUploadPart(db: DB, uploadId: string, part: StoredPart, file: string, now: number): Promise<RecordedPart | undefined> {
  const values = { etag: part.ETag, size: part.Size, file, uploaded_at: now };
  for (;;) {
    const current = await db
      .selectFrom('upload_parts')
      .select(['part_number', 'etag', 'size', 'file'])
      .where('upload_id', '=', uploadId)
      .where('part_number', '=', part.PartNumber)
      .executeTakeFirst();
    if (!current) {
      const inserted = await db
        .insertInto('upload_parts')
        .values({ upload_id: uploadId, part_number: part.PartNumber, ...values })
        .onConflict((oc) => oc.columns(['upload_id', 'part_number']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) continue;
    } else {
      let swap = db.updateTable('upload_parts').set(values).where('upload_id', '=', uploadId).where('part_number', '=', part.PartNumber);
      swap = current.file === null ? swap.where('file', 'is', null).where('etag', '=', current.etag) : swap.where('file', '=', current.file);
      if (Number((await swap.executeTakeFirst()).numUpdatedRows) === 0) continue;
    }
    await db.updateTable('upload_sessions').set({ touched_at: now }).where('id', '=', uploadId).execute();
    return current && { PartNumber: current.part_number, ETag: current.etag, Size: Number(current.size), file: current.file };
  }
}

/** Bytes the upload's parts other than `partNumber` hold, summed by the database: one row however many parts (issue #39). */
export async function otherPartsSize(db: DB, uploadId: string, partNumber: number): Promise<number> {
  const row = await db
    .selectFrom('upload_parts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('size'), eb.lit(0)).as('n'))
    .where('upload_id', '=', uploadId)
    .where('part_number', '!=', partNumber)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listUploadParts(db: DB, uploadId: string): Promise<RecordedPart[]> {
  const rows = await db
    .selectFrom('upload_parts')
    .select(['part_number', 'etag', 'size', 'file'])
    .where('upload_id', '=', uploadId)
    .orderBy('part_number')
    .execute();
  return rows.map((r) => ({ PartNumber: r.part_number, ETag: r.etag, Size: Number(r.size), file: r.file }));
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
