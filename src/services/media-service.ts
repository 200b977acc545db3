import type { AppContext } from '../context.js';
import { rendersInline } from '../domain/file-types.js';
import { appError, notFound } from '../errors.js';
import { parseGrant, type MediaKind, type MediaLinks } from '../media/links.js';
import * as assets from '../repositories/assets.js';
import * as versions from '../repositories/versions.js';
import type { ObjectStore } from '../storage/object-store.js';
import { fileNameFor, renditionValidator, streamDownload, versionValidator, type DownloadConditions, type DownloadResult } from './downloads.js';
import { MediaGrants } from './media-grants.js';

/**
 * Serves the signed media URLs of versions (file, thumbnail, preview) without a bearer token:
 * the signature is the credential, as with S3 presigned GETs. Range requests work, so a
 * <video> can seek. Whatever the file holds, it cannot run script in our origin: inline only
 * for raster images, audio and video, and always under a sandboxing Content-Security-Policy.
 * A URL serves only while what it was handed out under still holds (MediaGrant, checked by MediaGrants): its user
 * still sees the asset (member, and a role that shows a private asset), or its shared link still shows the version.
 */
export class MediaService {
  private readonly grants: MediaGrants;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: ObjectStore,
    private readonly links: MediaLinks,
  ) {
    this.grants = new MediaGrants(ctx);
  }

  async serve(
    q: { versionId: number; kind: MediaKind; grant: unknown; expires: unknown; signature: unknown },
    conditions: DownloadConditions,
  ): Promise<DownloadResult> {
    const verdict = this.links.verify(q.versionId, q.kind, q.grant, q.expires, q.signature);
    if (verdict === 'invalid') throw appError('INVALID_SIGNATURE', 'The media URL signature does not match; list the versions again for fresh URLs');
    if (verdict === 'expired') throw appError('URL_EXPIRED', 'The media URL has expired; list the versions again for fresh URLs');
    const version = await versions.findVersion(this.ctx.db, q.versionId);
    if (!version || version.status !== 'ready') throw notFound('Version');
    const asset = await assets.findAsset(this.ctx.db, version.asset_id);
    if (!asset || !(await this.grants.holds(parseGrant(q.grant)!, version.id, asset))) throw notFound('Version');
    // An asset in the trash keeps its thumbnail (the trash lists it), not its file or preview.
    if (q.kind !== 'thumbnail' && asset.deleted_at !== null) throw notFound('Version');
    // The URL names the version: its file never changes, so its validator is strong, dates included.
    let file = { key: version.storage_key, mimeType: version.mime_type, name: fileNameFor(version.file_name, version.mime_type), validator: versionValidator(version, true) };
    // A video that already plays everywhere is its own preview (issue #15): the video URL serves the file, so a
    // shared link can hand out a video URL without a file URL.
    if (q.kind !== 'file' && !(q.kind === 'video' && version.video_preview_status === 'original')) {
      const rendition = await versions.findRendition(this.ctx.db, version.id, q.kind);
      if (!rendition) throw appError('NOT_FOUND', `Version ${version.id} has no ${q.kind} (preview status: ${version.preview_status})`);
      file = {
        key: rendition.storage_key,
        mimeType: rendition.mime_type,
        name: `${q.kind}-${version.id}.${q.kind === 'video' ? 'mp4' : 'webp'}`,
        validator: renditionValidator(version.id, q.kind, rendition.file_size),
      };
    }
    const result = await streamDownload(this.store, file.key, { fileName: file.name, mimeType: file.mimeType, conditions, validator: file.validator });
    const disposition = result.headers['content-disposition'] ?? '';
    if (rendersInline(file.mimeType)) result.headers['content-disposition'] = disposition.replace(/^attachment/, 'inline');
    result.headers['content-security-policy'] = "default-src 'none'; sandbox";
    // The URL changes when it expires, so the object may be cached until then.
    result.headers['cache-control'] = `private, max-age=${this.links.remaining(String(q.expires))}`;
    return result;
  }
}
