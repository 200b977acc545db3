import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema.js';
import { diffFields } from '../../domain/activity.js';
import { ALL_ASSETS, isPrivate } from '../../domain/asset-visibility.js';
import { DEFAULT_SHARE_LIFETIME, SHARE_EXPIRY_CAP_GRACE, SHARE_KEY_BYTES, shareStatus } from '../../domain/shares.js';
import { appError, notFound, type AppError } from '../../errors.js';
import * as assets from '../../repositories/assets.js';
import { findCollection } from '../../repositories/collections.js';
import { findFolder } from '../../repositories/folders.js';
import { liveTarget } from '../../repositories/share-items.js';
import * as repo from '../../repositories/shares.js';
import * as versions from '../../repositories/versions.js';
import { findWorkspace } from '../../repositories/workspaces.js';
import type {
  AccessLogPageView,
  ShareCreateInput,
  ShareListInput,
  SharePageView,
  SharePatchInput,
  ShareView,
} from '../../contracts/shares.js';
import { requireRole } from '../access.js';
import { ActivityService } from '../activity-service.js';
import type { Caller } from '../auth-service.js';
import { badReference, loadAuthorized, pageWindow, type PageRequest } from '../catalog-access.js';
import { hashPassword } from '../passwords.js';

const TARGET_FIELDS = ['asset_ids', 'folder_id', 'collection_id', 'version_id'] as const;
const KIND_OF = { asset_ids: 'assets', folder_id: 'folder', collection_id: 'collection', version_id: 'version' } as const;

/** The settings an update may change, as the activity log records them (never the password itself). */
interface Settings {
  expires_at: number | null;
  has_password: boolean;
  allow_download: boolean;
  max_downloads: number | null;
  description: string | null;
}
const SETTING_FIELDS = ['expires_at', 'has_password', 'allow_download', 'max_downloads', 'description'] as const;

function settingsOf(link: repo.ShareRecord): Settings {
  return {
    expires_at: link.expires_at,
    has_password: link.password_hash !== null,
    allow_download: link.allow_download === 1,
    max_downloads: link.max_downloads,
    description: link.description,
  };
}

/** Exactly one of the four targets: none, or two, is a 400 naming the field. */
function targetField(body: ShareCreateInput): (typeof TARGET_FIELDS)[number] {
  const given = TARGET_FIELDS.filter((field) => body[field] !== undefined);
  if (given.length === 0) {
    throw badReference('asset_ids', 'a link needs exactly one target: asset_ids, folder_id, collection_id or version_id; none was given');
  }
  if (given.length > 1) throw badReference(given[1]!, `a link has exactly one target, and ${given[0]} was given too`);
  return given[0]!;
}

/**
 * A shared link is a public surface: only public assets reach one (domain/asset-visibility.ts). A link naming private
 * assets is refused, with their ids, rather than made with fewer items than asked for.
 */
function privateAssets(field: 'asset_ids' | 'version_id', ids: readonly number[]): AppError {
  const list = ids.slice(0, 20).join(', ') + (ids.length > 20 ? ` and ${ids.length - 20} more` : '');
  return appError(
    'VALIDATION_ERROR',
    `${field}: private ${ids.length === 1 ? 'asset' : 'assets'} ${list} cannot be shared by link: only public assets (visibility 0) ` +
      'reach a shared link; make them public first',
    { field, private_asset_ids: [...ids] },
  );
}

/** A blank description is none. */
function descriptionOf(text: string | null | undefined): string | null {
  return text === undefined || text === null || text.trim() === '' ? null : text;
}

/**
 * Shared links, the managing side (issue #14): create, list, read, change and revoke links, and read
 * their access log. Managers and admins of the link's workspace; viewers 403; a link of a workspace
 * the caller is not a member of answers 404, as a missing one does. The public side is
 * ShareAccessService.
 */
export class ShareService {
  constructor(private readonly ctx: AppContext) {}

