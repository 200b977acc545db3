import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { tempDir } from './helpers/databases.js';

/**
 * iOS universal links (apple-app-site-association) and Android App Links (assetlinks.json),
 * issue #13. No database behaviour: SQLite only.
 */

const IOS_APPS = ['ABCDE12345.com.example.dam', 'ABCDE12345.com.example.dam.beta'];
const FINGERPRINT = '14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5';
const FINGERPRINT_2 = 'AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99';
const AASA_PATHS = ['/.well-known/apple-app-site-association', '/ios-association'];
const ASSET_LINKS = '/.well-known/assetlinks.json';

describe('app association files, configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      config: { appAssociation: { iosAppIds: IOS_APPS, android: { packageName: 'com.example.dam', fingerprints: [FINGERPRINT, FINGERPRINT_2] } } },
    });
  });
  afterAll(() => t.close());

  it.each(AASA_PATHS)('GET %s answers the apple-app-site-association file', async (url) => {
    const res = await t.request({ method: 'GET', url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers.location).toBeUndefined();
    expect(res.json()).toEqual({
      applinks: {
        details: [
          {
            appIDs: IOS_APPS,
            components: [
              { '/': '/s/*', comment: 'Shared asset pages' },
              { '/': '/asset/*', comment: 'Asset pages' },
            ],
          },
        ],
      },
      webcredentials: { apps: IOS_APPS },
    });
  });

  it('the same file at both addresses, to a browser as well (the web client does not take them over)', async () => {
    const [a, b] = await Promise.all(AASA_PATHS.map((url) => t.request({ method: 'GET', url, headers: { accept: 'text/html,*/*' } })));
    expect(a!.statusCode).toBe(200);
    expect(a!.headers['content-type']).toBe('application/json');
    expect(a!.body).toBe(b!.body);
  });

  it('GET /.well-known/assetlinks.json answers the Digital Asset Links statement', async () => {
    const res = await t.request({ method: 'GET', url: ASSET_LINKS });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.json()).toEqual([
      {
        relation: ['delegate_permission/common.handle_all_urls', 'delegate_permission/common.get_login_creds'],
        target: { namespace: 'android_app', package_name: 'com.example.dam', sha256_cert_fingerprints: [FINGERPRINT, FINGERPRINT_2] },
      },
    ]);
  });

  it('needs no token, and HEAD works too', async () => {
    for (const url of [...AASA_PATHS, ASSET_LINKS]) {
      const res = await t.request({ method: 'HEAD', url, headers: { authorization: 'Bearer not-a-token' } });
      expect(res.statusCode, url).toBe(200);
    }
  });

  it('keeps the security headers', async () => {
    const res = await t.request({ method: 'GET', url: ASSET_LINKS });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    // Fetched by the platforms' verifiers from anywhere: CORS stays open (seed 1).
    const cors = await t.request({ method: 'GET', url: AASA_PATHS[0]!, headers: { origin: 'https://elsewhere.example' } });
    expect(cors.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('app association files, not configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it.each([...AASA_PATHS, ASSET_LINKS])('GET %s is a JSON 404, for a browser too', async (url) => {
    for (const accept of ['application/json', 'text/html']) {
      const res = await t.request({ method: 'GET', url, headers: { accept } });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: expect.stringMatching(/No (iOS|Android) app is associated with this site/) as string, code: 'NOT_FOUND' });
    }
  });

  it('only one platform configured: the other answers 404', async () => {
    const ios = await startTestApp({ config: { appAssociation: { iosAppIds: [IOS_APPS[0]!], android: null } } });
    try {
      expect((await ios.request({ method: 'GET', url: AASA_PATHS[0]! })).statusCode).toBe(200);
      expect((await ios.request({ method: 'GET', url: ASSET_LINKS })).statusCode).toBe(404);
    } finally {
      await ios.close();
    }
  });
});

describe('DAM_IOS_APP_IDS and DAM_ANDROID_APP', () => {
  const load = (vars: Record<string, string>) =>
    loadConfig({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 'a-secret-that-is-long-enough-0123456789', ...vars }).appAssociation;

  it('default to nothing', () => {
    expect(load({})).toEqual({ iosAppIds: [], android: null });
    expect(load({ DAM_IOS_APP_IDS: ' ', DAM_ANDROID_APP: '' })).toEqual({ iosAppIds: [], android: null });
  });

  it('read a comma list of iOS app ids (spaces trimmed, repeats dropped)', () => {
    expect(load({ DAM_IOS_APP_IDS: ' ABCDE12345.com.example.dam , 9Z8Y7X6W5V.com.example-app.dam,ABCDE12345.com.example.dam' }).iosAppIds).toEqual([
      'ABCDE12345.com.example.dam',
      '9Z8Y7X6W5V.com.example-app.dam',
    ]);
  });

  it('read the Android package and its fingerprints, written with colons or as 64 hex digits, in upper case', () => {
    const bare = FINGERPRINT_2.replace(/:/g, '').toLowerCase();
    expect(load({ DAM_ANDROID_APP: `com.example.dam:${FINGERPRINT.toLowerCase()}, ${bare}` }).android).toEqual({
      packageName: 'com.example.dam',
      fingerprints: [FINGERPRINT, FINGERPRINT_2],
    });
  });

  it.each([
    ['DAM_IOS_APP_IDS', 'com.example.dam'],
    ['DAM_IOS_APP_IDS', 'ABCDE1234.com.example.dam'],
    ['DAM_IOS_APP_IDS', 'abcde12345.com.example.dam'],
    ['DAM_IOS_APP_IDS', 'ABCDE12345.com.example.dam,'],
    ['DAM_IOS_APP_IDS', 'ABCDE12345.com/example'],
    ['DAM_ANDROID_APP', 'com.example.dam'],
    ['DAM_ANDROID_APP', 'dam:' + FINGERPRINT],
    ['DAM_ANDROID_APP', '1com.example:' + FINGERPRINT],
    ['DAM_ANDROID_APP', 'com.example.dam:'],
    ['DAM_ANDROID_APP', 'com.example.dam:AA:BB:CC'],
    ['DAM_ANDROID_APP', 'com.example.dam:' + FINGERPRINT.replace('14', 'ZZ')],
    ['DAM_ANDROID_APP', `com.example.dam:${FINGERPRINT},`],
  ])('refuse %s=%s at start-up', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(ConfigError);
    expect(() => load({ [name]: value })).toThrow(name);
  });
});
