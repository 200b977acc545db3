import type { AppContext } from '../../context.js';
import type { DB } from '../../db/database.js';
import {
  ConversionParamError,
  dedupKey,
  imageParams,
  unsupportedReason,
  videoParams,
  type ConversionKind,
  type ConversionParams,
} from '../../domain/conversions.js';
import { fileTypeOf } from '../../domain/file-types.js';
import { appError, notFound } from '../../errors.js';
import { CONVERT_ASSET } from '../../jobs/kinds.js';
import type { JobQueue } from '../../jobs/queue.js';
import * as assets from '../../repositories/assets.js';
import * as repo from '../../repositories/conversions.js';
import * as versions from '../../repositories/versions.js';
import type { ConversionListInput, ConversionPageView, ConversionView, ConvertImageInput, ConvertVideoInput } from '../../contracts/conversions.js';
import * as quota from '../quota-service.js';
import type { Caller } from '../auth-service.js';
import { loadAuthorized } from '../catalog-access.js';
import { loadVisibleAsset, requireSight } from '../visibility.js';
import type { ConversionRunner } from './conversion-runner.js';

export function toConversionView(c: repo.ConversionRecord): ConversionView {
  return {
    id: c.id,
    kind: c.kind,
    workspace_id: c.workspace_id,
    asset_id: c.asset_id,
    source_version_id: c.source_version_id,
    params: JSON.parse(c.params) as ConversionView['params'],
    status: c.status,
    progress: c.progress,
    result_asset_id: c.status === 'succeeded' ? c.result_asset_id : null,
    result_version_id: c.status === 'succeeded' ? c.result_version_id : null,
    error: c.error,
    requested_by: { id: c.requested_by, name: c.requested_by_name },
    created_at: c.created_at,
    started_at: c.started_at,
    finished_at: c.finished_at,
  };
}

/** A conversion and whether this request created it (202) or found the same one (200). */
export interface Requested {
  created: boolean;
  conversion: ConversionView;
}

function paramError(err: unknown): never {
  if (err instanceof ConversionParamError) throw appError('VALIDATION_ERROR', `body.${err.field}: ${err.message}`, { field: err.field });
  throw err;
}

/**
 * POST /convert/image, /convert/video, GET /convert/status/:id, POST .../cancel, GET /convert/jobs
 * (issue #15): checks the request, records it and queues its job in one transaction; the job
 * (conversion-runner.ts) converts and stores the result. The same source version with the same
 * normalised parameters is one conversion while it is queued, running or succeeded.
 */
export class ConversionService {
  constructor(
    private readonly ctx: AppContext,
    private readonly jobs: JobQueue,
    private readonly runner: ConversionRunner,
  ) {}

  async convertImage(caller: Caller, input: ConvertImageInput): Promise<Requested> {
    let params: ConversionParams;
    try {
      params = imageParams(input);
    } catch (err) {
      paramError(err);
    }
    const { asset, version } = await this.source(caller, input.assetId, 'image', params.format);
    // A decompression bomb is refused here when the upload could measure it; the job checks the header again.
    const maxPixels = this.ctx.config.convert.maxPixels;
    if (asset.width !== null && asset.height !== null && asset.width * asset.height > maxPixels) {
      throw appError('CONVERSION_UNSUPPORTED', `The image is ${asset.width} x ${asset.height} pixels, more than this instance converts (${maxPixels} pixels)`);
    }
    if (params.width !== null && params.height !== null && params.width * params.height > maxPixels) {
      throw appError('VALIDATION_ERROR', `body.width: ${params.width} x ${params.height} is more than this instance converts (${maxPixels} pixels)`, { field: 'width' });
    }
    return this.record(caller, asset, version, 'image', params);
  }

  async convertVideo(caller: Caller, input: ConvertVideoInput): Promise<Requested> {
    let params: ConversionParams;
    try {
      params = videoParams(input);
    } catch (err) {
      paramError(err);
    }
    const { asset, version } = await this.source(caller, input.assetId, 'video', params.format);
    if (asset.duration !== null && params.start >= asset.duration) {
      throw appError('VALIDATION_ERROR', `body.start: ${params.start} s is past the end of the source (${asset.duration} s)`, { field: 'start' });
    }
    return this.record(caller, asset, version, 'video', params);
  }

  /**
   * Members of the conversion's workspace (viewers too) who see its source and result (domain/asset-visibility.ts);
   * anyone else 404, as if it did not exist.
   */
  async get(caller: Caller, id: number): Promise<ConversionView> {
    const c = await this.load(caller, id, 'viewer');
    const sight = await requireSight(this.ctx.db, c.workspace_id, caller.id);
    const named = [c.asset_id, ...(c.result_asset_id === null ? [] : [c.result_asset_id])];
    const visible = await assets.visibleAmong(this.ctx.db, c.workspace_id, sight, named);
    if (!named.every((a) => visible.has(a))) throw notFound('Conversion');
    return toConversionView(c);
  }