  async create(caller: Caller, body: ShareCreateInput): Promise<ShareView> {
    const field = targetField(body);
    const ws = body.workspaceId;
    const role = await requireRole(this.ctx.db, ws, caller.id, 'manager');
    const now = this.ctx.now();
    const cap = await this.expiryCap(ws, role, now);
    // The default lifetime, or a manager's cap when that is shorter.
    const expiresAt = this.checkExpiry(body.expires_at === undefined ? Math.min(now + DEFAULT_SHARE_LIFETIME, cap) : body.expires_at, role, now, cap);
    const target = await this.checkTarget(body, field);
    // Hashed before the transaction: scrypt takes tens of milliseconds, and SQLite's one connection would wait.
    const passwordHash = body.password === undefined ? null : await hashPassword(body.password);
    const link = await this.ctx.db.transaction().execute(async (trx) => {
      const row = await repo.insertShare(trx, {
        workspace_id: ws,
        key: randomBytes(SHARE_KEY_BYTES).toString('base64url'),
        target_kind: KIND_OF[field],
        folder_id: body.folder_id ?? null,
        collection_id: body.collection_id ?? null,
        version_id: body.version_id ?? null,
        password_hash: passwordHash,
        expires_at: expiresAt,
        allow_download: body.allow_download === false ? 0 : 1,
        max_downloads: body.max_downloads ?? null,
        description: descriptionOf(body.description),
        created_by: caller.id,
        created_by_name: caller.name || caller.email,
        created_at: now,
        updated_at: now,
        revoked_at: null,
      });
      if (body.asset_ids) await repo.insertShareAssets(trx, row.id, body.asset_ids);
      await this.record(trx, caller, row, 'share.create', target, {});
      return row;
    });
    return (await this.views([link]))[0]!;
  }

  async list(caller: Caller, q: ShareListInput): Promise<SharePageView> {
    await requireRole(this.ctx.db, q.workspaceId, caller.id, 'manager');
    const w = pageWindow(q);
    const { items, total } = await repo.listShares(this.ctx.db, q.workspaceId, { status: q.status, now: this.ctx.now(), ...w });
    return { items: await this.views(items), page: w.page, per_page: w.per_page, total };
  }

  async get(caller: Caller, id: number): Promise<ShareView> {
    return (await this.views([await this.load(caller, id)]))[0]!;
  }

  /** Only the settings sent change; a revoked link cannot be changed (409): make a new one. */
  async update(caller: Caller, id: number, patch: SharePatchInput): Promise<ShareView> {
    const link = await this.load(caller, id);
    if (link.revoked_at !== null) throw appError('CONFLICT', `Shared link ${id} was revoked and cannot be changed; create a new link instead`);
    const now = this.ctx.now();
    const role = await requireRole(this.ctx.db, link.workspace_id, caller.id, 'manager');
    // A manager changing other settings of a link an admin gave a later expiry leaves that expiry alone.
    if (patch.expires_at !== undefined) this.checkExpiry(patch.expires_at, role, now, await this.expiryCap(link.workspace_id, role, now));
    const passwordHash = typeof patch.password === 'string' ? await hashPassword(patch.password) : patch.password;
    const target = await liveTarget(this.ctx.db, link);
    const updated = await this.ctx.db.transaction().execute(async (trx) => {
      await repo.updateShare(trx, id, {
        ...(patch.expires_at !== undefined && { expires_at: patch.expires_at }),
        ...(passwordHash !== undefined && { password_hash: passwordHash }),
        ...(patch.allow_download !== undefined && { allow_download: patch.allow_download ? 1 : 0 }),
        ...(patch.max_downloads !== undefined && { max_downloads: patch.max_downloads }),
        ...(patch.description !== undefined && { description: descriptionOf(patch.description) }),
        updated_at: now,
      });
      const after = await repo.findShare(trx, id);
      if (!after) throw notFound('Shared link');
      const changes = diffFields<Settings>(settingsOf(link), settingsOf(after), SETTING_FIELDS);
      // A new password over an old one changes no field the log shows, but it is a change worth recording.
      if (typeof patch.password === 'string' && link.password_hash !== null) changes.password = { before: 'set', after: 'changed' };
      if (Object.keys(changes).length > 0) await this.record(trx, caller, after, 'share.update', target, changes);
      return after;
    });
    return (await this.views([updated]))[0]!;
  }

