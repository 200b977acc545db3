import type { ImageGenConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { appError, notFound } from '../errors.js';
import { GENERATE_IMAGES } from '../jobs/kinds.js';
import type { JobQueue } from '../jobs/queue.js';
import { folderExistsInWorkspace } from '../repositories/folders.js';
import * as repo from '../repositories/image-generations.js';
import type { GenerateImageInput, GenerationView } from '../contracts/image-generation.js';
import { requireRole } from './access.js';
import { sightOf } from './visibility.js';
import { visibleAmong } from '../repositories/assets.js';
import * as quota from './quota-service.js';
import type { Caller } from './auth-service.js';

const DAY = 24 * 3600;

export function toGenerationView(g: repo.GenerationRecord, assetIds: number[]): GenerationView {
  return {
    id: g.id,
    workspace_id: g.workspace_id,
    folder_id: g.folder_id,
    status: g.status,
    prompt: g.prompt,
    negative_prompt: g.negative_prompt,
    size: g.size,
    n: g.n,
    model: g.model,
    asset_ids: assetIds,
    error: g.error,
    created_at: g.created_at,
    updated_at: g.updated_at,
  };
}

/**
 * POST/GET /generate-image (issue #13): records a request and queues its job; the job
 * (image-generation-runner.ts) asks the provider and turns each image into an asset.
 */
export class ImageGenerationService {
  constructor(
    private readonly ctx: AppContext,
    private readonly jobs: JobQueue,
  ) {}

  /** 404 IMAGE_GEN_NOT_CONFIGURED before anything else: without a provider there is nothing to ask or report. */
  private configured(): ImageGenConfig {
    if (!this.ctx.config.imageGen) throw appError('IMAGE_GEN_NOT_CONFIGURED');
    return this.ctx.config.imageGen;
  }

  async request(caller: Caller, input: GenerateImageInput): Promise<GenerationView> {
    const config = this.configured();
    await requireRole(this.ctx.db, input.workspaceId, caller.id, 'manager');
    if (input.folder_id !== undefined && !(await folderExistsInWorkspace(this.ctx.db, input.workspaceId, input.folder_id))) {
      throw appError('VALIDATION_ERROR', `folder_id ${input.folder_id} is not a folder of workspace ${input.workspaceId}`, { field: 'folder_id' });
    }
    const n = input.n ?? 1;
    // The plan's limits up front: n new assets, and some storage left (each image's size is checked as it is stored).
    await quota.assertAssets(this.ctx, input.workspaceId, n);
    await quota.assertStorageRoom(this.ctx, input.workspaceId);
    const now = this.ctx.now();
    const dayStart = now - (now % DAY);
    const generation = await this.ctx.db.transaction().execute(async (trx) => {
      // Two requests at once must not both fit in the last free images: the workspace's row lock orders them.
      await this.ctx.database.support.lockRow(trx, 'workspaces', input.workspaceId);
      const used = await repo.imagesRequestedSince(trx, input.workspaceId, dayStart);
      if (used + n > config.dailyLimit) {
        const left = Math.max(0, config.dailyLimit - used);
        throw appError(
          'IMAGE_GEN_DAILY_LIMIT',
          `This workspace may ask for ${config.dailyLimit} generated images per day (UTC) and has ${left} left today; ${n} were asked for`,
          { limit: config.dailyLimit, used, resets_at: dayStart + DAY },
        );
      }
      const row = await repo.insertGeneration(trx, {
        workspace_id: input.workspaceId,
        folder_id: input.folder_id ?? null,
        requested_by: caller.id,
        requested_by_name: caller.name || caller.email,
        prompt: input.prompt,
        negative_prompt: input.negative_prompt?.trim() ? input.negative_prompt : null,
        size: input.size ?? '1024x1024',
        n,
        model: config.model,
        created_at: now,
      });
      await this.jobs.enqueue(trx, GENERATE_IMAGES, { generationId: row.id });
      return row;
    });
    this.jobs.notify();
    return toGenerationView(generation, []);
  }

  /**
   * Members of the generation's workspace (viewers too); anyone else 404, as if it did not exist. Its assets as the
   * caller sees them: one made private since leaves a viewer's list unless they asked for it (domain/asset-visibility.ts).
   */
  async get(caller: Caller, id: number): Promise<GenerationView> {
    this.configured();
    const generation = await repo.findGeneration(this.ctx.db, id);
    if (!generation) throw notFound('Image generation');
    let role;
    try {
      role = await requireRole(this.ctx.db, generation.workspace_id, caller.id, 'viewer');
    } catch (err) {
      throw (err as { code?: string }).code === 'NOT_FOUND' ? notFound('Image generation') : err;
    }
    const made = (await repo.readyAssetIds(this.ctx.db, [id])).get(id) ?? [];
    const visible = await visibleAmong(this.ctx.db, generation.workspace_id, sightOf(role, caller.id), made);
    return toGenerationView(generation, made.filter((a) => visible.has(a)));
  }
}
