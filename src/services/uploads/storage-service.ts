import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { faultOf, storeFailure as answerStoreFailure } from '../../faults/classify.js';
import type { AppContext } from '../../context.js';
import { uploadedFileName } from '../../domain/file-names.js';
import { multipartEtag } from '../../domain/object-parts.js';
import { appError, notFound } from '../../errors.js';
import { probeImage, PROBE_BYTES } from '../../media/probe.js';
import { SNIFF_BYTES, sniffType } from '../../media/sniff.js';
import * as assets from '../../repositories/assets.js';
import * as uploads from '../../repositories/uploads.js';
import * as lifecycle from '../../repositories/asset-uploads.js';
import { folderExistsInWorkspace } from '../../repositories/folders.js';
import * as deletions from '../../repositories/object-deletions.js';
import * as versions from '../../repositories/versions.js';
import { DEFAULT_CORS_RULES, StoreError, type CorsRule, type ObjectInfo, type ObjectStore, type StoredPart } from '../../storage/object-store.js';
import { assetKey, parseAssetKey } from '../../storage/keys.js';
import { LocalStore, MAX_PART_SIZE, normalizeEtag } from '../../storage/local-store.js';
import { fileNameFor, streamDownload, versionValidator, type DownloadConditions, type DownloadResult, type DownloadValidator } from '../downloads.js';
import type { Caller } from '../auth-service.js';
import { requireRole } from '../access.js';
import { requireSight } from '../visibility.js';
import { sees } from '../../domain/asset-visibility.js';
import { ActivityService, assetSubject } from '../activity-service.js';
import type { Database, UploadSessionRow } from '../../db/schema.js';
import type { Transaction } from 'kysely';
import type { AssetRecord } from '../../repositories/assets.js';
import type { VersionLifecycle } from '../version-lifecycle.js';
import type { MetadataWriteback } from '../metadata-writeback.js';
import * as quota from '../quota-service.js';
import { writeNowOrLater } from '../../faults/retry-later.js';

export const MAX_PARTS = 10_000;
/** S3 refuses parts below 5 MiB (all but the last) whatever this service is configured with. */
const S3_MIN_PART_SIZE = 5 * 1024 * 1024;

export interface UploadRef {
  uploadId: string;
  assetId: number;
  workspaceId: number;
}

export interface PartRef {
  PartNumber: number;
  ETag: string;
}

export interface CompleteAnswer {
  success: true;
  location: string;
  key: string;
}

interface Completion {
  parts: PartRef[];
  answer: CompleteAnswer;
}

/**
 * Maps a provider failure to seed 7.1's codes: a bad parts list is the client's (400), a store that is down or a full
 * disk 503/507 (issue #37), the rest S3_ERROR (502).
 */
function storeFailure(err: unknown): never {
  if (err instanceof StoreError && ['InvalidPart', 'InvalidPartOrder', 'EntityTooSmall', 'EntityTooLarge', 'NoSuchUpload'].includes(err.providerCode ?? '')) {
    throw appError('UPLOAD_FAILED', err.message);
  }
  if (err instanceof StoreError || faultOf(err)) throw answerStoreFailure(err);
  throw err;
}

function sameParts(a: PartRef[], b: PartRef[]): boolean {
  return a.length === b.length && a.every((p, i) => p.PartNumber === b[i]?.PartNumber && normalizeEtag(p.ETag) === normalizeEtag(b[i]?.ETag ?? ''));
}

/**
 * Multipart uploads through presigned part URLs, download and delete (seed 4.3).
 * An asset exists as 'uploading' from start-upload on, so its id and key are
 * known to the client; complete-upload makes it 'ready'. Every upload fills a
 * version (seed 9): v1 of a new asset, or, with `assetId`, a new version of an
 * existing one; completing it makes that version current.
 */
export class StorageService {
  /** Called after the CORS rules change, so this process's cache forgets them. */
  onCorsChange: () => void = () => undefined;

