import type { AppContext } from '../context.js';
import { assetSight, isPrivate, sees } from '../domain/asset-visibility.js';
import { shareStatus } from '../domain/shares.js';
import type { MediaGrant } from '../media/links.js';
import type { AssetRecord } from '../repositories/assets.js';
import * as items from '../repositories/share-items.js';
import { findShare } from '../repositories/shares.js';
import { findRole } from '../repositories/workspaces.js';

/**
 * How long (seconds, by the app's clock) an answer "shared link L still shows version V" is used again. A page of a
 * folder link asks it once per thumbnail, and each answer walks the folder tree; for this long a revocation, an
 * expiry or an asset leaving the link may go unnoticed by a URL already checked, in this process and in every
 * other one (the answers are per process, not shared).
 */
export const SHARE_GRANT_CACHE_SECONDS = 5;

/** Answers kept at most (one per link and version recently served); the oldest go first. */
export const SHARE_GRANT_CACHE_ENTRIES = 10_000;

/**
 * Whether the grant a media URL was handed out under (media/links.ts) still holds, asked on every use (issue #28:
 * a URL that outlives what granted it is a leak).
 * - A member (`u<id>`): they are still a member of the asset's workspace whose role shows it. One primary-key
 *   read, not cached, so a removal or demotion stops the URL from the next request.
 * - A shared link (`s<id>`): the asset is public and not in the trash (read with the asset on every request, so
 *   making it private or trashing it stops the URL at once), and the link is active (not revoked, not expired),
 *   its folder, collection or version is live, and the version is the one it shows of one of its items: the very
 *   rule of its public pages (repositories/share-items.ts). That part is cached for SHARE_GRANT_CACHE_SECONDS.
 * A link's download limit does not stop its thumbnails, previews and videos: its page still shows, so they do too.
 */
export class MediaGrants {
  private readonly shareAnswers = new Map<string, { shows: boolean; until: number }>();

  constructor(private readonly ctx: AppContext) {}

  async holds(grant: MediaGrant, versionId: number, asset: AssetRecord): Promise<boolean> {
    if ('userId' in grant) {
      const role = await findRole(this.ctx.db, asset.workspace_id, grant.userId);
      return role !== undefined && sees(assetSight(role, grant.userId), asset);
    }
    if (isPrivate(asset.visibility) || asset.deleted_at !== null) return false;
    return this.shareShows(grant.shareId, versionId);
  }

  private async shareShows(shareId: number, versionId: number): Promise<boolean> {
    const key = `${shareId}:${versionId}`;
    const now = this.ctx.now();
    const cached = this.shareAnswers.get(key);
    if (cached && cached.until > now) return cached.shows;
    this.shareAnswers.delete(key);
    const shows = await this.askShare(shareId, versionId, now);
    if (this.shareAnswers.size >= SHARE_GRANT_CACHE_ENTRIES) {
      // A Map iterates in insertion order: the first key is the oldest answer.
      const oldest = this.shareAnswers.keys().next();
      if (!oldest.done) this.shareAnswers.delete(oldest.value);
    }
    this.shareAnswers.set(key, { shows, until: now + SHARE_GRANT_CACHE_SECONDS });
    return shows;
  }

  private async askShare(shareId: number, versionId: number, now: number): Promise<boolean> {
    const link = await findShare(this.ctx.db, shareId);
    if (!link || shareStatus(link, now) !== 'active') return false;
    if (!(await items.liveTarget(this.ctx.db, link))) return false;
    return items.showsVersion(this.ctx.db, link, versionId);
  }
}
