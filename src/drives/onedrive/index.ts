import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { DriveOAuthClientConfig } from '../../config.js';
import { OAuthClient } from '../oauth.js';
import { OAuthDriveProvider } from '../oauth-provider.js';
import { contentLength, readAll } from '../transfer.js';
import type { DriveAccount, DriveDownload, DriveItem, DriveListing, DriveModule, DriveUploadSource, ListRequest } from '../types.js';
import { DriveProviderError } from '../types.js';
import { failureOf, GraphApi, send } from './graph.js';
import { checkItemId, ITEM_SELECT, itemPath, nameSegment, oneDriveName, searchLiteral, toDriveItem, type GraphItem } from './items.js';
import { sessionUpload } from './upload-session.js';

/**
 * `Files.ReadWrite`: the user's own OneDrive, read and write (browse, download, upload); `User.Read`: who is
 * connected (GET /me); `offline_access`: a refresh token. Not `Files.ReadWrite.All` (files others shared, and on
 * work accounts every SharePoint library the user can reach): shared items are not imported anyway.
 */
const SCOPES = ['offline_access', 'User.Read', 'Files.ReadWrite'];
const NAME = 'OneDrive';
/** Graph's documented limit of the simple upload (PUT .../content); larger files go through an upload session. */
const SIMPLE_UPLOAD_LIMIT = 4 * 1024 * 1024;
/** Items per page Graph answers at most for a listing ($top). */
const MAX_PAGE = 1000;
/** Until the download's headers arrive (the pre-authenticated URL included); the bytes may take longer. */
const DOWNLOAD_HEADERS_TIMEOUT_MS = 60_000;

/**
 * OneDrive (drive-ext-3) through Microsoft Graph v1.0 with fetch (graph.ts says why not the Graph SDK) and
 * the Microsoft identity platform's v2.0 endpoints for OAuth (the tenant, `common` by default, is the path
 * prefix of the configured authorize and token URLs). Personal and work or school accounts alike.
 */
export class OneDriveProvider extends OAuthDriveProvider {
  readonly id = 'drive-ext-3' as const;
  readonly name = NAME;
  readonly supportsSearch = true;
  readonly simpleUploadLimit = SIMPLE_UPLOAD_LIMIT;
  private readonly graph: GraphApi;

  constructor(config: DriveOAuthClientConfig) {
    super(new OAuthClient({
      // Microsoft sends no `iss` with the authorization response (and with `common` the token's issuer is the
      // user's tenant): this value is only compared with an `iss` that would come.
      issuer: `${config.authorizeUrl}/v2.0`,
      authorizationEndpoint: `${config.authorizeUrl}/oauth2/v2.0/authorize`,
      tokenEndpoint: `${config.tokenUrl}/oauth2/v2.0/token`,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      scopes: SCOPES,
      authorizeParams: { response_mode: 'query' },
      // The v2.0 token endpoint wants the scopes with a refresh too (the refreshed token is for those).
      tokenParams: { scope: SCOPES.join(' ') },
      providerName: NAME,
    }));
    this.graph = new GraphApi(config.apiUrl);
  }

  /**
   * The Microsoft identity platform has no revocation endpoint for one app's grant (Graph's revokeSignInSessions
   * would sign the user out of every app and device): the user removes the app's access in their account
   * (account.live.com/consent/Manage, or My Apps for work accounts). So nothing is confirmed (`revoked: false`);
   * the connection and its tokens are deleted all the same.
   */
  revoke(): Promise<void> {
    return Promise.reject(new DriveProviderError('OneDrive offers no revocation of an app\'s grant; remove the app in the Microsoft account\'s settings', null));
  }

  async account(accessToken: string): Promise<DriveAccount> {
    const me = await this.graph.json<{ id?: string; displayName?: string | null; mail?: string | null; userPrincipalName?: string | null }>(
      accessToken,
      this.graph.url('/me', { $select: 'id,displayName,mail,userPrincipalName' }),
    );
    if (!me.id) throw new DriveProviderError('OneDrive answered GET /me without the user id', null);
    // Personal accounts have no `mail`; their userPrincipalName is the sign-in address.
    const email = me.mail || (me.userPrincipalName?.includes('@') ? me.userPrincipalName : null);
    return { id: me.id, email: email ?? null, name: me.displayName ?? null };
  }