  constructor(
    private readonly ctx: AppContext,
    readonly store: ObjectStore,
    private readonly versions: VersionLifecycle,
    private readonly writeback: MetadataWriteback,
  ) {}

  /**
   * The smallest part (all but the last) that completing accepts: DAM_MIN_PART_SIZE, and on
   * S3 at least S3's own 5 MiB. start-upload answers it, so clients size their parts to fit.
   */
  get minPartSize(): number {
    return this.store.kind === 's3' ? Math.max(this.ctx.config.minPartSize, S3_MIN_PART_SIZE) : this.ctx.config.minPartSize;
  }

  async startUpload(
    caller: Caller,
    input: { workspaceId: number; fileType: string; fileName?: string; folderId?: number; assetId?: number; fileSize?: number },
  ): Promise<{ uploadId: string; assetId: number }> {
    await requireRole(this.ctx.db, input.workspaceId, caller.id, 'manager');
    this.checkDeclaredSize(input.fileSize);
    if (input.assetId !== undefined) return this.startVersionUpload(caller, input.assetId, input);
    if (input.folderId !== undefined) await this.assertFolderInWorkspace(input.folderId, input.workspaceId);
    await quota.assertAssets(this.ctx, input.workspaceId);
    // Refused before anything exists; released again below if the upload cannot start.
    const reserved = await quota.reserveStorage(this.ctx, input.workspaceId, input.fileSize ?? 0);
    try {
      return await this.startNewAssetUpload(caller, input, reserved);
    } catch (err) {
      await quota.releaseStorage(this.ctx, input.workspaceId, reserved);
      throw err;
    }
  }

  private async startNewAssetUpload(
    caller: Caller,
    input: { workspaceId: number; fileType: string; fileName?: string; folderId?: number; fileSize?: number },
    reserved: number,
  ): Promise<{ uploadId: string; assetId: number }> {
    const now = this.ctx.now();
    const asset = await assets.insertAsset(this.ctx.db, {
      workspace_id: input.workspaceId,
      folder_id: input.folderId ?? null,
      file_name: uploadedFileName(input.fileName),
      mime_type: input.fileType,
      file_size: 0,
      created_by: caller.name || caller.email,
      uploaded_by: caller.id,
      created_at: now,
      status: 'uploading',
    });
    const key = assetKey(input.workspaceId, asset.id);
    try {
      const version = await this.versions.reserve(asset, { file_name: asset.file_name, mime_type: input.fileType, created_by: asset.created_by }, true);
      const uploadId = await this.store.createMultipartUpload(key, input.fileType).catch(storeFailure);
      const session = {
        id: uploadId,
        workspaceId: input.workspaceId,
        assetId: asset.id,
        userId: caller.id,
        key,
        mimeType: input.fileType,
        fileName: asset.file_name,
        now,
        reservedBytes: reserved,
        declaredSize: input.fileSize,
      };
      await this.recordSession(uploadId, version.id, session, (trx) => lifecycle.setStorageKey(trx, asset.id, key));
      return { uploadId, assetId: asset.id };
    } catch (err) {
      // Nothing of an upload that could not start stays: the asset goes with its v1 (later, should the full disk
      // refuse this write too, issue #37).
      await writeNowOrLater('discarding an upload that could not start', () => lifecycle.deleteUploadingAsset(this.ctx.db, asset.id), this.ctx.faults.log);
      throw err;
    }
  }

