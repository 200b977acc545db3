import { createWriteStream } from 'node:fs';
import { faultOf } from '../../faults/classify.js';
import { rm } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../../context.js';
import { UNSAFE_TEXT } from '../../domain/unsafe-text.js';
import { AppError } from '../../errors.js';
import {
  DriveBadInput,
  DriveItemNotFound,
  DriveProviderError,
  DriveRateLimited,
  type DriveDownload,
  type DriveItem,
  type DriveListing,
  type DriveProvider,
  type DriveProviderId,
} from '../../drives/types.js';
import { PermanentJobError } from '../../jobs/types.js';
import * as assets from '../../repositories/assets.js';
import * as repo from '../../repositories/drive-imports.js';
import type * as connectionsRepo from '../../repositories/drives.js';
import { folderExistsInWorkspace } from '../../repositories/folders.js';
import type { Caller } from '../auth-service.js';
import type { DriveConnections } from './drive-connections.js';
import type { FolderService } from '../folder-service.js';
import { findOrCreateFolder, importRequester, importRoot } from '../import-requests.js';
import type { ServerUploadService } from '../uploads/server-upload-service.js';
import { tempFilePath } from '../work-dir.js';
import type { VersionService } from '../version-service.js';

/** A rate-limited or failing provider call is tried this often in all before the item (or the job) gives up. */
const MAX_ATTEMPTS = 5;
/** Longest wait between two attempts, whatever Retry-After says (seconds). */
const MAX_WAIT_SECONDS = 60;
/** A download that sends nothing for this long is abandoned (and retried). */
const STALL_MS = 60_000;
/** Items per listing page while walking folders (Drive's maximum). */
const PAGE_SIZE = 1000;
/** The catalog's longest folder name. */
const MAX_FOLDER_NAME = 200;
const UNSAFE = new RegExp(UNSAFE_TEXT.source, 'g');

interface Run {
  imp: repo.DriveImportRecord;
  caller: Caller;
  provider: DriveProvider;
  conn: connectionsRepo.DriveConnectionRecord;
  /** Where the selection goes (null: the top level). */
  root: number | null;
  /** `${parent}/${name}` -> folder id, so a walk creates each folder once. */
  folders: Map<string, number>;
  /** Folder id -> still live (a folder trashed during the import sends its files to the top level). */
  live: Map<number, boolean>;
}

/** The download went past the largest file size. */
class TooLarge extends Error {}

/** A folder name the catalog takes: no control or bidirectional-override characters, at most 200 characters, not blank. */
export function folderName(name: string): string {
  return name.replace(UNSAFE, '').trim().slice(0, MAX_FOLDER_NAME).trim() || '_';
}

/** A drive name as an upload's file name: a slash (allowed in Drive names) is not a path here. */
const fileName = (name: string) => name.replace(/[\\/]/g, '_');

const transient = (err: unknown) => err instanceof DriveRateLimited || (err instanceof DriveProviderError && (err.status === null || err.status >= 500));

/**
 * The job behind POST /{provider}/import (issue #16), in two phases, both safe to run again:
 *
 * 1. Planning: each selected id is looked up; a folder is recreated under the target folder (a folder of the
 *    same name already there is reused) and walked page by page, breadth first (sub-folders only when
 *    `recursive`), recording every file as a pending item and every folder as an imported one. Items are
 *    unique per import, so a planning run again after a crash adds nothing twice. Then `planned` is set.
 * 2. Files, in planning order: a file imported before into the same folder (drive_asset_links) with the same
 *    revision is skipped (unchanged); otherwise the provider streams it (a Google document as its export) into
 *    a temporary file, counted against the largest file size, and it becomes a new asset through the server-upload
 *    path, or a new version of the asset it made last time when its revision changed; either way thumbnails,
 *    the type from the bytes, embedded metadata and the activity entry by the requester follow as for any upload.
 *
 * Provider calls that are rate limited (429, 503, Retry-After) or fail with a 5xx are retried with backoff
 * (Retry-After when given, else 1, 2, 4, 8 s, at most a minute) up to MAX_ATTEMPTS times; an item that still
 * fails with a 5xx is failed, a rate limit that does not lift sends the whole job back to the queue, which
 * retries it later from where it stopped. Other provider errors fail only their item. A connection that needs
 * re-authorisation, was removed or now belongs to another account fails the import.
 */
