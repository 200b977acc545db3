import { createWriteStream } from 'node:fs';
import { faultOf } from '../../faults/classify.js';
import { describeFault } from '../../faults/monitor.js';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type yauzl from 'yauzl';
import mime from 'mime-types';
import type { AppContext } from '../../context.js';
import type { ZipEntryOutcome } from '../../db/schema.js';
import { AppError } from '../../errors.js';
import { PermanentJobError } from '../../jobs/types.js';
import * as assets from '../../repositories/assets.js';
import * as repo from '../../repositories/zip-imports.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { sanitizeSegment } from '../../zip/entry-names.js';
import { LocalRecords, RATIO_FLOOR, ZipArchive, ZipInvalidError, ZipLimitError, type ZipEntryInfo } from '../../zip/zip-reader.js';
import type { Caller } from '../auth-service.js';
import * as quota from '../quota-service.js';
import type { FolderService } from '../folder-service.js';
import { importRequester, importRoot } from '../import-requests.js';
import type { ServerUploadService } from '../uploads/server-upload-service.js';
import { tempFilePath } from '../work-dir.js';
import { ImportFolders } from './zip-import-folders.js';

/** The error of an attempt that failed on the way (the store, the database): the job is retried. */
const TRANSIENT = 'Reading the archive or storing a file failed; the import is retried';
const GAVE_UP = 'Reading the archive or storing a file kept failing; the import stopped after its retries';

/** Longest folder name (the catalog's limit for names). */
const MAX_FOLDER_NAME = 200;

interface Outcome {
  outcome: ZipEntryOutcome;
  reason?: string;
  message?: string;
  assetId?: number;
  folderId?: number | null;
}

/** One run of an import: who, where, and what it has spent. */
interface Run {
  imp: repo.ZipImportRecord;
  caller: Caller;
  archive: ZipArchive;
  /** Where the archive's top level goes (null: the workspace's top level). */
  root: number | null;
  /** Bytes inflated by this import so far, this run and earlier ones. */
  bytes: number;
  /** The most bytes this import may inflate in all: DAM_ZIP_MAX_UNCOMPRESSED, or less when the archive's ratio cap is lower. */
  cap: number;
  /** Why `cap` is what it is, for the entries it stops. */
  capMessage: string;
  /** Directory path (sanitised segments joined by /) -> its folder. */
  folders: Map<string, number | null>;
}

/**
 * The job behind POST /zip/extract (issue #14). Entries are taken in archive order, one at a time:
 * a directory becomes a folder (a folder of that name already under the same parent is reused), a
 * file is inflated to a temporary file under the limits and then goes through the server-upload
 * path (ServerUploadService: sniffed type, dimensions, v1, thumbnails, the asset.upload activity by
 * the requester). Hostile entries are skipped and reported, never followed. What became of each
 * entry is recorded once (`(import, index)`), so a run after a crash or a retry goes on where the
 * last one stopped; an entry whose asset was created but not yet recorded when the process died is
 * imported again (one duplicate at most per crash).
 *
 * Amplification (issue #28): the central directory is read whole first, and an archive whose
 * entries overlap fails before anything is written (ZIP_INVALID's reason). All entries together
 * inflate to at most DAM_ZIP_MAX_RATIO times the archive's size (at least 1 MiB) and
 * DAM_ZIP_MAX_UNCOMPRESSED; an entry that no longer fits is skipped (`limit`), as one past the
 * import's byte budget always was. Each file's declared size is reserved from the workspace's
 * storage quota before it is inflated (yauzl and the reader's guard cut the stream at that size),
 * so an import never writes more than the plan allows; an entry that does not fit is skipped
 * (`quota`) and the next, smaller ones may still fit.
 */
