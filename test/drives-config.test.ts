import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { configuredDrives, DRIVE_MODULES } from '../src/drives/registry.js';
import { SealBroken, TokenCipher } from '../src/drives/token-cipher.js';
import { localPath } from '../src/services/drives/drive-auth-service.js';
import { tempDir } from './helpers/databases.js';

const SECRET = 'a-secret-that-is-long-enough-0123456789';
const env = (vars: Record<string, string> = {}) => ({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: SECRET, ...vars });

describe('external-drive configuration (issue #16)', () => {
  it('keeps every provider off unless its client id is set, with the real base URLs as defaults', () => {
    expect(loadConfig(env()).drives).toEqual({ google: null, dropbox: null, onedrive: null });
    const { drives } = loadConfig(
      env({ DAM_GDRIVE_CLIENT_ID: 'g-id', DAM_GDRIVE_CLIENT_SECRET: 'g-secret', DAM_DROPBOX_APP_KEY: 'd-key', DAM_ONEDRIVE_CLIENT_ID: 'o-id' }),
    );
    expect(drives.google).toEqual({
      clientId: 'g-id',
      clientSecret: 'g-secret',
      authorizeUrl: 'https://accounts.google.com',
      tokenUrl: 'https://oauth2.googleapis.com',
      apiUrl: 'https://www.googleapis.com',
    });
    expect(drives.dropbox).toEqual({
      clientId: 'd-key',
      clientSecret: undefined,
      authorizeUrl: 'https://www.dropbox.com',
      tokenUrl: 'https://api.dropboxapi.com',
      apiUrl: 'https://api.dropboxapi.com',
      contentUrl: 'https://content.dropboxapi.com',
    });
    expect(drives.onedrive).toMatchObject({ clientId: 'o-id', authorizeUrl: 'https://login.microsoftonline.com/common', apiUrl: 'https://graph.microsoft.com' });
    expect(Object.isFrozen(drives)).toBe(true);
    // Every provider this build implements is live (all three are configured here), in the registry's order.
    expect([...configuredDrives(drives).keys()]).toEqual(DRIVE_MODULES.map((m) => m.id));
    expect([...configuredDrives(drives).keys()]).toContain('drive-ext-3');
    expect([...configuredDrives(drives).keys()]).toContain('drive-ext-2');
  });

  it('takes base URLs with a path prefix and refuses anything else', () => {
    const { drives } = loadConfig(env({ DAM_GDRIVE_CLIENT_ID: 'g', DAM_GDRIVE_API_URL: 'http://127.0.0.1:9000/google/', DAM_DROPBOX_APP_KEY: 'd', DAM_DROPBOX_CONTENT_URL: 'https://proxy.example/dbx' }));
    expect(drives.google!.apiUrl).toBe('http://127.0.0.1:9000/google');
    expect(drives.dropbox!.contentUrl).toBe('https://proxy.example/dbx');
    for (const bad of ['ftp://x.example', 'not a url', 'https://x.example/?a=1', 'https://user:pw@x.example', 'https://x.example/#f']) {
      expect(() => loadConfig(env({ DAM_GDRIVE_CLIENT_ID: 'g', DAM_GDRIVE_TOKEN_URL: bad }))).toThrow(ConfigError);
    }
    expect(() => loadConfig(env({ DAM_GDRIVE_CLIENT_ID: 'g', DAM_GDRIVE_TOKEN_URL: 'nope' }))).toThrow(/DAM_GDRIVE_TOKEN_URL/);
  });
});

describe('token sealing', () => {
  it('opens only with the same secret, purpose and context, and notices any change', () => {
    const cipher = new TokenCipher(SECRET, 'tokens');
    const sealed = cipher.seal('ya29.secret-token', 'connection:1:drive-ext-1:access');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('secret-token');
    expect(cipher.seal('ya29.secret-token', 'connection:1:drive-ext-1:access')).not.toBe(sealed);
    expect(cipher.open(sealed, 'connection:1:drive-ext-1:access')).toBe('ya29.secret-token');
    expect(() => cipher.open(sealed, 'connection:2:drive-ext-1:access')).toThrow(SealBroken);
    expect(() => cipher.open(sealed, 'connection:1:drive-ext-1:refresh')).toThrow(SealBroken);
    expect(() => new TokenCipher(SECRET, 'listing-cursor').open(sealed, 'connection:1:drive-ext-1:access')).toThrow(SealBroken);
    expect(() => new TokenCipher(`${SECRET}x`, 'tokens').open(sealed, 'connection:1:drive-ext-1:access')).toThrow(SealBroken);
    const flipped = `${sealed.slice(0, 10)}${sealed[10] === 'A' ? 'B' : 'A'}${sealed.slice(11)}`;
    expect(() => cipher.open(flipped, 'connection:1:drive-ext-1:access')).toThrow(SealBroken);
    expect(() => cipher.open('v2.abc', 'x')).toThrow(SealBroken);
  });

  it('return_to stays on this site', () => {
    expect(localPath('/library/drives?x=1#frag')).toBe('/library/drives?x=1');
    expect(localPath('/a/../b')).toBe('/b');
    for (const bad of ['//evil.example', '/\\evil.example', 'https://evil.example/', 'relative', '/%5C%5Cevil', '/\t/evil.example']) {
      if (bad === '/%5C%5Cevil') {
        // Percent-encoded backslashes stay encoded in the path: a path of this site.
        expect(localPath(bad)).toBe('/%5C%5Cevil');
        continue;
      }
      expect(() => localPath(bad), bad).toThrow(/return_to/);
    }
  });
});
