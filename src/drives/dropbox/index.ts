import type { DrivesConfig } from '../../config.js';
import { OAuthClient } from '../oauth.js';
import { OAuthDriveProvider } from '../oauth-provider.js';
import { contentLength, exportFileName, readAll } from '../transfer.js';
import type { DriveAccount, DriveDownload, DriveItem, DriveListing, DriveModule, DriveUploadSource, ListRequest } from '../types.js';
import { DriveAuthExpired, DriveBadInput, DriveProviderError } from '../types.js';
import { checkId, safeName, sortPage, toDriveItem, type DropboxMetadata } from './files.js';
import { DropboxHttp } from './http.js';
import { CHUNK_BYTES, sessionUpload, type Commit } from './upload-session.js';

type DropboxConfig = NonNullable<DrivesConfig['dropbox']>;

/**
 * Scopes of a "scoped access" Dropbox app (App Console, Permissions): the account's name and e-mail, browsing,
 * downloading and uploading. They must be ticked in the App Console too; Dropbox grants at most those.
 */
const SCOPES = ['account_info.read', 'files.metadata.read', 'files.content.read', 'files.content.write'];
const NAME = 'Dropbox';
/**
 * Files up to this size go in one files/upload request, larger ones through an upload session. Dropbox takes up
 * to 150 MiB in one request, but such a request cannot be resumed and would have to be held in memory or sent
 * without a length; a chunk's worth is the most either path holds.
 */
const SIMPLE_UPLOAD_LIMIT = CHUNK_BYTES;
/** list_folder takes 1 to 2000 (approximately: Dropbox may answer a few more or fewer); search_v2 1 to 1000. */
const MAX_LIST_LIMIT = 2000;
const MAX_SEARCH_RESULTS = 1000;

interface ListFolderResult {
  entries: DropboxMetadata[];
  cursor: string;
  has_more: boolean;
}

interface SearchResult {
  matches: { metadata?: { '.tag'?: string; metadata?: DropboxMetadata } }[];
  has_more: boolean;
  cursor?: string;
}

/** users/get_current_account (users.stone FullAccount), the fields we read. */
interface Account {
  account_id: string;
  email?: string;
  name?: { display_name?: string };
}

/**
 * Dropbox (drive-ext-2) through its documented HTTP API v2 with fetch (http.ts), not the `dropbox` SDK: the SDK
 * builds every URL as `https://{api|content}.{domain}/2/` (no scheme, port or path prefix of ours, so it cannot be
 * pointed at the configured base URLs), reads every download whole into a Buffer (`res.buffer()`), and its
 * current release wants Node 22. OAuth is the shared authorization-code flow with PKCE (oauth.ts) at
 * /oauth2/authorize and /oauth2/token, with `token_access_type=offline` for a refresh token (Dropbox does not
 * rotate it). Items are addressed by id (`id:...`); listings are list_folder and list_folder/continue, name
 * searches search_v2 and search/continue_v2, their cursors the page tokens.
 */
export class DropboxProvider extends OAuthDriveProvider {
  readonly id = 'drive-ext-2' as const;
  readonly name = NAME;
  readonly supportsSearch = true;
  readonly simpleUploadLimit = SIMPLE_UPLOAD_LIMIT;
  private readonly http: DropboxHttp;

  constructor(config: DropboxConfig) {
    super(new OAuthClient({
      // Dropbox sends no `iss` with the authorization response; this is only compared if it ever does.
      issuer: 'https://www.dropbox.com',
      authorizationEndpoint: `${config.authorizeUrl}/oauth2/authorize`,
      tokenEndpoint: `${config.tokenUrl}/oauth2/token`,
      clientId: config.clientId,
      clientSecret: config.clientSecret,
      scopes: SCOPES,
      // offline: a long-lived refresh token besides the 4-hour access token.
      authorizeParams: { token_access_type: 'offline' },
      providerName: NAME,
    }));
    this.http = new DropboxHttp(config.apiUrl, config.contentUrl);
  }

  /**
   * Dropbox has no RFC 7009 endpoint: auth/token/revoke disables the access token it is called with, and with it
   * the refresh token it came from and that token's other access tokens. An access token that expired meanwhile is
   * refreshed first, so the grant is revoked all the same.
   */
  async revoke(tokens: { accessToken: string; refreshToken: string | null }): Promise<void> {
    try {
      await this.http.rpc<null>(tokens.accessToken, 'auth/token/revoke');
      return;
    } catch (err) {
      if (!(err instanceof DriveAuthExpired) || tokens.refreshToken === null) throw err;
    }
    const fresh = await this.oauth.refresh(tokens.refreshToken);
    await this.http.rpc<null>(fresh.accessToken, 'auth/token/revoke');
  }

