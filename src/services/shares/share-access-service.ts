import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.js';
import { fileTypeOf } from '../../domain/file-types.js';
import {
  DOWNLOAD_GRANT_SECONDS,
  USER_AGENT_CHARS,
  LINK_UNLOCK_FAILURES_ALLOWED,
  UNLOCK_FAILURES_ALLOWED,
  UNLOCK_WINDOW_SECONDS,
  archivePath,
  downloadsLeft,
  shareStatus,
} from '../../domain/shares.js';
import { appError, notFound } from '../../errors.js';
import type { MediaGrant, MediaLinks } from '../../media/links.js';
import * as items from '../../repositories/share-items.js';
import * as repo from '../../repositories/shares.js';
import type { PublicShareView, ShareItemView, UnlockView } from '../../contracts/shares.js';
import type { ObjectStore } from '../../storage/object-store.js';
import { contentDispositionAttachment } from '../../domain/content-disposition.js';
import { archiveStream, type ArchiveItem } from '../../zip/archive-stream.js';
import { fileNameFor, streamDownload, versionValidator, type DownloadConditions, type DownloadResult } from '../downloads.js';
import { pageWindow, type PageRequest } from '../catalog-access.js';
import { DownloadGrantSigner, grantCookie } from './download-grants.js';
import { verifyPassword } from '../passwords.js';
import { ShareTokenSigner } from './share-tokens.js';
import { addressKey } from '../../domain/client-address.js';

/** Who is asking: what the access log keeps. */
export interface ShareClient {
  address: string;
  userAgent: string | undefined;
  /** The share-access token sent (X-Share-Token or ?st=), if any. */
  token: string | undefined;
  /** The download grant sent (X-Download-Grant, or the dam_dl cookie), if any: a counted download being resumed. */
  downloadGrant?: string | undefined;
}

/** One body for an unknown, a revoked and an expired key (and a link whose folder, collection or version is gone). */
const GONE = 'Shared link not found: it does not exist, has expired or was revoked';

/** Rows read per query while a ZIP is written. */
const ZIP_BATCH = 500;

interface OpenLink {
  link: repo.ShareRecord;
  name: string | null;
}

/**
 * Shared links, the public side (issue #14): what anyone with the key may do without an account.
 * Every operation first finds the link (404 unless it exists, is neither revoked nor expired, and its
 * folder, collection or version still exists outside the trash), then, for a link with a password,
 * requires a share-access token issued by `unlock` for the link's current password (401
 * SHARE_PASSWORD_REQUIRED). Items are the link's live assets only (repositories/share-items.ts), so
 * an id outside the link is 404 however it was guessed.
 */