export class ZipImportRunner {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly uploads: ServerUploadService,
    private readonly folderService: FolderService,
  ) {}

  /** Each run's folders by parent and name, read once per parent (zip-import-folders.ts). */
  private readonly runFolders = new WeakMap<Run, ImportFolders>();

  async run(importId: number): Promise<void> {
    const { db } = this.ctx;
    const imp = await repo.findImport(db, importId);
    if (!imp || imp.status === 'succeeded' || imp.status === 'failed') return;
    await repo.updateImport(db, importId, { status: 'running' }, this.ctx.now());
    try {
      const caller = await importRequester(db, imp);
      const source = imp.source_asset_id === null ? undefined : await assets.findAsset(db, imp.source_asset_id);
      if (!source || !assets.inCatalog(source) || !source.storage_key) throw new PermanentJobError('The archive was deleted before it was imported');
      await this.checkLayout(source.storage_key, source.file_size);
      const archive = await ZipArchive.open(this.store, source.storage_key, source.file_size);
      try {
        const root = await importRoot(db, imp);
        const run: Run = { imp, caller, archive, root, bytes: imp.bytes_written, ...this.capOf(archive), folders: new Map([['', root]]) };
        await repo.updateImport(db, importId, { total_entries: archive.entryCount }, this.ctx.now());
        const recorded = await repo.recordedEntries(db, importId);
        for await (const { info, entry } of archive.entries()) {
          if (recorded.has(info.index)) continue;
          const result = await this.importEntry(run, info, entry);
          await repo.recordEntry(db, {
            import_id: importId,
            entry_index: info.index,
            name: info.name,
            kind: info.isDir ? 'directory' : 'file',
            outcome: result.outcome,
            reason: result.reason ?? null,
            message: result.message ?? null,
            asset_id: result.assetId ?? null,
            folder_id: result.folderId ?? null,
          });
        }
      } finally {
        archive.close();
      }
      await repo.updateImport(db, importId, { status: 'succeeded', error: null }, this.ctx.now());
    } catch (err) {
      const final = err instanceof PermanentJobError || err instanceof ZipInvalidError;
      // Shown to the workspace's members: our own words, never a provider's or an internal message.
      let message = TRANSIENT;
      const fault = faultOf(err);
      // issue #37: a full disk, the database or the store away: the job waits for it.
      if (fault) message = `Waiting: ${describeFault(fault)}; the import goes on by itself`;
      else if (err instanceof ZipInvalidError) message = `The archive is corrupt: ${err.message}`;
      else if (err instanceof PermanentJobError) message = err.message;
      await repo.updateImport(db, importId, { status: final ? 'running' : 'queued', error: message }, this.ctx.now());
      if (final) throw new PermanentJobError(message);
      throw err;
    }
  }

  /** The job failed for good: the import says so. Entries imported before stay. */
  async giveUp(importId: number, error: string): Promise<void> {
    const imp = await repo.findImport(this.ctx.db, importId);
    const reason = imp?.error && imp.error !== TRANSIENT ? imp.error : imp?.error === TRANSIENT ? GAVE_UP : error;
    await repo.updateImport(this.ctx.db, importId, { status: 'failed', error: reason }, this.ctx.now());
  }

  /**
   * Reads the central directory once before anything is imported: more entries than an import takes
   * (the archive may have changed since it was checked) or entries that overlap fail the import.
   */
  private async checkLayout(key: string, size: number): Promise<void> {
    const archive = await ZipArchive.open(this.store, key, size);
    try {
      const max = this.ctx.config.zip.maxEntries;
      if (archive.entryCount > max) throw new PermanentJobError(`The archive has ${archive.entryCount} entries; an import takes at most ${max}`);
      const records = new LocalRecords();
      for await (const { info, entry } of archive.entries()) records.add(info, entry);
      records.assertDisjoint();
    } finally {
      archive.close();
    }
  }

  private capOf(archive: ZipArchive): Pick<Run, 'cap' | 'capMessage'> {
    const { maxUncompressed, maxRatio } = this.ctx.config.zip;
    const ratioCap = archive.maxInflated(maxRatio);
    if (ratioCap >= maxUncompressed) return { cap: maxUncompressed, capMessage: `The import may write ${maxUncompressed} bytes in all` };
    return {
      cap: ratioCap,
      capMessage:
        `The archive is ${archive.size} bytes; all its entries together may inflate to ${maxRatio} times that ` +
        `(at least ${RATIO_FLOOR} bytes), ${ratioCap} bytes`,
    };
  }

  private async importEntry(run: Run, info: ZipEntryInfo, entry: yauzl.Entry): Promise<Outcome> {
    if (info.problem) return { outcome: 'skipped', reason: info.problem, message: PROBLEM_MESSAGES[info.problem] };
    const segments = info.name.split('/').filter((s) => s !== '');
    if (info.isDir) return { outcome: 'imported', folderId: await this.folder(run, segments) };
    const maxFile = this.ctx.config.maxFileSize;
    if (info.size > maxFile) return { outcome: 'skipped', reason: 'too_large', message: `Declares ${info.size} bytes; the largest file is ${maxFile}` };
    const budget = run.cap - run.bytes;
    if (info.size > budget) return { outcome: 'skipped', reason: 'limit', message: `${run.capMessage}; ${Math.max(budget, 0)} are left` };
    const fileName = sanitizeSegment(segments[segments.length - 1] ?? '');
    const file = await tempFilePath(this.ctx.config.dataDir, 'zip');
    try {
      const inflated = await this.inflate(run, info, entry, file);
      if ('outcome' in inflated) return inflated;
      const folderId = await this.folder(run, segments.slice(0, -1));
      try {
        const asset = await this.uploads.upload(run.caller, {
          file: { path: file, size: inflated.size, filename: fileName, mimetype: mime.lookup(fileName) || 'application/octet-stream' },
          workspaceId: run.imp.workspace_id,
          ...(folderId !== null ? { folder_id: folderId } : {}),
        });
        return { outcome: 'imported', assetId: asset.id, folderId };
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'S3_ERROR' || faultOf(err)) throw err;
        if (err.code === 'FORBIDDEN' || err.code === 'NOT_FOUND') throw new PermanentJobError(`${run.imp.requested_by_name} may no longer add files to this workspace`);
        // Another upload took the room meanwhile.
        if (err.code === 'QUOTA_EXCEEDED') return { outcome: 'skipped', reason: 'quota', message: err.message };
        return { outcome: 'failed', reason: 'error', message: err.message };
      }
    } finally {
      await rm(file, { force: true });
    }
  }

  /**
   * Inflates the entry to `file` under a reservation of its declared size from the workspace's
   * storage quota, and never past that size (yauzl stops an entry that yields more than it
   * declares, and so does the reader's guard): an entry that does not fit is refused before its
   * first byte, not after it was written. The reservation is released once the file is written:
   * the upload then reserves its real size itself, so a file is never counted twice.
   */
  private async inflate(run: Run, info: ZipEntryInfo, entry: yauzl.Entry, file: string): Promise<{ size: number } | Outcome> {
    const workspaceId = run.imp.workspace_id;
    let reserved: number;
    try {
      // The asset count is asked here too, so that a full workspace costs no inflating at all.
      await quota.assertAssets(this.ctx, workspaceId);
      reserved = await quota.reserveStorage(this.ctx, workspaceId, info.size);
    } catch (err) {
      if (err instanceof AppError && err.code === 'QUOTA_EXCEEDED') return { outcome: 'skipped', reason: 'quota', message: err.message };
      throw err;
    }
    let written = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        written += chunk.length;
        done(null, chunk);
      },
    });
    try {
      const stream = await run.archive.openEntry(entry, info, { maxBytes: info.size, maxRatio: this.ctx.config.zip.maxRatio });
      await pipeline(stream, counter, createWriteStream(file));
    } catch (err) {
      if (!(err instanceof ZipLimitError) && !(err instanceof ZipInvalidError)) throw err;
      await this.spend(run, written);
      if (err instanceof ZipInvalidError) return { outcome: 'failed', reason: 'corrupt', message: err.message };
      return { outcome: 'skipped', reason: 'limit', message: err.message };
    } finally {
      await quota.releaseStorage(this.ctx, workspaceId, reserved);
    }
    await this.spend(run, written);
    return { size: written };
  }

  private async spend(run: Run, bytes: number): Promise<void> {
    run.bytes += bytes;
    await repo.updateImport(this.ctx.db, run.imp.id, { bytes_written: run.bytes }, this.ctx.now());
  }

  /** The folder of a directory path under the import's root, created (or found by name) one level at a time. */
  private async folder(run: Run, segments: string[]): Promise<number | null> {
    let parent = run.root;
    let key = '';
    for (const segment of segments) {
      const name = sanitizeSegment(segment).slice(0, MAX_FOLDER_NAME).trim() || '_';
      key = `${key}/${name}`;
      const known = run.folders.get(key);
      if (known !== undefined) {
        parent = known;
        continue;
      }
      let byName = this.runFolders.get(run);
      if (!byName) this.runFolders.set(run, (byName = new ImportFolders(this.ctx.db, this.folderService, run.caller, run.imp.workspace_id)));
      const id = await byName.findOrCreate(parent, name);
      run.folders.set(key, id);
      parent = id;
    }
    return parent;
  }
}

const PROBLEM_MESSAGES: Record<NonNullable<ZipEntryInfo['problem']>, string> = {
  unsafe_name: 'The name leaves the archive (.., an absolute path, a drive letter, a backslash) or holds control characters',
  symlink: 'Symbolic links are not followed',
  special_file: 'Not a regular file (a device, a FIFO or a socket)',
  encrypted: 'Encrypted entries are not extracted',
  unsupported_compression: 'Compressed by a method other than stored or deflated',
};