  /** Revokes at once: the public routes answer 404 from the next request. Revoking a revoked link changes nothing. */
  async revoke(caller: Caller, id: number): Promise<ShareView> {
    const link = await this.load(caller, id);
    const target = await liveTarget(this.ctx.db, link);
    const now = this.ctx.now();
    const after = await this.ctx.db.transaction().execute(async (trx) => {
      if (await repo.revokeShare(trx, id, now)) await this.record(trx, caller, link, 'share.revoke', target, {});
      return repo.findShare(trx, id);
    });
    if (!after) throw notFound('Shared link');
    return (await this.views([after]))[0]!;
  }

  async accessLog(caller: Caller, id: number, q: PageRequest): Promise<AccessLogPageView> {
    const link = await this.load(caller, id);
    const w = pageWindow(q);
    const { items, total } = await repo.listAccess(this.ctx.db, link.id, w);
    return {
      items: items.map((e) => ({ id: e.id, action: e.action, asset_id: e.asset_id, address: e.address, user_agent: e.user_agent, created_at: e.created_at })),
      page: w.page,
      per_page: w.per_page,
      total,
    };
  }

  /**
   * Housekeeping: forgets access-log entries older than DAM_SHARE_LOG_DAYS (0 keeps them), in batches so one run
   * never holds the table long; what is left over goes in the next run. Answers how many went.
   */
  async pruneAccessLog(batch = 1000, maxBatches = 20): Promise<number> {
    const days = this.ctx.config.shares.logDays;
    if (days === 0) return 0;
    const before = this.ctx.now() - days * 86_400;
    let removed = 0;
    for (let i = 0; i < maxBatches; i += 1) {
      const n = await repo.deleteAccessBefore(this.ctx.db, before, batch);
      removed += n;
      if (n < batch) break;
    }
    return removed;
  }

  /** Managers and admins of the link's workspace; anyone else 404 (not a member) or 403 (a viewer). */
  private load(caller: Caller, id: number): Promise<repo.ShareRecord> {
    return loadAuthorized(this.ctx.db, 'Shared link', () => repo.findShare(this.ctx.db, id), caller.id, 'manager');
  }

  /**
   * The latest expiry the caller may set (issue #28): for roles below admin, share_max_expiry_days from now;
   * admins are not capped (Infinity).
   */
  private async expiryCap(workspaceId: number, role: string, now: number): Promise<number> {
    if (role === 'admin') return Infinity;
    const ws = await findWorkspace(this.ctx.db, workspaceId);
    if (!ws) throw notFound('Workspace');
    return now + ws.share_max_expiry_days * 86_400;
  }

  /**
   * `null` (never) is for workspace admins; a time must lie ahead, and for a manager no later than `cap` (403 naming
   * the latest allowed). Returns the value to store.
   */
  private checkExpiry(expiresAt: number | null, role: string, now: number, cap: number): number | null {
    if (expiresAt === null) {
      if (role !== 'admin') throw appError('FORBIDDEN', `expires_at: a link that never expires needs the admin role in this workspace; you are ${role}`);
      return null;
    }
    if (expiresAt <= now) throw badReference('expires_at', `${expiresAt} is not in the future (now is ${now})`);
    if (expiresAt > cap + SHARE_EXPIRY_CAP_GRACE) {
      const days = Math.round((cap - now) / 86_400);
      throw appError(
        'FORBIDDEN',
        `expires_at: as ${role} you may set a link to expire at most ${days} days ahead in this workspace (share_max_expiry_days), ` +
          `by ${new Date(cap * 1000).toISOString()} (Unix ${cap}); ${expiresAt} is later. A workspace admin may set a later expiry or raise the limit`,
        { field: 'expires_at', max_expires_at: cap, share_max_expiry_days: days },
      );
    }
    return expiresAt;
  }

