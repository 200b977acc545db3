import { stat } from 'node:fs/promises';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema.js';
import { convertedFileName, OUTPUT_TYPES, type ConversionParams } from '../../domain/conversions.js';
import { probeImage } from '../../media/probe.js';
import { sniffFile } from '../../media/sniff.js';
import * as lifecycle from '../../repositories/asset-uploads.js';
import * as assets from '../../repositories/assets.js';
import * as repo from '../../repositories/conversions.js';
import { folderExistsInWorkspace } from '../../repositories/folders.js';
import * as versions from '../../repositories/versions.js';
import { assetKey } from '../../storage/keys.js';
import type { ObjectStore } from '../../storage/object-store.js';
import type { Actor } from '../activity-service.js';
import * as quota from '../quota-service.js';
import type { VersionFile, VersionLifecycle } from '../version-lifecycle.js';

/** The conversion was canceled, or its row went with its source, while its result was being stored. */
export class ConversionCanceled extends Error {
  override name = 'ConversionCanceled';
}

/** Retrying cannot help (the source changed, the requester may no longer add files): the conversion fails with this message. */
export class ConversionRefused extends Error {
  override name = 'ConversionRefused';
}

/** The asset and its reserved version a result is stored as. */
export interface ResultTarget {
  assetId: number;
  versionId: number;
}

export interface ConversionSource {
  conversion: repo.ConversionRecord;
  params: ConversionParams;
  asset: assets.AssetRecord;
  version: versions.VersionRecord;
  actor: Actor;
}

/**
 * Stores a conversion's output the way the server upload (new_asset) and the version upload
 * (new_version) store a file, through VersionLifecycle: the type sniffed from the bytes, an image
 * measured, then `promote` queues thumbnails and the embedded-metadata read and records the upload
 * in the activity log, by the requester. The result is claimed on the conversion row before its
 * file is stored, so however often the job runs there is one result; the row turns `succeeded` in
 * the transaction that makes the result current, so a cancel either comes first (and nothing is
 * kept) or finds the conversion done.
 */