export class DriveImportRunner {
  constructor(
    private readonly ctx: AppContext,
    private readonly connections: DriveConnections,
    private readonly uploads: ServerUploadService,
    private readonly versions: VersionService,
    private readonly folderService: FolderService,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async run(importId: number): Promise<void> {
    const { db } = this.ctx;
    const imp = await repo.findImport(db, importId);
    if (!imp || imp.status === 'succeeded' || imp.status === 'failed') return;
    await repo.updateImport(db, importId, { status: 'running' }, this.ctx.now());
    try {
      const run = await this.prepare(imp);
      if (imp.planned !== 1) {
        await this.plan(run);
        await repo.updateImport(db, importId, { planned: 1 }, this.ctx.now());
      }
      for (;;) {
        const batch = await repo.pendingFiles(db, importId, 50);
        if (batch.length === 0) break;
        // Disconnected, needing re-authorisation or connected to another account meanwhile: the import stops here.
        run.conn = await this.currentConnection(imp, run.provider, run.caller.id);
        for (const item of batch) await this.importFile(run, item);
      }
      await repo.updateImport(db, importId, { status: 'succeeded', error: null }, this.ctx.now());
    } catch (err) {
      const final = err instanceof PermanentJobError || (err instanceof AppError && ['DRIVE_REAUTH_REQUIRED', 'DRIVE_NOT_CONNECTED', 'DRIVE_NOT_CONFIGURED'].includes(err.code));
      const message = err instanceof Error ? err.message : String(err);
      await repo.updateImport(db, importId, { status: final ? 'running' : 'queued', error: final ? message : `${message}; retrying` }, this.ctx.now());
      if (final) throw new PermanentJobError(message);
      throw err;
    }
  }

  /** The job failed for good: the import says so. Files imported before stay. */
  async giveUp(importId: number, error: string): Promise<void> {
    const imp = await repo.findImport(this.ctx.db, importId);
    await repo.updateImport(this.ctx.db, importId, { status: 'failed', error: imp?.error?.replace(/; retrying$/, '') ?? error }, this.ctx.now());
  }

  private async prepare(imp: repo.DriveImportRecord): Promise<Run> {
    const { db } = this.ctx;
    const caller = await importRequester(db, imp);
    const provider = this.connections.provider(imp.provider as DriveProviderId);
    const conn = await this.currentConnection(imp, provider, caller.id);
    const root = await importRoot(db, imp);
    return { imp, caller, provider, conn, root, folders: new Map(), live: new Map() };
  }

  /** The requester's connection, still usable and still to the account the ids belong to. */
  private async currentConnection(imp: repo.DriveImportRecord, provider: DriveProvider, userId: number): Promise<connectionsRepo.DriveConnectionRecord> {
    const conn = await this.connections.connection(userId, provider);
    if (conn.account_id !== imp.account_id) {
      throw new PermanentJobError(`${provider.name} is now connected to another account than the one this import was asked from`);
    }
    return conn;
  }

  /** A provider call with a live token, retried with backoff while rate limited or failing with a 5xx. */
  private async call<T>(run: Run, fn: (token: string) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.connections.withToken(run.conn, run.provider, fn);
      } catch (err) {
        if (!transient(err) || attempt >= MAX_ATTEMPTS) throw err;
        const said = err instanceof DriveRateLimited ? err.retryAfter : null;
        await this.sleep(Math.min(said ?? 2 ** (attempt - 1), MAX_WAIT_SECONDS) * 1000);
      }
    }
  }

  private async plan(run: Run): Promise<void> {
    const ids = JSON.parse(run.imp.requested_ids) as string[];
    const walked = new Set<string>();
    for (const id of ids) {
      let item: DriveItem;
      try {
        item = await this.call(run, (token) => run.provider.item(token, id));
      } catch (err) {
        if (!(err instanceof DriveItemNotFound) && !(err instanceof DriveBadInput)) throw err;
        await this.record(run, { id, name: id, isFolder: false }, run.root, '', { status: 'failed', reason: 'not_found', message: err.message });
        continue;
      }
      if (item.isFolder) await this.walk(run, item, walked);
      else await this.record(run, item, run.root, '');
    }
  }

  /** A selected folder and what it holds, breadth first; `walked` keeps a folder reached twice from being walked twice. */
  private async walk(run: Run, top: DriveItem, walked: Set<string>): Promise<void> {
    const queue: { item: DriveItem; parent: number | null; path: string }[] = [{ item: top, parent: run.root, path: '' }];
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { item, parent, path: parentPath } = next;
      if (walked.has(item.id)) continue;
      walked.add(item.id);
      const folderId = await this.folder(run, item.name, parent);
      await this.record(run, item, folderId, parentPath, { status: 'imported', reason: null, message: null });
      const here = parentPath ? `${parentPath}/${item.name}` : item.name;
      let pageToken: string | null = null;
      do {
        const token: string | null = pageToken;
        const page: DriveListing = await this.call(run, (t) => run.provider.list(t, { folder: item.id, query: null, pageToken: token, pageSize: PAGE_SIZE }));
        for (const child of page.items) {
          if (!child.isFolder) await this.record(run, child, folderId, here);
          else if (run.imp.recursive === 1) queue.push({ item: child, parent: folderId, path: here });
        }
        pageToken = page.nextPageToken;
      } while (pageToken);
    }
  }

  private async record(
    run: Run,
    item: Pick<DriveItem, 'id' | 'name' | 'isFolder'> & Partial<DriveItem>,
    folderId: number | null,
    itemPath: string,
    outcome: { status: 'imported' | 'failed'; reason: string | null; message: string | null } | null = null,
  ): Promise<void> {
    await repo.insertItem(this.ctx.db, {
      import_id: run.imp.id,
      file_id: item.id,
      kind: item.isFolder ? 'folder' : 'file',
      name: item.name,
      path: itemPath,
      mime_type: item.mimeType ?? null,
      size: item.size ?? null,
      revision: item.revision ?? null,
      export_mime_type: item.exportAs?.mimeType ?? null,
      export_extension: item.exportAs?.extension ?? null,
      unsupported: item.unsupported ?? null,
      folder_id: folderId,
      status: outcome?.status ?? 'pending',
      reason: outcome?.reason ?? null,
      message: outcome?.message ?? null,
      asset_id: null,
    });
  }

  /** The folder `name` under `parent`: one this import made, an existing one of that name, or a new one. */
  private async folder(run: Run, rawName: string, parent: number | null): Promise<number> {
    const name = folderName(rawName);
    const key = `${parent ?? ''}/${name}`;
    const known = run.folders.get(key);
    if (known !== undefined) return known;
    const id = await findOrCreateFolder(this.ctx.db, this.folderService, run.caller, run.imp.workspace_id, parent, name);
    run.folders.set(key, id);
    return id;
  }

  /** Where a planned file goes now: its folder, or the top level when that folder was deleted or trashed meanwhile. */
  private async target(run: Run, folderId: number | null): Promise<number | null> {
    if (folderId === null) return null;
    let live = run.live.get(folderId);
    if (live === undefined) {
      live = await folderExistsInWorkspace(this.ctx.db, run.imp.workspace_id, folderId);
      run.live.set(folderId, live);
    }
    return live ? folderId : null;
  }

  private async importFile(run: Run, item: repo.DriveImportItemRecord): Promise<void> {
    const { db } = this.ctx;
    const finish = (outcome: Parameters<typeof repo.finishItem>[2]) => repo.finishItem(db, item.id, outcome);
    if (item.unsupported) return finish({ status: 'skipped', reason: 'unsupported', message: item.unsupported });
    const maxFile = this.ctx.config.maxFileSize;
    if (item.size !== null && item.size > maxFile) {
      return finish({ status: 'skipped', reason: 'too_large', message: `${item.size} bytes; the largest file is ${maxFile}` });
    }
    const folderId = await this.target(run, item.folder_id);
    const key: repo.LinkKey = { workspace_id: run.imp.workspace_id, provider: run.imp.provider, account_id: run.imp.account_id, file_id: item.file_id, folder_key: folderId ?? 0 };
    const link = await repo.findLink(db, key);
    const linked = link ? await assets.findAsset(db, link.asset_id) : undefined;
    const existing = linked && assets.inCatalog(linked) ? linked : undefined;
    if (existing && link && item.revision !== null && link.revision === item.revision) {
      return finish({ status: 'skipped', reason: 'unchanged', message: 'Imported into this folder before, unchanged since', asset_id: existing.id });
    }

    const file = await tempFilePath(this.ctx.config.dataDir, 'drive');
    try {
      let download: { mimeType: string; fileName: string; size: number };
      try {
        download = await this.call(run, async (token) => {
          const dl = await run.provider.download(token, driveItemOf(item));
          return { mimeType: dl.mimeType, fileName: dl.fileName, size: await spool(dl, file, maxFile) };
        });
      } catch (err) {
        if (err instanceof TooLarge) return finish({ status: 'skipped', reason: 'too_large', message: err.message });
        if (err instanceof DriveItemNotFound) return finish({ status: 'failed', reason: 'not_found', message: err.message });
        if (err instanceof DriveProviderError || err instanceof DriveBadInput) return finish({ status: 'failed', reason: 'provider_error', message: err.message });
        throw err;
      }
      const spooled = { path: file, size: download.size, filename: fileName(download.fileName), mimetype: download.mimeType.split(';')[0]!.trim() };
      let assetId: number;
      try {
        if (existing) {
          await this.versions.upload(run.caller, existing.id, spooled, undefined);
          assetId = existing.id;
        } else {
          assetId = (await this.uploads.upload(run.caller, { file: spooled, workspaceId: run.imp.workspace_id, ...(folderId !== null ? { folder_id: folderId } : {}) })).id;
        }
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'S3_ERROR' || faultOf(err)) throw err;
        if (err.code === 'FORBIDDEN' || (err.code === 'NOT_FOUND' && !existing)) throw new PermanentJobError(`${run.imp.requested_by_name} may no longer add files to this workspace`);
        return finish({ status: 'failed', reason: 'rejected', message: err.message });
      }
      await repo.saveLink(db, { ...key, asset_id: assetId, revision: item.revision, imported_at: this.ctx.now() });
      return finish({ status: 'imported', reason: existing ? 'new_version' : 'new', message: null, asset_id: assetId, bytes: download.size });
    } finally {
      await rm(file, { force: true });
    }
  }
}