  /**
   * The upload session of a multipart upload just created, in one transaction with `also`. Should it fail (the
   * database's disk full, issue #37), the store's upload is aborted again: its directory would be nobody's.
   */
  private async recordSession(
    uploadId: string,
    versionId: number,
    session: Parameters<typeof uploads.insertUploadSession>[1],
    also?: (trx: Transaction<Database>) => Promise<unknown>,
  ): Promise<void> {
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        await also?.(trx);
        await uploads.insertUploadSession(trx, session);
        await versions.setUploadVersion(trx, uploadId, versionId);
      });
    } catch (err) {
      await this.store.abortMultipartUpload(session.key, uploadId).catch(() => undefined);
      throw err;
    }
  }

  /** seed 9: a new version of an existing asset follows the same flow; completing it adds the version. */
  private async startVersionUpload(
    caller: Caller,
    assetId: number,
    input: { workspaceId: number; fileType: string; fileName?: string; folderId?: number; fileSize?: number },
  ): Promise<{ uploadId: string; assetId: number }> {
    if (input.folderId !== undefined) {
      throw appError('VALIDATION_ERROR', 'folderId: a new version stays in its asset\'s folder; send assetId or folderId, not both', { field: 'folderId' });
    }
    const asset = await assets.findAsset(this.ctx.db, assetId);
    if (!asset || asset.workspace_id !== input.workspaceId || !assets.inCatalog(asset)) throw notFound('Asset');
    const file = { file_name: uploadedFileName(input.fileName, asset.file_name), mime_type: input.fileType, created_by: caller.name || caller.email };
    const reserved = await quota.reserveStorage(this.ctx, input.workspaceId, input.fileSize ?? 0);
    try {
      const version = await this.versions.reserve(asset, file, false);
      try {
        const uploadId = await this.store.createMultipartUpload(version.storage_key, input.fileType).catch(storeFailure);
        await this.recordSession(uploadId, version.id, {
          id: uploadId,
          workspaceId: input.workspaceId,
          assetId: asset.id,
          userId: caller.id,
          key: version.storage_key,
          mimeType: input.fileType,
          fileName: file.file_name,
          now: this.ctx.now(),
          reservedBytes: reserved,
          declaredSize: input.fileSize,
        });
        return { uploadId, assetId: asset.id };
      } catch (err) {
        await writeNowOrLater('discarding an upload that could not start', () => this.versions.discard(this.ctx.db, asset.id, version.id), this.ctx.faults.log);
        throw err;
      }
    } catch (err) {
      await quota.releaseStorage(this.ctx, input.workspaceId, reserved);
      throw err;
    }
  }

  /**
   * A presigned URL for one part. Touching the session keeps it from the idle sweep, but not past
   * DAM_UPLOAD_MAX_LIFETIME from its start (410 UPLOAD_EXPIRED): an abandoned upload cannot be kept alive
   * forever by asking for URLs, and no URL outlives the upload's lifetime.
   */
  async partUploadUrl(caller: Caller, ref: UploadRef, partNumber: number): Promise<{ url: string; expiresIn: number }> {
    const session = await this.openSession(caller, ref);
    const now = this.ctx.now();
    const left = this.lifetimeLeft(session, now);
    // Keeps the session from being swept; once a minute is plenty against a TTL of hours.
    if (now - session.touched_at >= 60) await uploads.touchUploadSession(this.ctx.db, session.id, now);
    // seed 8: an hour by default (DAM_PART_URL_TTL).
    const expiresIn = Math.min(this.ctx.config.partUrlTtl, left);
    const url = await this.store.partUploadUrl(session.storage_key, session.id, partNumber, expiresIn).catch(storeFailure);
    return { url, expiresIn };
  }

  /**
   * The local store's answer to a PUT on a presigned part URL (no bearer token: the signature is the credential).
   * Nothing is written unless the signature is valid and unexpired and the upload is open and within its lifetime.
   * The parts of one upload together hold at most its bound (the declared fileSize, and DAM_MAX_FILE_SIZE): a part
   * that would pass it is refused with 413 by its Content-Length before a byte is read, or as it streams, never
   * written past the bound. Its bytes count against the plan before they are written (quota.growUpload).
   */
  async receiveLocalPart(
    q: { uploadId: string; partNumber: number; expires: unknown; signature: unknown },
    body: Readable,
    contentLength: string | undefined,
  ): Promise<StoredPart> {
    if (!(this.store instanceof LocalStore)) throw notFound('Route');
    const verdict = this.store.verifyPartUrl(q.uploadId, q.partNumber, q.expires, q.signature);
    if (verdict === 'invalid') throw appError('INVALID_SIGNATURE', 'The part URL signature does not match; request a new URL with get-upload-url');
    if (verdict === 'expired') {
      // When it expired and when it was refused: the part route's S3 error answer names both (<Expires>, <ServerTime>).
      throw appError('URL_EXPIRED', 'The part URL has expired; request a new one with get-upload-url', { expires: Number(q.expires), serverTime: this.ctx.now() });
    }
    const session = await uploads.findUploadSessionById(this.ctx.db, q.uploadId);
    if (!session || session.completed_at !== null) throw appError('INVALID_UPLOAD_ID', `Upload ${q.uploadId} is unknown, aborted or completed`);
    this.lifetimeLeft(session, this.ctx.now());
    const others = await uploads.otherPartsSize(this.ctx.db, session.id, q.partNumber);
    // A part is at most 5 GiB, as on S3.
    const room = Math.min(MAX_PART_SIZE, Math.max(0, this.uploadBound(session) - others));
    const tooLarge = (size: string) => this.partTooLarge(session, q.partNumber, size, room, others);
    const length = contentLength !== undefined && /^\d{1,16}$/.test(contentLength) ? Number(contentLength) : undefined;
    if (length !== undefined && length > room) throw tooLarge(`${length} bytes`);
    // Without a Content-Length the part may take all the room left, so that much is reserved.
    await quota.growUpload(this.ctx, session.workspace_id, session.id, others + (length ?? room), session.reserved_bytes);
    return this.store.writePart(q.uploadId, q.partNumber, body, room).catch((err: unknown) => {
      if (err instanceof StoreError && err.providerCode === 'EntityTooLarge' && err.httpStatus === 413) throw tooLarge(`over ${room} bytes`);
      return storeFailure(err);
    });
  }

  /** The most the parts of an upload may hold together: its declared size, and DAM_MAX_FILE_SIZE. */
  private uploadBound(session: UploadSessionRow): number {
    const declared = session.declared_size === null ? Infinity : Number(session.declared_size);
    return Math.min(declared, this.ctx.config.maxFileSize);
  }

  private partTooLarge(session: UploadSessionRow, partNumber: number, size: string, room: number, others: number): Error {
    const bound =
      session.declared_size === null || Number(session.declared_size) > this.ctx.config.maxFileSize
        ? `the largest file allowed (DAM_MAX_FILE_SIZE) is ${this.ctx.config.maxFileSize} bytes`
        : `the upload declared a fileSize of ${Number(session.declared_size)} bytes`;
    return appError(
      'PAYLOAD_TOO_LARGE',
      `Part ${partNumber} is ${size}, more than the ${room} bytes this upload can still take: ${bound}, and its other parts hold ${others}. ` +
        'Nothing of this part was kept; the part it would have replaced is unchanged.',
      { field: 'body', limit: room },
    );
  }

  /** Seconds the upload may still take parts; 410 UPLOAD_EXPIRED past DAM_UPLOAD_MAX_LIFETIME from its start. */
  private lifetimeLeft(session: UploadSessionRow, now: number): number {
    const left = session.created_at + this.ctx.config.uploadMaxLifetime - now;
    if (left > 0) return left;
    throw appError(
      'UPLOAD_EXPIRED',
      `Upload ${session.id} was started more than ${this.ctx.config.uploadMaxLifetime} s ago (DAM_UPLOAD_MAX_LIFETIME) and takes no more parts; ` +
        'it is removed with its parts by housekeeping. Start a new upload.',
    );
  }

  /** start-upload: a declared size over DAM_MAX_FILE_SIZE could never complete; refused before anything exists. */
  private checkDeclaredSize(fileSize: number | undefined): void {
    if (fileSize === undefined || fileSize <= this.ctx.config.maxFileSize) return;
    throw appError('PAYLOAD_TOO_LARGE', `fileSize ${fileSize} is larger than the largest file allowed (DAM_MAX_FILE_SIZE), ${this.ctx.config.maxFileSize} bytes`, {
      field: 'fileSize',
      limit: this.ctx.config.maxFileSize,
    });
  }

  async listParts(caller: Caller, ref: UploadRef): Promise<{ parts: StoredPart[] }> {
    const session = await this.openSession(caller, ref);
    const parts = await this.store.listParts(session.storage_key, session.id).catch(storeFailure);
    return { parts };
  }

  async abortUpload(caller: Caller, ref: UploadRef): Promise<{ success: true }> {
    const session = await this.openSession(caller, ref);
    await this.store.abortMultipartUpload(session.storage_key, session.id).catch(storeFailure);
    await quota.settleUpload(this.ctx.db, session.id);
    // Deleting the 'uploading' asset (or, for a version upload, the reserved version) cascades to the session and its parts.
    await this.versions.discard(this.ctx.db, session.asset_id, session.version_id);
    return { success: true };
  }

  async completeUpload(caller: Caller, ref: UploadRef, parts: PartRef[]): Promise<CompleteAnswer> {
    await requireRole(this.ctx.db, ref.workspaceId, caller.id, 'manager');
    const session = await this.session(ref);
    this.checkPartsList(parts);
    const earlier = this.earlierCompletion(session, parts);
    if (earlier) return earlier;

    if (this.store.kind === 'local') {
      const total = await this.checkLocalParts(session.id, parts);
      if (total > this.ctx.config.maxFileSize) {
        // As after a merge on S3 (finishUpload): a file over the limit leaves nothing behind, parts included.
        await this.store.abortMultipartUpload(session.storage_key, session.id).catch(storeFailure);
        await quota.settleUpload(this.ctx.db, session.id);
        await this.versions.discard(this.ctx.db, session.asset_id, session.version_id);
        throw appError('UPLOAD_FAILED', `The parts add up to ${total} bytes; the largest allowed file is ${this.ctx.config.maxFileSize}`);
      }
    }
    try {
      await this.store.completeMultipartUpload(session.storage_key, session.id, parts);
    } catch (err) {
      // A concurrent or interrupted completion may already have joined the parts: carry on if the object is there
      // (the key is this upload's alone). S3 answers a second completion NoSuchUpload; some S3-compatible stores (s3rver)
      // a 500; and when the store's answer to the completion was lost (issue #37: reset, timed out), it may have joined
      // them all the same. The HEAD is the store saying the object exists; where S3's multipart ETag can be known it must
      // be that of these parts, so a half-written or other object (s3rver leaves one when the completion's connection
      // is cut) is never reported done.
      const found = err instanceof StoreError && (err.providerCode === 'NoSuchUpload' || err.unavailable) ? await this.store.head(session.storage_key).catch(storeFailure) : undefined;
      const joined = found && (await this.holdsTheseParts(session.storage_key, found, parts));
      if (!joined) storeFailure(err);
    }
    return this.finishUpload(caller, session, parts);
  }

  /**
   * Whether the object found after a failed completion is the one these parts make (issue #37). S3's multipart ETag
   * (`<md5 of the parts' md5s>-<count>`) is compared where it can be known; a store that gives a joined object a plain
   * MD5 ETag (s3rver) has the object's bytes hashed against it, which also catches an object another, cut completion
   * left half-written. Rare (only after a completion failed), so reading the object once is affordable.
   */
  private async holdsTheseParts(key: string, found: ObjectInfo, parts: PartRef[]): Promise<boolean> {
    const etag = found.etag;
    if (etag && /-\d+$/.test(etag)) {
      const expected = multipartEtag(parts);
      return expected === undefined || etag === expected;
    }
    if (!etag || !/^[0-9a-f]{32}$/i.test(etag)) return true;
    try {
      const body = await this.store.read(key);
      const md5 = createHash('md5');
      for await (const chunk of body.stream) md5.update(chunk as Buffer);
      return md5.digest('hex') === etag.toLowerCase();
    } catch {
      // Not confirmed (the read failed too): not reported done; the client tries the completion again.
      return false;
    }
  }

  /**
   * After the object is whole: sniff its type from its first bytes (the claim made at start-upload
   * is only a hint), measure it, then flip the asset to 'ready' exactly once, correcting the type
   * recorded at start-upload on the asset, the version and the session in the same transaction.
   */
  private async finishUpload(caller: Caller, session: UploadSessionRow, parts: PartRef[]): Promise<CompleteAnswer> {
    const info = await this.store.head(session.storage_key).catch(storeFailure);
    if (!info) throw appError('UPLOAD_FAILED', 'The joined object is missing from storage');
    if (info.size > this.ctx.config.maxFileSize) {
      await this.store.delete(session.storage_key).catch(storeFailure);
      await quota.settleUpload(this.ctx.db, session.id);
      await this.versions.discard(this.ctx.db, session.asset_id, session.version_id);
      throw appError('UPLOAD_FAILED', `The file is ${info.size} bytes; the largest allowed is ${this.ctx.config.maxFileSize}`);
    }
    if (session.completed_at === null) await this.recheckQuota(session, info.size);
    const mimeType = await sniffType(await this.readHead(session.storage_key, info.size, SNIFF_BYTES), session.mime_type);
    const dimensions = mimeType.startsWith('image/') ? await probeImage(await this.readHead(session.storage_key, info.size, PROBE_BYTES)) : undefined;
    const answer: CompleteAnswer = { success: true, location: this.location(session), key: session.storage_key };
    const file = { mime_type: mimeType, file_size: info.size, width: dimensions?.width ?? null, height: dimensions?.height ?? null };
    const result = await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'assets', session.asset_id);
      const current = await uploads.findUploadSessionById(trx, session.id);
      if (!current) throw appError('INVALID_UPLOAD_ID', 'The upload was aborted');
      const earlier = this.earlierCompletion(current, parts);
      if (earlier) return earlier;
      const now = this.ctx.now();
      await lifecycle.markAssetReady(trx, session.asset_id, file, now);
      // seed 3, 9: the uploaded file becomes the current version, labelled under the asset's lock.
      if (current.version_id !== null) await this.versions.promote(trx, current.version_id, file, { merge: {} }, { actor: caller });
      const completion: Completion = { parts, answer };
      await uploads.markUploadCompleted(trx, session.id, { completion: JSON.stringify(completion), mimeType }, now);
      // The version's size now counts as stored (its trigger): the reservation goes in the same transaction.
      await quota.settleUpload(trx, session.id);
      return answer;
    });
    this.versions.notify(true);
    return result;
  }

  /**
   * The real size against the plan: a file larger than declared at start-upload must fit too. Refused
   * (402) before the file is recorded, and then nothing of the upload is kept, as for an oversized file.
   */
  private async recheckQuota(session: UploadSessionRow, size: number): Promise<void> {
    try {
      await quota.recheckUpload(this.ctx, session.workspace_id, session.id, size, session.reserved_bytes);
    } catch (err) {
      await this.store.delete(session.storage_key).catch(() => undefined);
      await quota.settleUpload(this.ctx.db, session.id);
      await this.versions.discard(this.ctx.db, session.asset_id, session.version_id);
      throw err;
    }
  }

  /**
   * The asset key serves the asset's current file, whichever version holds it; a version key
   * (as complete-upload answers for a version upload) serves that version's file.
   */
  /** `embed_metadata`: the asset's current metadata written into the file (./metadata-writeback.ts). */
  async download(
    caller: Caller,
    query: { key: string; workspaceId: number; embed_metadata?: boolean },
    conditions: DownloadConditions,
  ): Promise<DownloadResult> {
    const { assetId, versionId } = parseAssetKey(query.key, query.workspaceId);
    const sight = await requireSight(this.ctx.db, query.workspaceId, caller.id);
    const asset = await this.readyAsset(assetId, query.workspaceId);
    // Another's private asset is no object of a viewer's: 404 as for a missing key (domain/asset-visibility.ts).
    if (!sees(sight, asset)) throw notFound('Object');
    let file = { key: asset.storage_key, name: asset.display_file_name || asset.file_name, mime: asset.mime_type, validator: undefined as DownloadValidator | undefined };
    if (versionId !== undefined) {
      const version = await versions.findVersion(this.ctx.db, versionId);
      if (!version || version.asset_id !== asset.id || version.status !== 'ready') throw notFound('Object');
      file = { key: version.storage_key, name: version.file_name, mime: version.mime_type, validator: versionValidator(version, true) };
    } else {
      // The key and the validator come from the one current-version row, so the ETag always names the bytes sent,
      // even while a new version is being promoted; the URL follows the current version, so its dates are weak.
      const [current] = await versions.currentVersionsOf(this.ctx.db, [asset.id]);
      if (current) file = { ...file, key: current.storage_key, mime: current.mime_type, validator: versionValidator(current, false) };
    }
    if (!file.key) throw notFound('Object');
    const fileName = fileNameFor(file.name, file.mime);
    const download = { key: file.key, fileName, mimeType: file.mime, validator: file.validator };
    if (query.embed_metadata) return this.writeback.download(asset, download, conditions);
    return streamDownload(this.store, file.key, { ...download, conditions });
  }

  /** Removes the asset record and its objects, all versions' included (seed 4.3). */
  async deleteObject(caller: Caller, query: { key: string; workspaceId: number }): Promise<{ success: true }> {
    const { assetId, versionId } = parseAssetKey(query.key, query.workspaceId);
    await requireRole(this.ctx.db, query.workspaceId, caller.id, 'manager');
    if (versionId !== undefined) {
      throw appError('VALIDATION_ERROR', 'key names a version; delete a version with DELETE /dam/versions/:id', { field: 'key' });
    }
    // An 'uploading' asset has no object yet; removing its row here would orphan its multipart upload
    // (the sweep finds uploads through their session): abort-upload cancels an upload.
    const asset = await this.readyAsset(assetId, query.workspaceId);
    // Row first (its triggers queue the keys of the asset, its versions and renditions): a failure after
    // it leaves the objects for the deletion queue to retry, never a record without its file.
    await this.ctx.db.transaction().execute(async (trx) => {
      await assets.deleteAsset(trx, query.workspaceId, assetId);
      const entry = { workspaceId: query.workspaceId, actor: caller, subject: assetSubject(asset), at: this.ctx.now() };
      await ActivityService.record(trx, { ...entry, action: 'asset.delete' });
    });
    if (asset.storage_key) {
      await this.store.delete(asset.storage_key).catch(storeFailure);
      await deletions.forgetObjectDeletionsOfKey(this.ctx.db, asset.storage_key);
    }
    return { success: true };
  }

  /** A ready asset of the workspace that is not in the trash (downloading or deleting one in the trash is 404). */
  private async readyAsset(assetId: number, workspaceId: number): Promise<AssetRecord> {
    const asset = await assets.findAsset(this.ctx.db, assetId);
    if (!asset || asset.workspace_id !== workspaceId || !assets.inCatalog(asset)) throw notFound('Object');
    return asset;
  }

  async getBucketConfig(caller: Caller): Promise<{ CORSRules: CorsRule[] }> {
    this.requireInstanceAdmin(caller);
    return { CORSRules: await this.store.getCorsRules().catch(storeFailure) };
  }

  /** seed 4.3: no body; the default rules of seed 2.3 are applied. */
  async updateBucketConfig(caller: Caller): Promise<{ success: true }> {
    this.requireInstanceAdmin(caller);
    await this.store.putCorsRules(DEFAULT_CORS_RULES).catch(storeFailure);
    this.onCorsChange();
    return { success: true };
  }

  private requireInstanceAdmin(caller: Caller): void {
    if (!caller.isInstanceAdmin) throw appError('FORBIDDEN', 'Only instance admins may read or change the bucket configuration');
  }

  private async session(ref: UploadRef): Promise<UploadSessionRow> {
    const session = await uploads.findUploadSession(this.ctx.db, ref.uploadId, ref.assetId, ref.workspaceId);
    if (!session) throw appError('INVALID_UPLOAD_ID', `Unknown UploadId ${ref.uploadId} for asset ${ref.assetId} in workspace ${ref.workspaceId}`);
    return session;
  }

  /** An upload that can still take parts: the caller may upload in its workspace, and it is not completed. */
  private async openSession(caller: Caller, ref: UploadRef): Promise<UploadSessionRow> {
    await requireRole(this.ctx.db, ref.workspaceId, caller.id, 'manager');
    const session = await this.session(ref);
    if (session.completed_at !== null) throw appError('INVALID_UPLOAD_ID', `Upload ${ref.uploadId} is already completed`);
    return session;
  }

  /** Same parts again: the same answer (idempotent). Other parts for a completed upload: 409. */
  private earlierCompletion(session: UploadSessionRow, parts: PartRef[]): CompleteAnswer | undefined {
    if (session.completed_at === null || !session.completion) return undefined;
    const done = JSON.parse(session.completion) as Completion;
    if (!sameParts(done.parts, parts)) throw appError('CONFLICT', `Upload ${session.id} was already completed with other parts`);
    return done.answer;
  }

  private checkPartsList(parts: PartRef[]): void {
    if (parts.length === 0) throw appError('UPLOAD_FAILED', 'parts must list at least one part', { field: 'parts' });
    parts.forEach((part, i) => {
      const previous = parts[i - 1];
      if (previous && part.PartNumber <= previous.PartNumber) {
        throw appError('UPLOAD_FAILED', `parts[${i}]: PartNumber ${part.PartNumber} must be greater than ${previous.PartNumber} (ascending, no repeats)`, {
          field: `parts.${i}.PartNumber`,
        });
      }
    });
  }

  /** The local store knows every part: check ETags and sizes as S3 would, before touching any file. Returns the total size. */
  private async checkLocalParts(uploadId: string, parts: PartRef[]): Promise<number> {
    const stored = new Map((await uploads.listUploadParts(this.ctx.db, uploadId)).map((p) => [p.PartNumber, p]));
    let total = 0;
    parts.forEach((part, i) => {
      const have = stored.get(part.PartNumber);
      if (!have) throw appError('UPLOAD_FAILED', `Part ${part.PartNumber} was never uploaded`, { field: `parts.${i}` });
      if (normalizeEtag(have.ETag) !== normalizeEtag(part.ETag)) {
        throw appError('UPLOAD_FAILED', `Part ${part.PartNumber}: ETag ${part.ETag} does not match the uploaded part (${have.ETag})`, {
          field: `parts.${i}.ETag`,
        });
      }
      if (i < parts.length - 1 && have.Size < this.ctx.config.minPartSize) {
        throw appError('UPLOAD_FAILED', `Part ${part.PartNumber} is ${have.Size} bytes; every part but the last must be at least ${this.ctx.config.minPartSize}`, {
          field: `parts.${i}`,
        });
      }
      total += have.Size;
    });
    return total;
  }

  /** The first `bytes` bytes of an object of `size` bytes, by a range read (both stores). */
  private async readHead(key: string, size: number, bytes: number): Promise<Buffer> {
    if (size === 0) return Buffer.alloc(0);
    const body = await this.store.read(key, { start: 0, end: Math.min(size, bytes) - 1 }).catch(storeFailure);
    return readAll(body.stream);
  }

  private location(session: UploadSessionRow): string {
    const query = new URLSearchParams({ key: session.storage_key, workspaceId: String(session.workspace_id) });
    return `${this.ctx.config.publicUrl}/storage/download?${query.toString()}`;
  }

  private async assertFolderInWorkspace(folderId: number, workspaceId: number): Promise<void> {
    const ok = await folderExistsInWorkspace(this.ctx.db, workspaceId, folderId);
    if (!ok) throw appError('VALIDATION_ERROR', `folderId ${folderId} is not a folder of workspace ${workspaceId}`, { field: 'folderId' });
  }
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