export class ShareAccessService {
  private readonly tokens: ShareTokenSigner;
  private readonly grants: DownloadGrantSigner;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly links: MediaLinks,
  ) {
    this.tokens = new ShareTokenSigner(ctx.secrets);
    this.grants = new DownloadGrantSigner(ctx.secrets);
  }

  /** One page of the link's items; reading page 1 counts a visit (`countable`: false for HEAD). */
  async view(key: string, q: PageRequest, client: ShareClient, countable: boolean): Promise<PublicShareView> {
    const { link, name } = await this.open(key, client);
    const w = pageWindow(q);
    const { items: rows, total } = await items.listShareItems(this.ctx.db, link, w);
    const now = this.ctx.now();
    if (w.page === 1 && countable) {
      await repo.countView(this.ctx.db, link.id, now);
      await this.log(link, 'view', client, null);
    }
    const paths = await this.folderPaths(link);
    const allowed = link.allow_download === 1;
    const base = `${this.ctx.config.publicUrl}/shared/public/${link.key}`;
    return {
      name,
      description: link.description,
      target: link.target_kind,
      expires_at: link.expires_at,
      allow_download: allowed,
      downloads_left: downloadsLeft(link),
      zip_url: allowed ? `${base}/zip` : null,
      items: rows.map((row) => this.itemView(row, paths, allowed ? `${base}/assets/${row.id}/download` : null, { shareId: link.id })),
      page: w.page,
      per_page: w.per_page,
      total,
    };
  }

  /**
   * The right password answers a share-access token. Each try is logged; wrong ones are throttled per
   * link and address in the database (so every API process sees them): the attempt is recorded as
   * failed under the link's row lock before its password is checked, so concurrent tries cannot pass
   * the limit together, and turned into `unlock` when the password is right.
   */
  async unlock(key: string, password: string, client: ShareClient): Promise<UnlockView> {
    const { link } = await this.find(key);
    const now = this.ctx.now();
    const expiresAt = now + this.ctx.config.shares.tokenTtl;
    // A link without a password needs no token; one is answered anyway so a client need not tell the two apart.
    if (link.password_hash === null) return { token: await this.tokens.sign(link.id, '', expiresAt), expires_at: expiresAt };
    const attempt = await this.ctx.db.transaction().execute(async (trx) => {
      await this.ctx.database.support.lockRow(trx, 'shared_links', link.id);
      const recent = await repo.unlockFailuresSince(trx, link.id, now - UNLOCK_WINDOW_SECONDS, LINK_UNLOCK_FAILURES_ALLOWED);
      // The whole link first: many addresses together must not guess on (issue #28).
      if (recent.length >= LINK_UNLOCK_FAILURES_ALLOWED) {
        const retryAfter = Math.max(1, recent[recent.length - 1]!.created_at + UNLOCK_WINDOW_SECONDS - now);
        throw appError(
          'RATE_LIMITED',
          `This link is locked after ${LINK_UNLOCK_FAILURES_ALLOWED} wrong passwords within ${UNLOCK_WINDOW_SECONDS / 60} minutes; retry in ${retryAfter} s`,
          { retry_after: retryAfter },
        );
      }
      // Then this client's network: an IPv6 /64 counts as one address (issue #28).
      const network = addressKey(client.address);
      const mine = recent.filter((r) => r.address !== null && addressKey(r.address) === network);
      const failures = { count: mine.length, oldest: mine.length ? mine[mine.length - 1]!.created_at : null };
      if (failures.count >= UNLOCK_FAILURES_ALLOWED) {
        const retryAfter = Math.max(1, (failures.oldest ?? now) + UNLOCK_WINDOW_SECONDS - now);
        throw appError(
          'RATE_LIMITED',
          `Too many wrong passwords for this link from this address: the limit is ${UNLOCK_FAILURES_ALLOWED} per ` +
            `${UNLOCK_WINDOW_SECONDS / 60} minutes; retry in ${retryAfter} s`,
          { retry_after: retryAfter },
        );
      }
      const id = await repo.insertAccess(trx, this.accessRow(link, 'unlock-failed', client, null));
      return { id, failures: failures.count + 1 };
    });
    if (!(await verifyPassword(password, link.password_hash))) {
      const left = UNLOCK_FAILURES_ALLOWED - attempt.failures;
      throw appError('SHARE_PASSWORD_WRONG', `The password of this shared link is wrong; ${left} more ${left === 1 ? 'try' : 'tries'} from this address before a pause`, {
        attempts_left: left,
      });
    }
    await repo.markUnlocked(this.ctx.db, attempt.id);
    return { token: await this.tokens.sign(link.id, link.password_hash, expiresAt), expires_at: expiresAt };
  }

  /**
   * Streams one item (Range supported). Each download is counted once, whatever range it asks for (issue #28:
   * counting only requests from the first byte let `Range: bytes=1-` fetch a limited file without end): a GET
   * without a valid grant for this file takes one slot atomically against max_downloads, is logged, and answers
   * a download grant (X-Download-Grant and a cookie); a request carrying that grant is the same download resumed
   * (or fetched again within the grant's day), not counted, and still served once the limit is reached.
   * A 304 (the client's copy is current) sends no file and counts nothing.
   */
  async download(key: string, assetId: number, client: ShareClient, conditions: DownloadConditions, countable: boolean): Promise<DownloadResult> {
    const { link } = await this.openForDownload(key, client);
    const item = await items.findShareItem(this.ctx.db, link, assetId);
    if (!item) throw notFound('Item of this shared link');
    const now = this.ctx.now();
    const subject = { linkId: link.id, assetId: item.id, versionId: item.version_id };
    const resumed = client.downloadGrant !== undefined && (await this.grants.verify(client.downloadGrant, subject, now));
    // Checked before the file is opened; the count below decides a race for the last slot.
    if (!resumed && downloadsLeft(link) === 0) throw this.limitReached(link);
    const result = await streamDownload(this.store, item.storage_key, {
      fileName: fileNameFor(item.display_file_name, item.mime_type),
      mimeType: item.mime_type,
      conditions,
      // Only a version link always shows the same version; the others show each asset's current one.
      validator: versionValidator({ id: item.version_id, sha256: item.version_sha256, created_at: item.version_created_at }, link.target_kind === 'version'),
    });
    if (countable && !resumed && result.status !== 304) {
      if (!(await repo.countDownload(this.ctx.db, link.id, now))) {
        result.stream.destroy();
        throw this.limitReached(link);
      }
      await this.log(link, 'download', client, item.id);
      const grant = await this.grants.sign(subject, now + DOWNLOAD_GRANT_SECONDS);
      result.headers['x-download-grant'] = grant;
      result.headers['set-cookie'] = grantCookie(this.ctx.config.publicUrl, `/shared/public/${link.key}/assets/${item.id}/download`, grant, DOWNLOAD_GRANT_SECONDS);
    }
    return result;
  }

  /** Every item as one ZIP, streamed as written; counts one download (none for a link without items). */
  async zip(
    key: string,
    client: ShareClient,
    log: FastifyBaseLogger,
    countable: boolean,
  ): Promise<{ headers: Record<string, string>; stream: Readable | null }> {
    const { link, name } = await this.openForDownload(key, client);
    // No grant resumes a ZIP: it is written anew for every request and answers no ranges, so each one counts.
    if (downloadsLeft(link) === 0) throw this.limitReached(link);
    const headers = {
      'content-type': 'application/zip',
      'content-disposition': contentDispositionAttachment(`${name ?? 'Shared files'}.zip`),
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
    };
    if (!countable) return { headers, stream: null };
    if ((await items.countShareItems(this.ctx.db, link)) > 0) {
      if (!(await repo.countDownload(this.ctx.db, link.id, this.ctx.now()))) throw this.limitReached(link);
      await this.log(link, 'zip', client, null);
    }
    const paths = await this.folderPaths(link);
    return { headers, stream: archiveStream(this.store, this.archiveItems(link, paths), log) };
  }

  /** The link by its key, if it may be shown. */
  private async find(key: string): Promise<OpenLink> {
    const link = await repo.findShareByKey(this.ctx.db, key);
    const now = this.ctx.now();
    if (!link || shareStatus(link, now) !== 'active') throw appError('NOT_FOUND', GONE);
    const target = await items.liveTarget(this.ctx.db, link);
    if (!target) throw appError('NOT_FOUND', GONE);
    return { link, name: target.name };
  }

  /** find(), then the share-access token of a password-protected link. */
  private async open(key: string, client: ShareClient): Promise<OpenLink> {
    const opened = await this.find(key);
    await this.requireToken(opened.link, client);
    return opened;
  }

  private async openForDownload(key: string, client: ShareClient): Promise<OpenLink> {
    const opened = await this.open(key, client);
    if (opened.link.allow_download !== 1) throw appError('SHARE_DOWNLOADS_DISABLED');
    return opened;
  }

  private async requireToken(link: repo.ShareRecord, client: ShareClient): Promise<void> {
    if (link.password_hash === null) return;
    if (client.token && (await this.tokens.verify(client.token, link.id, link.password_hash, this.ctx.now()))) return;
    throw appError(
      'SHARE_PASSWORD_REQUIRED',
      client.token
        ? 'The share-access token is invalid or has expired (or the password changed); unlock the link again'
        : 'This shared link is protected by a password: unlock it with POST /shared/public/{key}/unlock and send the token',
    );
  }

  private limitReached(link: repo.ShareRecord) {
    return appError('SHARE_DOWNLOAD_LIMIT', `This shared link allowed ${link.max_downloads} downloads, and they have all been made`);
  }

  /** `grant`: the link's own, so its media URLs stop serving with it (issue #28, services/media-grants.ts). */
  private itemView(row: items.ShareItemRow, paths: Map<number, string[]>, downloadUrl: string | null, grant: MediaGrant): ShareItemView {
    return {
      id: row.id,
      display_file_name: row.display_file_name,
      file_type: fileTypeOf(row.mime_type),
      mime_type: row.mime_type,
      file_size: row.file_size,
      width: row.width,
      height: row.height,
      version: `v${row.number ?? 0}`,
      folder_path: (row.folder_id !== null && paths.get(row.folder_id)) || [],
      thumbnail_url: row.thumbnail_key ? this.links.signed(row.version_id, 'thumbnail', grant) : this.links.icon(fileTypeOf(row.mime_type)),
      preview_url: row.preview_key ? this.links.signed(row.version_id, 'preview', grant) : null,
      // The video kind serves the file itself when it already plays everywhere ('original'), so no file URL is handed out.
      video_url: row.video_preview_status === 'ready' || row.video_preview_status === 'original' ? this.links.signed(row.version_id, 'video', grant) : null,
      download_url: downloadUrl,
    };
  }

  /** A folder link's folders by id, each with the names from below the shared folder down to it. */
  private async folderPaths(link: repo.ShareRecord): Promise<Map<number, string[]>> {
    const paths = new Map<number, string[]>();
    if (link.target_kind !== 'folder' || link.folder_id === null) return paths;
    const tree = await items.sharedFolderTree(this.ctx.db, link.workspace_id, link.folder_id);
    const byId = new Map(tree.map((f) => [f.id, f]));
    paths.set(link.folder_id, []);
    for (const start of tree) {
      // Up to the nearest folder whose path is known (the shared folder's is), then down again.
      const chain: typeof tree = [];
      let folder: (typeof tree)[number] | undefined = start;
      while (folder && !paths.has(folder.id)) {
        chain.push(folder);
        folder = folder.parent_id === null ? undefined : byId.get(folder.parent_id);
      }
      let path = folder ? paths.get(folder.id)! : [];
      for (const f of chain.reverse()) {
        path = [...path, f.name];
        paths.set(f.id, path);
      }
    }
    return paths;
  }

  /** The link's items for the archive, read in batches as the writer asks for them. */
  private async *archiveItems(link: repo.ShareRecord, paths: Map<number, string[]>): AsyncIterable<ArchiveItem> {
    let after = 0;
    for (;;) {
      const batch = await items.shareItemsAfter(this.ctx.db, link, after, ZIP_BATCH);
      for (const row of batch) {
        const folderPath = (row.folder_id !== null && paths.get(row.folder_id)) || [];
        yield {
          path: archivePath(folderPath, fileNameFor(row.display_file_name, row.mime_type)),
          objectKey: row.storage_key,
          size: row.file_size,
          mimeType: row.mime_type,
          modifiedAt: row.version_created_at,
        };
      }
      if (batch.length < ZIP_BATCH) return;
      after = batch[batch.length - 1]!.id;
    }
  }

  private accessRow(link: repo.ShareRecord, action: repo.NewAccess['action'], client: ShareClient, assetId: number | null): repo.NewAccess {
    return {
      link_id: link.id,
      action,
      asset_id: assetId,
      address: client.address,
      user_agent: client.userAgent ? client.userAgent.slice(0, USER_AGENT_CHARS) : null,
      created_at: this.ctx.now(),
    };
  }

  private async log(link: repo.ShareRecord, action: repo.NewAccess['action'], client: ShareClient, assetId: number | null): Promise<void> {
    await repo.insertAccess(this.ctx.db, this.accessRow(link, action, client, assetId));
  }
}
