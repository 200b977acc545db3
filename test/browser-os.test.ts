import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTestApp, startTestApp, type TestApp } from './helpers/app.js';
import type { Envelope } from './helpers/factories.js';

/**
 * GET /api/browser-os (issue #13): User-Agent strings and client hints as current browsers send them.
 * No database behaviour: runs on SQLite only.
 */

interface BrowserOs {
  browser: { name: string | null; version: string | null };
  engine: { name: string | null; version: string | null };
  os: { name: string | null; version: string | null };
  device: { type: string | null; vendor: string | null; model: string | null };
  is_bot: boolean;
}

const UA = {
  chromeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chromeMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  firefoxWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  /** Chrome's reduced User-Agent on Android: frozen Android 10 and the placeholder model "K". */
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  samsungPhone: 'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  googlebotSmartphone:
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.69 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

/** What Chrome 131 on Windows 11 sends to an origin that asked for the high-entropy hints. */
const CHROME_WINDOWS_11_HINTS = {
  'sec-ch-ua': '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Windows"',
  'sec-ch-ua-platform-version': '"15.0.0"',
  'sec-ch-ua-full-version-list': '"Google Chrome";v="131.0.6778.86", "Chromium";v="131.0.6778.86", "Not_A Brand";v="24.0.0.0"',
};

const NOTHING: BrowserOs = {
  browser: { name: null, version: null },
  engine: { name: null, version: null },
  os: { name: null, version: null },
  device: { type: null, vendor: null, model: null },
  is_bot: false,
};

describe('GET /api/browser-os', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function ask(headers: Record<string, string>): Promise<BrowserOs> {
    const res = await t.request({ method: 'GET', url: '/api/browser-os', headers });
    expect(res.statusCode).toBe(200);
    const body = res.json<Envelope<BrowserOs>>();
    expect(body.success).toBe(true);
    return body.data;
  }

  describe('from the User-Agent alone', () => {
    it('Chrome on Windows: a desktop', async () => {
      expect(await ask({ 'user-agent': UA.chromeWindows })).toEqual({
        browser: { name: 'Chrome', version: '131.0.0.0' },
        engine: { name: 'Blink', version: '131.0.0.0' },
        os: { name: 'Windows', version: '10' },
        device: { type: 'desktop', vendor: null, model: null },
        is_bot: false,
      });
    });

    it('Chrome on macOS', async () => {
      expect(await ask({ 'user-agent': UA.chromeMac })).toEqual({
        browser: { name: 'Chrome', version: '131.0.0.0' },
        engine: { name: 'Blink', version: '131.0.0.0' },
        os: { name: 'Mac OS', version: '10.15.7' },
        device: { type: 'desktop', vendor: 'Apple', model: 'Macintosh' },
        is_bot: false,
      });
    });

    it('Safari on an iPhone', async () => {
      expect(await ask({ 'user-agent': UA.safariIphone })).toEqual({
        browser: { name: 'Mobile Safari', version: '18.1' },
        engine: { name: 'WebKit', version: '605.1.15' },
        os: { name: 'iOS', version: '18.1' },
        device: { type: 'mobile', vendor: 'Apple', model: 'iPhone' },
        is_bot: false,
      });
    });

    it('Firefox on Windows and on Linux', async () => {
      expect(await ask({ 'user-agent': UA.firefoxWindows })).toEqual({
        browser: { name: 'Firefox', version: '133.0' },
        engine: { name: 'Gecko', version: '133.0' },
        os: { name: 'Windows', version: '10' },
        device: { type: 'desktop', vendor: null, model: null },
        is_bot: false,
      });
      const linux = await ask({ 'user-agent': UA.firefoxLinux });
      expect(linux.os).toEqual({ name: 'Linux', version: null });
      expect(linux.device.type).toBe('desktop');
    });

    it('Edge', async () => {
      const edge = await ask({ 'user-agent': UA.edge });
      expect(edge.browser).toEqual({ name: 'Edge', version: '131.0.0.0' });
      expect(edge.engine.name).toBe('Blink');
      expect(edge.os).toEqual({ name: 'Windows', version: '10' });
    });

    it('Chrome on an Android phone: the reduced UA\'s placeholder model is no model', async () => {
      expect(await ask({ 'user-agent': UA.chromeAndroid })).toEqual({
        browser: { name: 'Chrome', version: '131.0.0.0' },
        engine: { name: 'Blink', version: '131.0.0.0' },
        os: { name: 'Android', version: '10' },
        device: { type: 'mobile', vendor: null, model: null },
        is_bot: false,
      });
      expect((await ask({ 'user-agent': UA.samsungPhone })).device).toEqual({ type: 'mobile', vendor: 'Samsung', model: 'SM-S918B' });
    });

    it('Googlebot is a bot, on the desktop and as a smartphone', async () => {
      expect(await ask({ 'user-agent': UA.googlebot })).toEqual({ ...NOTHING, is_bot: true });
      const smartphone = await ask({ 'user-agent': UA.googlebotSmartphone });
      expect(smartphone.is_bot).toBe(true);
      expect(smartphone.os.name).toBe('Android');
      expect(smartphone.device.type).toBe('mobile');
      expect((await ask({ 'user-agent': 'curl/8.5.0' })).is_bot).toBe(true);
    });

    it('an empty or missing User-Agent: everything unknown', async () => {
      expect(await ask({ 'user-agent': '' })).toEqual(NOTHING);
      // inject() always sends a User-Agent of its own: a real request without one.
      const http = await startHttpTestApp();
      try {
        const answer = await new Promise<string>((resolve, reject) => {
          const req = request(`${http.baseUrl}/api/browser-os`, (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve(body));
          });
          req.on('error', reject).end();
        });
        expect(JSON.parse(answer)).toEqual({ success: true, data: NOTHING });
      } finally {
        await http.close();
      }
    });
  });

  describe('client hints win over the frozen User-Agent', () => {
    it('Chrome on Windows 11 with the high-entropy hints', async () => {
      expect(await ask({ 'user-agent': UA.chromeWindows, ...CHROME_WINDOWS_11_HINTS })).toEqual({
        browser: { name: 'Chrome', version: '131.0.6778.86' },
        engine: { name: 'Blink', version: '131.0.6778.86' },
        os: { name: 'Windows', version: '11' },
        device: { type: 'desktop', vendor: null, model: null },
        is_bot: false,
      });
    });

    it('with the low-entropy hints only: the major version, and the system\'s version from the User-Agent', async () => {
      const { 'sec-ch-ua': brands, 'sec-ch-ua-mobile': mobile, 'sec-ch-ua-platform': platform } = CHROME_WINDOWS_11_HINTS;
      const answer = await ask({ 'user-agent': UA.chromeWindows, 'sec-ch-ua': brands, 'sec-ch-ua-mobile': mobile, 'sec-ch-ua-platform': platform });
      expect(answer.browser).toEqual({ name: 'Chrome', version: '131' });
      expect(answer.engine).toEqual({ name: 'Blink', version: '131' });
      expect(answer.os).toEqual({ name: 'Windows', version: '10' });
    });

    it.each([
      ['0.1.0', '7'],
      ['0.2.0', '8'],
      ['0.3.0', '8.1'],
      ['1.0.0', '10'],
      ['10.0.0', '10'],
      ['12.0.0', '10'],
      ['13.0.0', '11'],
      ['19.0.0', '11'],
    ])('Windows platform version %s is Windows %s', async (platformVersion, windows) => {
      const answer = await ask({ 'user-agent': UA.chromeWindows, 'sec-ch-ua-platform': '"Windows"', 'sec-ch-ua-platform-version': `"${platformVersion}"` });
      expect(answer.os).toEqual({ name: 'Windows', version: windows });
    });

    it('Edge names itself in the brand list', async () => {
      const answer = await ask({
        'user-agent': UA.edge,
        'sec-ch-ua': '"Microsoft Edge";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
        'sec-ch-ua-full-version-list': '"Microsoft Edge";v="131.0.2903.70", "Chromium";v="131.0.6778.86", "Not_A Brand";v="24.0.0.0"',
      });
      expect(answer.browser).toEqual({ name: 'Edge', version: '131.0.2903.70' });
      expect(answer.engine).toEqual({ name: 'Blink', version: '131.0.6778.86' });
    });

    it('an Android phone: system version, model and mobile from the hints', async () => {
      const answer = await ask({
        'user-agent': UA.chromeAndroid,
        'sec-ch-ua': '"Chromium";v="131", "Not_A Brand";v="24", "Google Chrome";v="131"',
        'sec-ch-ua-mobile': '?1',
        'sec-ch-ua-platform': '"Android"',
        'sec-ch-ua-platform-version': '"14.0.0"',
        'sec-ch-ua-model': '"Pixel 8"',
      });
      expect(answer).toEqual({
        browser: { name: 'Chrome', version: '131' },
        engine: { name: 'Blink', version: '131' },
        os: { name: 'Android', version: '14.0.0' },
        device: { type: 'mobile', vendor: null, model: 'Pixel 8' },
        is_bot: false,
      });
    });

    it('macOS by its hint name, in the User-Agent\'s vocabulary', async () => {
      const answer = await ask({ 'user-agent': UA.chromeMac, 'sec-ch-ua-platform': '"macOS"', 'sec-ch-ua-platform-version': '"14.6.1"' });
      expect(answer.os).toEqual({ name: 'Mac OS', version: '14.6.1' });
      expect(answer.device.type).toBe('desktop');
    });

    it.each([
      '"Not A(Brand";v="99", "Google Chrome";v="130", "Chromium";v="130"',
      '"Chromium";v="130", "Not/A)Brand";v="8", "Google Chrome";v="130"',
      '".Not/A)Brand";v="99", "Google Chrome";v="130", "Chromium";v="130"',
      '"Google Chrome";v="130", "Not;A=Brand";v="24", "Chromium";v="130"',
      '"Chromium";v="130";x=1, "Google Chrome";  v="130",\t"Not_A Brand";v="8"',
    ])('GREASE brands and the brands\' order do not matter: %s', async (brands) => {
      expect((await ask({ 'user-agent': UA.chromeWindows, 'sec-ch-ua': brands })).browser).toEqual({ name: 'Chrome', version: '130' });
    });

    it('a browser that lists only Chromium is Chromium; another brand is kept as sent', async () => {
      expect((await ask({ 'user-agent': UA.chromeWindows, 'sec-ch-ua': '"Chromium";v="131", "Not_A Brand";v="24"' })).browser).toEqual({
        name: 'Chromium',
        version: '131',
      });
      expect((await ask({ 'user-agent': UA.chromeWindows, 'sec-ch-ua': '"Brave";v="131", "Chromium";v="131", "Not_A Brand";v="24"' })).browser).toEqual({
        name: 'Brave',
        version: '131',
      });
    });

    it('Sec-CH-UA-Mobile ?1 makes a mobile, ?0 takes "mobile" back', async () => {
      expect((await ask({ 'user-agent': UA.chromeWindows, 'sec-ch-ua-mobile': '?1' })).device.type).toBe('mobile');
      const desktopSite = await ask({ 'user-agent': UA.chromeAndroid, 'sec-ch-ua-mobile': '?0' });
      expect(desktopSite.device.type).toBeNull();
    });

    it.each([
      ['sec-ch-ua', '"Chromium";v="131", "Google Chrome";v="131'],
      ['sec-ch-ua', '"Chromium";v="131", "Google Chrome";v="131",'],
      ['sec-ch-ua', 'Chromium;v=131'],
      ['sec-ch-ua', '"Chromium";v="131" "Google Chrome";v="131"'],
      ['sec-ch-ua', '"Google Chrome" ;v="131"'],
      ['sec-ch-ua', `"Chromium";v="131", ${'"Google Chrome";v="131", '.repeat(60)}"Opera";v="1"`],
      ['sec-ch-ua-platform', 'Windows'],
      ['sec-ch-ua-platform', '"Win\\dows"'],
      ['sec-ch-ua-mobile', '1'],
      ['sec-ch-ua-mobile', '?2'],
    ])('a hint that is not a valid structured field, or too long, is ignored (%s: %s)', async (name, value) => {
      expect(await ask({ 'user-agent': UA.chromeWindows, [name]: value })).toEqual(await ask({ 'user-agent': UA.chromeWindows }));
    });
  });

  it('is public, asks for the high-entropy hints, varies on what it reads and is not cached', async () => {
    const res = await t.request({ method: 'GET', url: '/api/browser-os', headers: { 'user-agent': UA.chromeWindows } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const acceptCh = String(res.headers['accept-ch']).split(/,\s*/);
    expect(acceptCh.sort()).toEqual(['Sec-CH-UA-Full-Version-List', 'Sec-CH-UA-Model', 'Sec-CH-UA-Platform-Version']);
    const vary = String(res.headers.vary).toLowerCase().split(/,\s*/);
    for (const name of ['user-agent', 'sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform', 'sec-ch-ua-platform-version', 'sec-ch-ua-full-version-list', 'sec-ch-ua-model']) {
      expect(vary).toContain(name);
    }
    expect(res.headers['cache-control']).toBe('private, no-store');

    // CORS is open to any origin with one answer for all (`*`, so no Vary: Origin); the route's own entries stay.
    const cors = await t.request({ method: 'GET', url: '/api/browser-os', headers: { origin: 'https://elsewhere.example' } });
    expect(cors.statusCode).toBe(200);
    expect(cors.headers['access-control-allow-origin']).toBe('*');
    expect(String(cors.headers.vary).split(/,\s*/)).toEqual(expect.arrayContaining(['User-Agent', 'Sec-CH-UA']));
  });

  it('a 10 kB User-Agent is answered at once, from its first kilobyte', async () => {
    const started = Date.now();
    const long = await ask({ 'user-agent': `${UA.chromeWindows} ${'(a; '.repeat(2500)}` });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(long.browser.name).toBe('Chrome');
    expect((await ask({ 'user-agent': `${UA.googlebot} ${'x'.repeat(10_000)}` })).is_bot).toBe(true);
    const spaces = await ask({ 'user-agent': ' '.repeat(10_000) });
    expect(spaces.browser.name).toBeNull();
  });
});