  /**
   * One page of a folder's children by name (Graph sorts folders among files), or, with `query`, of Graph's
   * search in the folder's whole hierarchy (the drive's by default), which matches names, metadata and
   * content. Paging follows `@odata.nextLink`, carried whole as the page token.
   */
  async list(accessToken: string, request: ListRequest): Promise<DriveListing> {
    let url: URL;
    if (request.pageToken) {
      url = this.graph.nextLink(request.pageToken);
    } else {
      const folder = itemPath(request.folder === null ? null : checkItemId(request.folder, 'folder'));
      const top = String(Math.min(Math.max(request.pageSize, 1), MAX_PAGE));
      url =
        request.query === null
          ? this.graph.url(`${folder}/children`, { $top: top, $select: ITEM_SELECT, $expand: 'thumbnails', $orderby: 'name' })
          : this.graph.url(`${folder}/search(q=${searchLiteral(request.query)})`, { $top: top, $select: ITEM_SELECT });
    }
    const page = await this.graph.json<{ value?: GraphItem[]; '@odata.nextLink'?: string }>(accessToken, url);
    return { items: (page.value ?? []).map(toDriveItem), nextPageToken: page['@odata.nextLink'] ?? null };
  }

  async item(accessToken: string, id: string): Promise<DriveItem> {
    const path = itemPath(checkItemId(id, 'fileId'));
    return toDriveItem(await this.graph.json<GraphItem>(accessToken, this.graph.url(path, { $select: ITEM_SELECT, $expand: 'thumbnails' })));
  }

  /**
   * GET .../content answers 302 to a short-lived pre-authenticated URL (on another host in production); it is
   * followed here by hand, without the Authorization header, so the token never leaves Graph. Asked for
   * without compression, so the length is the file's.
   */
  async download(accessToken: string, item: DriveItem): Promise<DriveDownload> {
    const path = itemPath(checkItemId(item.id, 'fileId'));
    const first = await this.graph.call(accessToken, this.graph.url(`${path}/content`), { timeout: DOWNLOAD_HEADERS_TIMEOUT_MS, headers: { 'accept-encoding': 'identity' } });
    let res = first;
    if (first.status >= 300 && first.status < 400) {
      await first.body?.cancel();
      const location = first.headers.get('location');
      let target: URL;
      try {
        target = new URL(location ?? '', first.url || undefined);
        if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error('not http(s)');
      } catch {
        throw new DriveProviderError('OneDrive answered the download with a redirect to nowhere', first.status);
      }
      res = await send(target, { timeout: DOWNLOAD_HEADERS_TIMEOUT_MS, headers: { 'accept-encoding': 'identity' }, follow: true });
      if (res.status >= 300) throw await failureOf(res, false);
    }
    if (!res.body) throw new DriveProviderError('OneDrive answered the download without a body', res.status);
    return {
      stream: Readable.fromWeb(res.body as WebReadableStream<Uint8Array>),
      mimeType: item.mimeType ?? res.headers.get('content-type') ?? 'application/octet-stream',
      size: contentLength(res.headers),
      fileName: item.name,
    };
  }

  /**
   * A new file in `folder` (the root by default), renamed by OneDrive ("name 1.ext") when the name is taken
   * rather than replacing what is there; the name is made one OneDrive takes (oneDriveName). Up to 4 MiB in one
   * PUT, larger files through an upload session.
   */
  async upload(accessToken: string, source: DriveUploadSource, folder: string | null): Promise<DriveItem> {
    const target = itemPath(folder === null ? null : checkItemId(folder, 'folder'));
    const name = oneDriveName(source.name);
    if (source.size > this.simpleUploadLimit) return toDriveItem(await sessionUpload(this.graph, accessToken, source, target, name));
    const stream = await source.open();
    let body: Buffer;
    try {
      body = await readAll(stream);
    } finally {
      stream.destroy();
    }
    const url = this.graph.url(`${target}:/${nameSegment(name)}:/content`, { '@microsoft.graph.conflictBehavior': 'rename' });
    return toDriveItem(await this.graph.json<GraphItem>(accessToken, url, { method: 'PUT', headers: { 'content-type': source.mimeType }, body }));
  }
}

export const oneDrive: DriveModule = {
  id: 'drive-ext-3',
  name: 'OneDrive',
  create: (config) => (config.onedrive ? new OneDriveProvider(config.onedrive) : null),
};
