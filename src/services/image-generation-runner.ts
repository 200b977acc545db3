import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../context.js';
import { generatedFileName } from '../domain/generated-names.js';
import type { SafeFetcher } from '../fetcher/index.js';
import { decodeImage, ImageGenRefused, ImageGenUnavailable, NotAnImage, type DecodedImage, type GeneratedImage, type ImageGenerator } from '../image-gen/index.js';
import { AppError } from '../errors.js';
import { PermanentJobError } from '../jobs/types.js';
import * as lifecycle from '../repositories/asset-uploads.js';
import * as assets from '../repositories/assets.js';
import { folderExistsInWorkspace } from '../repositories/folders.js';
import * as repo from '../repositories/image-generations.js';
import type { ObjectStore } from '../storage/object-store.js';
import { assetKey } from '../storage/keys.js';
import * as quota from './quota-service.js';
import type { VersionLifecycle } from './version-lifecycle.js';

/** Another run of the same generation claimed the image first. */
class SlotTaken extends Error {}

/** The asset and its reserved v1 an image is stored as. */
interface Target {
  assetId: number;
  versionId: number;
}

/**
 * The job behind POST /generate-image (issue #13). Images are made one provider request at a time
 * (dall-e-3 draws one per request, and a retry then redoes only the missing ones). Each image is
 * claimed before it is stored: the transaction that creates its asset ('uploading', with its v1
 * reserved) also inserts `(generation, index)`, whose primary key lets one claim in. A run that
 * finds an image claimed but not ready (an earlier run died after the claim) stores a new picture
 * into that same asset; one that finds it ready, or deleted since, skips it. So however often the
 * job runs, a generation has at most `n` assets.
 */