/** The planned item as the provider's item again (what download needs). */
function driveItemOf(item: repo.DriveImportItemRecord): DriveItem {
  return {
    id: item.file_id,
    name: item.name,
    isFolder: false,
    mimeType: item.mime_type,
    size: item.size,
    modifiedAt: null,
    thumbnailUrl: null,
    revision: item.revision,
    exportAs: item.export_mime_type && item.export_extension ? { mimeType: item.export_mime_type, extension: item.export_extension } : null,
    unsupported: item.unsupported,
  };
}

/**
 * Streams a download into `file`, counting bytes: past `maxBytes` it stops (TooLarge), and a stream that sends
 * nothing for STALL_MS is abandoned. A stream that breaks is a DriveProviderError without status, so the
 * caller's retry takes it again from the start.
 */
async function spool(download: DriveDownload, file: string, maxBytes: number): Promise<number> {
  let written = 0;
  const timer = setTimeout(() => counter.destroy(new DriveProviderError(`${download.fileName}: the download stalled`, null)), STALL_MS);
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      written += chunk.length;
      if (written > maxBytes) return done(new TooLarge(`More than the ${maxBytes} bytes of the largest file`));
      timer.refresh();
      done(null, chunk);
    },
  });
  try {
    await pipeline(download.stream, counter, createWriteStream(file));
  } catch (err) {
    if (err instanceof TooLarge || err instanceof DriveProviderError) throw err;
    throw new DriveProviderError(`${download.fileName}: the download broke off (${(err as Error).message})`, null);
  } finally {
    clearTimeout(timer);
  }
  return written;
}
