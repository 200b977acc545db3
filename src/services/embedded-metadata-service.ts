import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../context.js';
import { diffFields } from '../domain/activity.js';
import { EDITABLE_METADATA_FIELDS, mergeKeywordsIntoTags, type EditableMetadataField } from '../domain/embedded-metadata.js';
import { embeddedFieldsOf, type EmbeddedFields } from '../media/embedded-fields.js';
import { exifToolExtension, type ExifToolRunner, type RawTags } from '../media/exiftool.js';
import * as assets from '../repositories/assets.js';
import { saveEmbeddedColumns, setVersionDimensions } from '../repositories/embedded-metadata.js';
import * as versions from '../repositories/versions.js';
import type { ObjectStore } from '../storage/object-store.js';
import { ActivityService, assetSubject } from './activity-service.js';

/**
 * The work of the READ_EMBEDDED_METADATA job (issue #12): reads a version's file with ExifTool and, while that
 * version is its asset's current one, writes what it found on the asset (src/media/embedded-fields.ts decides
 * what): the columns, the kept tag set, the file's keywords merged into the tags, and the page count and
 * dimensions of a version whose upload could not tell them.
 */
export class EmbeddedMetadataService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly exiftool: ExifToolRunner,
  ) {}

  /**
   * Returns what could not be read, for the log. A file ExifTool cannot read (or that makes it fail or time out)
   * leaves the fields null and the job done: retrying would fail the same way. A failure to fetch the file from
   * the store is thrown, so the job is retried.
   */
  async extract(versionId: number): Promise<string[]> {
    const version = await versions.findVersion(this.ctx.db, versionId);
    // Deleted, or no longer current: the version that replaced it has a job of its own.
    if (!version || version.status !== 'ready' || version.is_current !== 1) return [];
    const work = await this.workDir();
    try {
      const file = path.join(work, `source${exifToolExtension(version.mime_type)}`);
      const body = await this.store.read(version.storage_key);
      await pipeline(body.stream, createWriteStream(file));
      const problems: string[] = [];
      let raw: RawTags = {};
      try {
        raw = await this.exiftool.readTags(file);
      } catch (err) {
        problems.push(`ExifTool could not read the file: ${(err as Error).message.slice(0, 500)}`);
      }
      const fields = embeddedFieldsOf(raw, version.mime_type);
      await this.save(version, fields);
      return [...problems, ...fields.problems];
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Under the asset's row lock (as promote() takes it), so the version stays current, or not, meanwhile. */
  private async save(version: versions.VersionRecord, fields: EmbeddedFields): Promise<void> {
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'assets', version.asset_id);
      const current = await versions.findVersion(trx, version.id);
      const asset = await assets.findAsset(trx, version.asset_id);
      if (!current || current.is_current !== 1 || !asset) return;
      // A field the user edited keeps the user's value (issue #12: never overwritten by a re-read).
      const edited = new Set(asset.metadata_edited);
      const text: Partial<Record<EditableMetadataField, string | null>> = {};
      for (const field of EDITABLE_METADATA_FIELDS) if (!edited.has(field)) text[field] = fields[field];
      const tags = mergeKeywordsIntoTags(asset.tags, asset.keywords, fields.keywords);
      const tagsChanged = tags.length !== asset.tags.length;
      await saveEmbeddedColumns(trx, asset.id, {
        taken_at: fields.taken_at,
        camera_make: fields.camera_make,
        camera_model: fields.camera_model,
        lens: fields.lens,
        iso: fields.iso,
        exposure: fields.exposure,
        aperture: fields.aperture,
        focal_length: fields.focal_length,
        gps_lat: fields.gps_lat,
        gps_lon: fields.gps_lon,
        duration: fields.duration,
        color_space: fields.color_space,
        ...text,
        keywords: fields.keywords,
        embedded_metadata: fields.embedded,
        ...(tagsChanged && { tags }),
        metadata_version_id: current.id,
      });
      // File facts the upload could not tell (poppler may count the pages later; it writes the same number).
      if (fields.page_count !== null && current.page_count === null) await versions.setPageCount(trx, current.id, fields.page_count);
      if ((current.width === null || current.height === null) && fields.width !== null && fields.height !== null) {
        await setVersionDimensions(trx, current.id, fields.width, fields.height);
      }
      if (tagsChanged) {
        // The tags changed without a user: the log says the system did it, and which keywords came in.
        await ActivityService.record(trx, {
          workspaceId: asset.workspace_id,
          actor: null,
          action: 'asset.update',
          subject: assetSubject(asset),
          changes: diffFields(asset, { tags }, ['tags']),
          at: this.ctx.now(),
        });
      }
    });
  }

  private async workDir(): Promise<string> {
    const parent = path.join(this.ctx.config.dataDir, 'tmp', 'metadata');
    await mkdir(parent, { recursive: true });
    return mkdtemp(path.join(parent, 'job-'));
  }
}
