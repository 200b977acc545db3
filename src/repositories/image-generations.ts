import type { Insertable, Selectable } from 'kysely';
import type { DB } from '../db/database.js';
import type { ImageGenerationImagesTable, ImageGenerationStatus, ImageGenerationsTable } from '../db/schema.js';

/** SQL for AI image generations (migration 0014): the requests and the claim of each of their images. */

export type GenerationRecord = Selectable<ImageGenerationsTable>;
export type NewGeneration = Omit<Insertable<ImageGenerationsTable>, 'id' | 'status' | 'error' | 'updated_at'>;

/** An image slot of a generation with the state of its asset (null once the asset was deleted). */
export interface ImageSlot {
  image_index: number;
  asset_id: number | null;
  version_id: number | null;
  asset_status: 'uploading' | 'ready' | null;
}

export async function insertGeneration(db: DB, values: NewGeneration): Promise<GenerationRecord> {
  return db
    .insertInto('image_generations')
    .values({ ...values, status: 'queued', error: null, updated_at: values.created_at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findGeneration(db: DB, id: number): Promise<GenerationRecord | undefined> {
  return db.selectFrom('image_generations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Images a workspace asked for since `since` (Unix seconds), whatever became of them: the daily limit's count. */
export async function imagesRequestedSince(db: DB, workspaceId: number, since: number): Promise<number> {
  const row = await db
    .selectFrom('image_generations')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('n'), eb.lit(0)).as('total'))
    .where('workspace_id', '=', workspaceId)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  // PostgreSQL's sum of integers is a bigint, which the driver answers as a string.
  return Number(row?.total ?? 0);
}

/**
 * Sets the status (and error, when given) of a generation that has not finished: a late run never
 * turns a failed generation back into a running one.
 */
export async function setStatus(
  db: DB,
  id: number,
  status: ImageGenerationStatus,
  now: number,
  error?: string | null,
): Promise<void> {
  await db
    .updateTable('image_generations')
    .set({ status, updated_at: now, ...(error !== undefined ? { error } : {}) })
    .where('id', '=', id)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

export async function listSlots(db: DB, generationId: number): Promise<ImageSlot[]> {
  return db
    .selectFrom('image_generation_images as i')
    .leftJoin('assets as a', 'a.id', 'i.asset_id')
    .select(['i.image_index', 'i.asset_id', 'i.version_id', 'a.status as asset_status'])
    .where('i.generation_id', '=', generationId)
    .orderBy('i.image_index')
    .execute();
}

/**
 * Claims an image of a generation for an asset (in the transaction that creates the asset).
 * False when another run claimed it first: the primary key lets exactly one claim in.
 */
export async function claimSlot(db: DB, slot: Selectable<ImageGenerationImagesTable>): Promise<boolean> {
  const row = await db
    .insertInto('image_generation_images')
    .values(slot)
    .onConflict((oc) => oc.columns(['generation_id', 'image_index']).doNothing())
    .returning('image_index')
    .executeTakeFirst();
  return row !== undefined;
}

/** The ready assets of each generation, in image order (created so far, or in all). */
export async function readyAssetIds(db: DB, generationIds: readonly number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>(generationIds.map((id) => [id, []]));
  if (generationIds.length === 0) return out;
  const rows = await db
    .selectFrom('image_generation_images as i')
    .innerJoin('assets as a', 'a.id', 'i.asset_id')
    .select(['i.generation_id', 'i.asset_id'])
    .where('i.generation_id', 'in', generationIds)
    .where('a.status', '=', 'ready')
    .orderBy('i.generation_id')
    .orderBy('i.image_index')
    .execute();
  for (const row of rows) if (row.asset_id !== null) out.get(row.generation_id)?.push(row.asset_id);
  return out;
}

/** Drops the slots whose asset never became ready and answers them, for the caller to discard their assets. */
export async function releaseUnfinishedSlots(db: DB, generationId: number): Promise<{ asset_id: number; version_id: number | null }[]> {
  const unfinished = (await listSlots(db, generationId)).filter((s) => s.asset_id !== null && s.asset_status === 'uploading');
  if (unfinished.length === 0) return [];
  await db
    .deleteFrom('image_generation_images')
    .where('generation_id', '=', generationId)
    .where('image_index', 'in', unfinished.map((s) => s.image_index))
    .execute();
  return unfinished.map((s) => ({ asset_id: s.asset_id!, version_id: s.version_id }));
}