  async account(accessToken: string): Promise<DriveAccount> {
    const account = await this.http.rpc<Account>(accessToken, 'users/get_current_account');
    if (!account?.account_id) throw new DriveProviderError('Dropbox answered users/get_current_account without the account id', 200);
    return { id: account.account_id, email: account.email ?? null, name: account.name?.display_name ?? null };
  }

  async list(accessToken: string, request: ListRequest): Promise<DriveListing> {
    const folder = request.folder === null ? '' : checkId(request.folder, 'folder');
    if (request.query !== null) return this.search(accessToken, folder, request.query, request.pageToken, request.pageSize);
    const page = request.pageToken
      ? await this.http.rpc<ListFolderResult>(accessToken, 'files/list_folder/continue', { cursor: request.pageToken })
      : await this.http.rpc<ListFolderResult>(accessToken, 'files/list_folder', {
          path: folder,
          limit: Math.max(1, Math.min(request.pageSize, MAX_LIST_LIMIT)),
          include_non_downloadable_files: true,
        });
    const items = (page.entries ?? []).filter((e) => (e['.tag'] === 'file' || e['.tag'] === 'folder') && e.id).map(toDriveItem);
    return { items: sortPage(items), nextPageToken: page.has_more && page.cursor ? page.cursor : null };
  }

  async item(accessToken: string, id: string): Promise<DriveItem> {
    const meta = await this.http.rpc<DropboxMetadata>(accessToken, 'files/get_metadata', { path: checkId(id, 'fileId') });
    return toDriveItem(meta);
  }

  async download(accessToken: string, item: DriveItem): Promise<DriveDownload> {
    const path = checkId(item.id, 'fileId');
    if (item.exportAs) {
      const { result, body } = await this.http.download<{ export_metadata?: { size?: number } }>(accessToken, 'files/export', { path });
      const size = result.export_metadata?.size;
      return {
        stream: body,
        mimeType: item.exportAs.mimeType,
        size: typeof size === 'number' ? size : null,
        fileName: exportFileName(item.name, item.exportAs),
      };
    }
    // Dropbox answers application/octet-stream for everything: the type follows from the name.
    const { result, body, headers } = await this.http.download<DropboxMetadata>(accessToken, 'files/download', { path });
    const size = typeof result.size === 'number' ? result.size : contentLength(headers);
    return { stream: body, mimeType: item.mimeType ?? 'application/octet-stream', size, fileName: result.name || item.name };
  }

  /** Into the folder's path (Dropbox uploads by path); an existing name gets Dropbox's " (1)" rather than being overwritten. */
  async upload(accessToken: string, source: DriveUploadSource, folder: string | null): Promise<DriveItem> {
    const parent = folder === null ? '' : await this.folderPath(accessToken, checkId(folder, 'folder'));
    const commit: Commit = { path: `${parent}/${safeName(source.name)}`, mode: 'add', autorename: true, mute: false, strict_conflict: false };
    if (source.size > this.simpleUploadLimit) return toDriveItem({ ...(await sessionUpload(this.http, accessToken, source, commit)), '.tag': 'file' });
    const created = await this.http.upload<DropboxMetadata>(accessToken, 'files/upload', commit, await readAll(await source.open()));
    return toDriveItem({ ...created, '.tag': 'file' });
  }

  private async folderPath(accessToken: string, id: string): Promise<string> {
    const meta = await this.http.rpc<DropboxMetadata>(accessToken, 'files/get_metadata', { path: id });
    if (meta['.tag'] !== 'folder') throw new DriveBadInput('folder is a Dropbox file, not a folder', 'folder');
    // Not mounted (a shared folder the account has not added): no path to upload into.
    if (!meta.path_lower) throw new DriveProviderError(`Dropbox: the folder ${meta.name} is not in this Dropbox (not mounted)`, 409);
    return meta.path_lower;
  }

  private async search(accessToken: string, folder: string, query: string, cursor: string | null, pageSize: number): Promise<DriveListing> {
    const page = cursor
      ? await this.http.rpc<SearchResult>(accessToken, 'files/search/continue_v2', { cursor })
      : await this.http.rpc<SearchResult>(accessToken, 'files/search_v2', {
          query,
          options: {
            ...(folder ? { path: folder } : {}),
            max_results: Math.max(1, Math.min(pageSize, MAX_SEARCH_RESULTS)),
            file_status: 'active',
            filename_only: true,
          },
        });
    const items = (page.matches ?? [])
      .map((m) => m.metadata?.metadata)
      .filter((m): m is DropboxMetadata => Boolean(m && (m['.tag'] === 'file' || m['.tag'] === 'folder') && m.id))
      .map(toDriveItem);
    return { items: sortPage(items), nextPageToken: page.has_more && page.cursor ? page.cursor : null };
  }
}

export const dropbox: DriveModule = {
  id: 'drive-ext-2',
  name: 'Dropbox',
  create: (config) => (config.dropbox ? new DropboxProvider(config.dropbox) : null),
};
