import { drive } from '@googleapis/drive';
import type { DriveOAuthClientConfig } from '../../config.js';
import { OAuthClient } from '../oauth.js';
import { OAuthDriveProvider } from '../oauth-provider.js';
import { contentLength, exportFileName } from '../transfer.js';
import type { DriveAccount, DriveDownload, DriveItem, DriveListing, DriveModule, DriveUploadSource, ListRequest } from '../types.js';
import { DriveProviderError } from '../types.js';
import { sdkFailure } from './errors.js';
import { checkFileId, FILE_FIELDS, listQuery, toDriveItem } from './files.js';
import { resumableUpload } from './resumable-upload.js';

/**
 * Browse, download from and upload to the whole drive. `drive.file` (files this app created) cannot list the
 * user's existing library, and `drive.readonly` cannot upload; `drive` is the one scope that does both.
 */
const SCOPES = ['https://www.googleapis.com/auth/drive'];
const NAME = 'Google Drive';
/** Drive's limit for single-request (media/multipart) uploads; larger files go through the resumable API. */
const SIMPLE_UPLOAD_LIMIT = 5 * 1024 * 1024;
/** Metadata calls; media streams have no overall timeout (a large file takes long), the caller watches for stalls. */
const METADATA_TIMEOUT_MS = 30_000;

/**
 * Google Drive (drive-ext-1) through the official SDK, @googleapis/drive (v3). The SDK is built without
 * credentials and without a client-wide `rootUrl`: each call passes `rootUrl` (the configured API base, path
 * prefix included, which a client-wide rootUrl would drop) and the bearer token, and `retry: false`
 * (imports retry on their own, with Retry-After). Resumable uploads use fetch (resumable-upload.ts).
 */
export class GoogleDriveProvider extends OAuthDriveProvider {
  readonly id = 'drive-ext-1' as const;
  readonly name = NAME;
  readonly supportsSearch = true;
  readonly simpleUploadLimit = SIMPLE_UPLOAD_LIMIT;
  private readonly sdk = drive({ version: 'v3' });

  constructor(private readonly config: DriveOAuthClientConfig) {
    super(new OAuthClient({
      issuer: 'https://accounts.google.com',
      authorizationEndpoint: `${config.authorizeUrl}/o/oauth2/v2/auth`,
      tokenEndpoint: `${config.tokenUrl}/token`,
      revocationEndpoint: `${config.tokenUrl}/revoke`,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      scopes: SCOPES,
      // offline: a refresh token; consent: Google issues a refresh token only on a consent, also when reconnecting.
      authorizeParams: { access_type: 'offline', prompt: 'consent', include_granted_scopes: 'true' },
      providerName: NAME,
    }));
  }

  /** Google revokes the whole grant, refresh and access tokens together, given either. */
  revoke(tokens: { accessToken: string; refreshToken: string | null }): Promise<void> {
    return this.oauth.revoke(tokens.refreshToken ?? tokens.accessToken);
  }

  async account(accessToken: string): Promise<DriveAccount> {
    const res = await this.call(() => this.sdk.about.get({ fields: 'user(displayName,emailAddress,permissionId)' }, this.options(accessToken)));
    const user = res.data.user;
    if (!user?.permissionId) throw new DriveProviderError('Google Drive answered about.get without the user', res.status);
    return { id: user.permissionId, email: user.emailAddress ?? null, name: user.displayName ?? null };
  }

  async list(accessToken: string, request: ListRequest): Promise<DriveListing> {
    const folder = request.folder === null ? null : checkFileId(request.folder, 'folder');
    const res = await this.call(() =>
      this.sdk.files.list(
        {
          q: listQuery(folder, request.query),
          pageSize: Math.min(request.pageSize, 1000),
          ...(request.pageToken ? { pageToken: request.pageToken } : {}),
          orderBy: 'folder,name_natural',
          spaces: 'drive',
          fields: `nextPageToken,files(${FILE_FIELDS})`,
        },
        this.options(accessToken),
      ),
    );
    return { items: (res.data.files ?? []).map(toDriveItem), nextPageToken: res.data.nextPageToken ?? null };
  }

  async item(accessToken: string, id: string): Promise<DriveItem> {
    const fileId = checkFileId(id, 'fileId');
    const res = await this.call(() => this.sdk.files.get({ fileId, fields: FILE_FIELDS }, this.options(accessToken)));
    return toDriveItem(res.data);
  }

  async download(accessToken: string, item: DriveItem): Promise<DriveDownload> {
    const fileId = checkFileId(item.id, 'fileId');
    const stream = { ...this.options(accessToken, 0), responseType: 'stream' as const };
    const res = item.exportAs
      ? await this.call(() => this.sdk.files.export({ fileId, mimeType: item.exportAs!.mimeType }, stream))
      : await this.call(() => this.sdk.files.get({ fileId, alt: 'media' }, stream));
    const headers = res.headers as unknown as Headers;
    return {
      stream: res.data,
      mimeType: item.exportAs?.mimeType ?? headers.get('content-type') ?? item.mimeType ?? 'application/octet-stream',
      // The SDK asks for gzip and the fetch underneath inflates it: a Content-Length would then be the compressed size.
      size: contentLength(headers),
      fileName: item.exportAs ? exportFileName(item.name, item.exportAs) : item.name,
    };
  }

  async upload(accessToken: string, source: DriveUploadSource, folder: string | null): Promise<DriveItem> {
    const parent = folder === null ? null : checkFileId(folder, 'folder');
    if (source.size > this.simpleUploadLimit) {
      return toDriveItem(await resumableUpload(this.config.apiUrl, accessToken, source, parent, FILE_FIELDS));
    }
    const body = await source.open();
    try {
      const res = await this.call(() =>
        this.sdk.files.create(
          {
            requestBody: { name: source.name, mimeType: source.mimeType, ...(parent ? { parents: [parent] } : {}) },
            media: { mimeType: source.mimeType, body },
            fields: FILE_FIELDS,
          },
          this.options(accessToken),
        ),
      );
      return toDriveItem(res.data);
    } finally {
      // Drive may answer (a 401, a 4xx) before reading the whole body: the store's stream is closed either way.
      body.destroy();
    }
  }

  /** Per-call SDK options: our API base (also for uploads), the bearer token, no SDK retries. */
  private options(accessToken: string, timeout = METADATA_TIMEOUT_MS) {
    return {
      rootUrl: `${this.config.apiUrl}/`,
      headers: { authorization: `Bearer ${accessToken}` },
      retry: false,
      ...(timeout > 0 ? { timeout } : {}),
    };
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw sdkFailure(err);
    }
  }
}

export const googleDrive: DriveModule = {
  id: 'drive-ext-1',
  name: 'Google Drive',
  create: (config) => (config.google ? new GoogleDriveProvider(config.google) : null),
};

