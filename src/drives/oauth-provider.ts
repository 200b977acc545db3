import type { OAuthClient } from './oauth.js';
import type { DriveAccount, DriveDownload, DriveItem, DriveListing, DriveProvider, DriveProviderId, DriveTokens, DriveUploadSource, ListRequest } from './types.js';

/**
 * The part of a DriveProvider that is the shared OAuth flow (oauth.ts): the authorization URL, the code exchange
 * and the refresh grant go to the provider's OAuthClient as they are. A provider folder extends this with its
 * client (built from its endpoints, scopes and parameters) and implements the rest, revocation included (it
 * differs: RFC 7009, Dropbox's own endpoint, none at Microsoft).
 */
export abstract class OAuthDriveProvider implements DriveProvider {
  abstract readonly id: DriveProviderId;
  abstract readonly name: string;
  abstract readonly supportsSearch: boolean;
  abstract readonly simpleUploadLimit: number;

  constructor(protected readonly oauth: OAuthClient) {}

  authorizationUrl(params: { state: string; codeChallenge: string; redirectUri: string }): string {
    return this.oauth.authorizationUrl(params);
  }

  exchangeCode(params: { code: string; iss: string | undefined; codeVerifier: string; redirectUri: string }): Promise<DriveTokens> {
    return this.oauth.exchangeCode(params);
  }

  refresh(refreshToken: string): Promise<DriveTokens> {
    return this.oauth.refresh(refreshToken);
  }

  abstract revoke(tokens: { accessToken: string; refreshToken: string | null }): Promise<void>;
  abstract account(accessToken: string): Promise<DriveAccount>;
  abstract list(accessToken: string, request: ListRequest): Promise<DriveListing>;
  abstract item(accessToken: string, id: string): Promise<DriveItem>;
  abstract download(accessToken: string, item: DriveItem): Promise<DriveDownload>;
  abstract upload(accessToken: string, source: DriveUploadSource, folder: string | null): Promise<DriveItem>;
}