  /**
   * The target must be a live item of the workspace (missing, in the trash or of another workspace: a 400 naming the field).
   * Listed assets and a version's asset must be public (a 400 naming the private ones); a folder or collection may hold
   * private assets, which its link does not show (repositories/share-items.ts).
   */
  private async checkTarget(body: ShareCreateInput, field: (typeof TARGET_FIELDS)[number]): Promise<{ name: string | null }> {
    const db = this.ctx.db;
    const ws = body.workspaceId;
    if (field === 'asset_ids') {
      const ids = body.asset_ids ?? [];
      const found = new Map((await assets.assetsInWorkspace(db, ws, ids)).map((a) => [a.id, a]));
      const missing = ids.filter((id) => !found.has(id));
      if (missing.length > 0) throw badReference('asset_ids', `not assets of workspace ${ws}: ${missing.slice(0, 20).join(', ')}`);
      const hidden = [...new Set(ids.filter((id) => isPrivate(found.get(id)!.visibility)))];
      if (hidden.length > 0) throw privateAssets('asset_ids', hidden);
      return { name: `${ids.length} ${ids.length === 1 ? 'asset' : 'assets'}` };
    }
    if (field === 'folder_id') {
      const folder = await findFolder(db, body.folder_id!);
      if (folder?.workspace_id !== ws) throw badReference('folder_id', `folder ${body.folder_id} does not exist in workspace ${ws}`);
      return { name: folder.name };
    }
    if (field === 'collection_id') {
      const collection = await findCollection(db, body.collection_id!, ALL_ASSETS);
      if (collection?.workspace_id !== ws) throw badReference('collection_id', `collection ${body.collection_id} does not exist in workspace ${ws}`);
      return { name: collection.name };
    }
    const version = await versions.findVersion(db, body.version_id!);
    const asset = version?.status === 'ready' ? await assets.findAsset(db, version.asset_id) : undefined;
    if (!version || !asset || asset.workspace_id !== ws || !assets.inCatalog(asset)) {
      throw badReference('version_id', `version ${body.version_id} is not a version of an asset of workspace ${ws}`);
    }
    if (isPrivate(asset.visibility)) throw privateAssets('version_id', [asset.id]);
    return { name: asset.display_file_name };
  }

  private async record(
    trx: Transaction<Database>,
    caller: Caller,
    link: repo.ShareRecord,
    action: 'share.create' | 'share.update' | 'share.revoke',
    target: { name: string | null } | undefined,
    changes: ReturnType<typeof diffFields>,
  ): Promise<void> {
    // The description says what the link is for; otherwise what it shows.
    const name = link.description?.replace(/\s+/g, ' ').trim().slice(0, 200) || target?.name || `shared link ${link.id}`;
    await ActivityService.record(trx, {
      workspaceId: link.workspace_id,
      actor: caller,
      action,
      subject: { kind: 'share', id: link.id, name },
      assetId: null,
      changes,
      at: this.ctx.now(),
    });
  }

  private async views(links: repo.ShareRecord[]): Promise<ShareView[]> {
    const assetIds = await repo.shareAssetIds(
      this.ctx.db,
      links.filter((l) => l.target_kind === 'assets').map((l) => l.id),
    );
    const now = this.ctx.now();
    return links.map((l) => ({
      id: l.id,
      workspace_id: l.workspace_id,
      key: l.key,
      url: `${this.ctx.config.publicUrl}/s/${l.key}`,
      target: l.target_kind,
      asset_ids: assetIds.get(l.id) ?? [],
      folder_id: l.folder_id,
      collection_id: l.collection_id,
      version_id: l.version_id,
      ...settingsOf(l),
      download_count: l.download_count,
      view_count: l.view_count,
      last_accessed_at: l.last_accessed_at,
      status: shareStatus(l, now),
      created_by: { id: l.created_by, name: l.created_by_name },
      created_at: l.created_at,
      updated_at: l.updated_at,
      revoked_at: l.revoked_at,
    }));
  }
}