  async list(caller: Caller, q: ConversionListInput): Promise<ConversionPageView> {
    const sight = await requireSight(this.ctx.db, q.workspaceId, caller.id);
    const limit = q.limit ?? 50;
    const rows = await repo.listConversions(this.ctx.db, {
      workspaceId: q.workspaceId,
      assetId: q.asset_id,
      status: q.status,
      before: q.before,
      limit: limit + 1,
      sight,
    });
    const page = rows.slice(0, limit);
    return { items: page.map(toConversionView), next_before: rows.length > limit ? page[page.length - 1]!.id : null };
  }

  /**
   * Managers and admins. Queued: it will not run. Running: its ffmpeg is killed (at once in this
   * process, within a second in another one, which polls the row) and its temporary files and any
   * half-stored result removed. Canceling a canceled conversion answers it again; a finished one is 409.
   */
  async cancel(caller: Caller, id: number): Promise<ConversionView> {
    // A conversion a viewer may not see is 404 to them, as for GET, before their role is 403.
    await this.get(caller, id);
    await this.load(caller, id, 'manager');
    const canceled = await repo.markCanceled(this.ctx.db, id, this.ctx.now());
    const after = await repo.findConversion(this.ctx.db, id);
    if (!after) throw notFound('Conversion');
    if (!canceled && after.status !== 'canceled') throw appError('CONFLICT', `Conversion ${id} has already ${after.status} and cannot be canceled`);
    // A run in this process stops at once; one in another process reads the row within a second.
    this.runner.abortHere(id);
    return toConversionView(after);
  }

  /** The asset's current version, after the caller's role (manager: a conversion adds an asset or a version) and the format. */
  private async source(caller: Caller, assetId: number, kind: ConversionKind, format: string) {
    // Another's private asset is 404 for a viewer, as on every direct access, before their role is 403.
    const asset = await loadVisibleAsset(this.ctx.db, assetId, caller.id, 'manager');
    const reason = unsupportedReason(kind, format, { fileType: fileTypeOf(asset.mime_type), mimeType: asset.mime_type });
    if (reason) throw appError('CONVERSION_UNSUPPORTED', reason, { format });
    const [version] = await versions.currentVersionsOf(this.ctx.db, [asset.id]);
    if (!version) throw notFound('Asset');
    return { asset, version };
  }

  private async record(caller: Caller, asset: assets.AssetRecord, version: versions.VersionRecord, kind: ConversionKind, params: ConversionParams): Promise<Requested> {
    // Refused up front when the plan has no room left; the result's real size is checked when it is stored.
    await quota.assertStorageRoom(this.ctx, asset.workspace_id);
    if (params.target === 'new_asset') await quota.assertAssets(this.ctx, asset.workspace_id);
    const key = dedupKey(version.id, kind, params);
    const values = {
      workspace_id: asset.workspace_id,
      asset_id: asset.id,
      source_version_id: version.id,
      kind,
      params: JSON.stringify(params),
      dedup_key: key,
      requested_by: caller.id,
      requested_by_name: caller.name || caller.email,
      created_at: this.ctx.now(),
    };
    // Twice at most: a key held by a conversion whose result is gone is freed, then taken.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const created = await this.ctx.db.transaction().execute(async (trx) => {
        const row = await repo.insertConversion(trx, values);
        if (row) await this.jobs.enqueue(trx, CONVERT_ASSET, { conversionId: row.id });
        return row;
      });
      if (created) {
        this.jobs.notify();
        return { created: true, conversion: toConversionView(created) };
      }
      const existing = await repo.findByDedupKey(this.ctx.db, key);
      if (!existing) continue; // it failed or was canceled meanwhile: the key is free
      if (await this.stillAnswers(this.ctx.db, existing)) return { created: false, conversion: toConversionView(existing) };
      await repo.releaseDedupKey(this.ctx.db, existing.id);
    }
    throw appError('CONFLICT', 'The same conversion was requested at the same moment; try again');
  }

  /** A succeeded conversion answers for its key while its result exists and is not in the trash; queued and running ones always. */
  private async stillAnswers(db: DB, c: repo.ConversionRecord): Promise<boolean> {
    if (c.status !== 'succeeded') return true;
    if (c.result_asset_id === null || c.result_version_id === null) return false;
    const [asset, version] = await Promise.all([assets.findAsset(db, c.result_asset_id), versions.findVersion(db, c.result_version_id)]);
    return !!asset && assets.inCatalog(asset) && version?.status === 'ready';
  }

  private load(caller: Caller, id: number, min: 'viewer' | 'manager'): Promise<repo.ConversionRecord> {
    return loadAuthorized(this.ctx.db, 'Conversion', () => repo.findConversion(this.ctx.db, id), caller.id, min);
  }
}