export class ImageGenerationRunner {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly versions: VersionLifecycle,
    private readonly generator: ImageGenerator | null,
    private readonly fetcher: SafeFetcher,
  ) {}

  async run(generationId: number): Promise<void> {
    const generation = await repo.findGeneration(this.ctx.db, generationId);
    if (!generation || generation.status === 'succeeded' || generation.status === 'failed') return;
    await repo.setStatus(this.ctx.db, generationId, 'running', this.ctx.now());
    try {
      if (!this.generator) throw new ImageGenRefused('Image generation is not configured on this instance');
      const slots = new Map((await repo.listSlots(this.ctx.db, generationId)).map((s) => [s.image_index, s]));
      for (let index = 0; index < generation.n; index += 1) {
        const slot = slots.get(index);
        // Ready, or made and deleted since: never made twice.
        if (slot && (slot.asset_id === null || slot.asset_status !== 'uploading')) continue;
        await this.makeImage(this.generator, generation, index, slot);
      }
      await repo.setStatus(this.ctx.db, generationId, 'succeeded', this.ctx.now(), null);
    } catch (err) {
      // Over the plan's storage limit: retrying would not change that; the generation fails with the reason.
      const final = err instanceof ImageGenRefused || err instanceof NotAnImage || (err instanceof AppError && err.code === 'QUOTA_EXCEEDED');
      const known = final || err instanceof ImageGenUnavailable;
      // Shown to the workspace's members: the provider's reason, or our own words, never an internal message.
      const message = known ? (err as Error).message : 'Storing a generated image failed';
      await repo.setStatus(this.ctx.db, generationId, final ? 'running' : 'queued', this.ctx.now(), message);
      if (final) throw new PermanentJobError(message);
      throw err;
    }
  }

  /** The job failed for good: images claimed but never stored go, and the generation says why it failed. */
  async giveUp(generationId: number, error: string): Promise<void> {
    for (const slot of await repo.releaseUnfinishedSlots(this.ctx.db, generationId)) {
      await this.versions.discard(this.ctx.db, slot.asset_id, slot.version_id);
    }
    const generation = await repo.findGeneration(this.ctx.db, generationId);
    await repo.setStatus(this.ctx.db, generationId, 'failed', this.ctx.now(), generation?.error ?? error);
  }

  private async makeImage(generator: ImageGenerator, g: repo.GenerationRecord, index: number, slot: repo.ImageSlot | undefined): Promise<void> {
    const request = { prompt: g.prompt, size: g.size, n: 1, model: g.model, ...(g.negative_prompt ? { negative_prompt: g.negative_prompt } : {}) };
    const [image] = await generator.generate(request);
    const decoded = await decodeImage(image!, this.fetcher, this.ctx.config.proxy.maxBytes);
    const target = slot ? (slot.asset_id !== null && slot.version_id !== null ? { assetId: slot.asset_id, versionId: slot.version_id } : undefined) : await this.claim(g, index, decoded);
    if (!target) return;
    await quota.withStorage(this.ctx, g.workspace_id, decoded.bytes.length, async () => {
      await this.storeObject(assetKey(g.workspace_id, target.assetId), decoded);
      await this.finish(g, target, decoded, image!);
    });
  }

  /** Creates the image's asset ('uploading', key set, v1 reserved) and claims the image for it, all in one transaction. */
  private async claim(g: repo.GenerationRecord, index: number, image: DecodedImage): Promise<Target | undefined> {
    const fileName = generatedFileName(g.prompt, index, image.extension);
    try {
      return await this.ctx.db.transaction().execute(async (trx) => {
        // A folder deleted or trashed since the request: the top level (nothing may be put into the trash).
        const folderId = g.folder_id !== null && (await folderExistsInWorkspace(trx, g.workspace_id, g.folder_id)) ? g.folder_id : null;
        const asset = await assets.insertAsset(trx, {
          workspace_id: g.workspace_id,
          folder_id: folderId,
          file_name: fileName,
          mime_type: image.mimeType,
          file_size: image.bytes.length,
          width: image.width,
          height: image.height,
          created_by: g.requested_by_name,
          uploaded_by: g.requested_by,
          created_at: this.ctx.now(),
          status: 'uploading',
        });
        // Set now, so deleting the unfinished asset also queues its object for deletion (the trigger of migration 0002).
        await lifecycle.setStorageKey(trx, asset.id, assetKey(g.workspace_id, asset.id));
        const version = await this.versions.reserve(asset, { file_name: fileName, mime_type: image.mimeType, created_by: g.requested_by_name }, true, trx);
        const slot = { generation_id: g.id, image_index: index, asset_id: asset.id, version_id: version.id };
        if (!(await repo.claimSlot(trx, slot))) throw new SlotTaken();
        return { assetId: asset.id, versionId: version.id };
      });
    } catch (err) {
      if (!(err instanceof SlotTaken)) throw err;
    }
    // Claimed by another run: if that run has not stored it (it died, or is still at it), this image goes there.
    const slot = (await repo.listSlots(this.ctx.db, g.id)).find((s) => s.image_index === index);
    return slot && slot.asset_status === 'uploading' && slot.asset_id !== null && slot.version_id !== null
      ? { assetId: slot.asset_id, versionId: slot.version_id }
      : undefined;
  }

  private async storeObject(key: string, image: DecodedImage): Promise<void> {
    const dir = path.join(this.ctx.config.dataDir, 'tmp');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `generated-${randomUUID()}.${image.extension}`);
    try {
      await writeFile(file, image.bytes);
      await this.store.putFile(key, file, image.mimeType);
    } finally {
      await rm(file, { force: true });
    }
  }

  /**
   * As an upload ends: under the asset's lock, the asset becomes ready and its v1 current (promote queues the
   * thumbnails and records asset.upload by the requester), with the generation's facts in its metadata.
   */
  private async finish(g: repo.GenerationRecord, target: Target, image: DecodedImage, generated: GeneratedImage): Promise<void> {
    const now = this.ctx.now();
    const file = { mime_type: image.mimeType, file_size: image.bytes.length, width: image.width, height: image.height };
    const metadata = {
      prompt: g.prompt,
      ...(g.negative_prompt ? { negative_prompt: g.negative_prompt } : {}),
      revised_prompt: generated.revised_prompt ?? null,
      model: g.model,
      size: g.size,
      generated_at: new Date(now * 1000).toISOString(),
    };
    const actor = g.requested_by !== null ? { id: g.requested_by, name: g.requested_by_name, email: '' } : null;
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'assets', target.assetId);
      const asset = await assets.findAsset(trx, target.assetId);
      if (!asset || asset.status === 'ready') return;
      await lifecycle.markAssetReady(trx, target.assetId, file, now);
      await this.versions.promote(trx, target.versionId, file, { merge: metadata }, { actor });
    });
    this.versions.notify();
  }
}