export class ConversionResults {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly versions: VersionLifecycle,
  ) {}

  async keep(src: ConversionSource, file: string): Promise<void> {
    const format = src.params.format;
    const mimeType = await sniffFile(file, OUTPUT_TYPES[format].mime);
    const dimensions = mimeType.startsWith('image/') ? await probeImage(file) : undefined;
    const facts: VersionFile = { mime_type: mimeType, file_size: (await stat(file)).size, width: dimensions?.width ?? null, height: dimensions?.height ?? null };
    const name = convertedFileName(src.asset.display_file_name, OUTPUT_TYPES[format].extension);
    const from = { asset_id: src.asset.id, version_id: src.version.id, version: `v${src.version.number}`, conversion_id: src.conversion.id, format };
    // The plan's limits, before anything is stored: a refusal (402 QUOTA_EXCEEDED) fails the conversion with its reason.
    await quota.withStorage(this.ctx, src.asset.workspace_id, facts.file_size, () => this.storeResult(src, file, mimeType, facts, name, from));
    this.versions.notify();
  }

  private async storeResult(src: ConversionSource, file: string, mimeType: string, facts: VersionFile, name: string, from: Record<string, unknown>): Promise<void> {
    const format = src.params.format;
    if (src.params.target === 'new_asset') {
      const claimed = await this.claimed(src.conversion, 'uploading');
      if (!claimed) await quota.assertAssets(this.ctx, src.asset.workspace_id);
      const target = claimed ?? (await this.claimNewAsset(src, name, facts));
      await this.canceledDiscards(src, target, async () => {
        await this.store.putFile(assetKey(src.asset.workspace_id, target.assetId), file, mimeType);
        await this.finish(src, target, facts, { ...src.asset.metadata, converted_from: from }, async (trx) => {
          await lifecycle.markAssetReady(trx, target.assetId, facts, this.ctx.now());
        });
      });
    } else {
      const versionName = convertedFileName(src.version.file_name, OUTPUT_TYPES[format].extension);
      const target = (await this.claimed(src.conversion, 'ready')) ?? (await this.claimNewVersion(src, versionName, facts));
      await this.canceledDiscards(src, target, async () => {
        const reserved = await versions.findVersion(this.ctx.db, target.versionId);
        if (!reserved) throw new ConversionCanceled();
        await this.store.putFile(reserved.storage_key, file, mimeType);
        await this.finish(src, target, facts, { converted_from: from }, async (trx) => {
          const [current] = await versions.currentVersionsOf(trx, [src.asset.id]);
          if (current && current.id !== src.version.id) throw sourceReplaced(src.version, current);
        });
      });
    }
  }

  /**
   * A cancel (or the row going with its source) while the result is stored: the reservation goes now, by what
   * this run knows, since the row may no longer name it. Other failures keep it for the retry.
   */
  private async canceledDiscards(src: ConversionSource, target: ResultTarget, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (err) {
      if (err instanceof ConversionCanceled) await this.discard(src.conversion.id, target);
      throw err;
    }
  }

  /** Removes a claimed result whose file never became current (failed or canceled): the unfinished asset, or the reserved version. */
  async discard(conversionId: number, known?: ResultTarget): Promise<void> {
    const row = await repo.findConversion(this.ctx.db, conversionId);
    if (row?.status === 'succeeded') return;
    const target = row?.result_asset_id && row.result_version_id ? { assetId: row.result_asset_id, versionId: row.result_version_id } : known;
    if (!target) return;
    await this.versions.discard(this.ctx.db, target.assetId, target.versionId);
    if (row) await repo.forgetResult(this.ctx.db, conversionId);
  }

  /** A result an earlier run claimed and did not finish (its asset is `assetStatus`, its version still uploading). */
  private async claimed(c: repo.ConversionRecord, assetStatus: 'uploading' | 'ready'): Promise<ResultTarget | undefined> {
    const fresh = await repo.findConversion(this.ctx.db, c.id);
    if (!fresh?.result_asset_id || !fresh.result_version_id) return undefined;
    const [asset, version] = await Promise.all([assets.findAsset(this.ctx.db, fresh.result_asset_id), versions.findVersion(this.ctx.db, fresh.result_version_id)]);
    if (asset?.status !== assetStatus || version?.status !== 'uploading') return undefined;
    return { assetId: asset.id, versionId: version.id };
  }

  /** new_asset: an 'uploading' asset in the source's folder (the top level if that went) with its v1 reserved, claimed in one transaction. */
  private async claimNewAsset(src: ConversionSource, name: string, facts: VersionFile): Promise<ResultTarget> {
    const { asset: source } = src;
    const createdBy = src.conversion.requested_by_name;
    return this.ctx.db.transaction().execute(async (trx) => {
      const folderId = source.folder_id !== null && (await folderExistsInWorkspace(trx, source.workspace_id, source.folder_id)) ? source.folder_id : null;
      const asset = await assets.insertAsset(trx, {
        workspace_id: source.workspace_id,
        folder_id: folderId,
        file_name: name,
        mime_type: facts.mime_type,
        file_size: facts.file_size,
        width: facts.width,
        height: facts.height,
        tags: source.tags,
        visibility: source.visibility,
        created_by: createdBy,
        // The requester brought it in: a private result is theirs, as a private upload is its uploader's.
        uploaded_by: src.conversion.requested_by,
        created_at: this.ctx.now(),
        status: 'uploading',
      });
      // Set now, so deleting the unfinished asset also queues its object for deletion (the trigger of migration 0002).
      await lifecycle.setStorageKey(trx, asset.id, assetKey(source.workspace_id, asset.id));
      const version = await this.versions.reserve(asset, { file_name: name, mime_type: facts.mime_type, created_by: createdBy }, true, trx);
      const target = { assetId: asset.id, versionId: version.id };
      // Rolled back with the asset when the conversion was canceled meanwhile.
      if (!(await repo.claimResult(trx, src.conversion.id, target, this.ctx.now()))) throw new ConversionCanceled();
      return target;
    });
  }

  /** new_version: a reserved version of the source asset (as a version upload reserves one), then claimed. */
  private async claimNewVersion(src: ConversionSource, name: string, facts: VersionFile): Promise<ResultTarget> {
    const reserved = await this.versions.reserve(src.asset, { file_name: name, mime_type: facts.mime_type, created_by: src.conversion.requested_by_name }, false);
    const target = { assetId: src.asset.id, versionId: reserved.id };
    if (!(await repo.claimResult(this.ctx.db, src.conversion.id, target, this.ctx.now()))) {
      await this.versions.discard(this.ctx.db, src.asset.id, reserved.id);
      throw new ConversionCanceled();
    }
    return target;
  }

  /** Under the result asset's row lock: the conversion succeeds and the result becomes current, together or not at all. */
  private async finish(
    src: ConversionSource,
    target: ResultTarget,
    facts: VersionFile,
    merge: Record<string, unknown>,
    before: (trx: Transaction<Database>) => Promise<void>,
  ): Promise<void> {
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'assets', target.assetId);
      const asset = await assets.findAsset(trx, target.assetId);
      if (!asset) throw new ConversionCanceled();
      await before(trx);
      if (!(await repo.markSucceeded(trx, src.conversion.id, this.ctx.now()))) throw new ConversionCanceled();
      await this.versions.promote(trx, target.versionId, facts, { merge }, { actor: src.actor });
    });
  }
}

function sourceReplaced(source: versions.VersionRecord, current: versions.VersionRecord): ConversionRefused {
  return new ConversionRefused(
    `The asset got a new current version (v${current.number}) after v${source.number} was asked to be converted; ask again to convert the current version`,
  );
}
