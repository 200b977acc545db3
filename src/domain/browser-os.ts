import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';
import type { Brand, ClientHints } from './client-hints.js';

/**
 * What a client runs on (GET /api/browser-os, issue #13): the User-Agent read by ua-parser-js 1.x
 * (MIT), then corrected by the User-Agent Client Hints the browser sent, which are more exact than
 * the "reduced" User-Agent Chromium freezes (Windows NT 10.0 for Windows 11 too, Android 10, model
 * "K", Chrome/131.0.0.0). Names use ua-parser-js' vocabulary whichever source they come from
 * ("Chrome", "Edge", "Mac OS", "Chromium OS"), so a client sees one name per browser and system.
 * Unknown values are null. Pure: no I/O.
 */

export interface NameVersion {
  name: string | null;
  version: string | null;
}

export interface BrowserOs {
  browser: NameVersion;
  engine: NameVersion;
  os: NameVersion;
  device: { type: string | null; vendor: string | null; model: string | null };
  is_bot: boolean;
}

/** Only this much of the User-Agent is read (ua-parser-js itself reads 500 characters): real ones are under 300. */
export const MAX_UA_LENGTH = 1024;

/** Client-hint brands -> ua-parser-js browser names. Others ("Opera", "Brave", "YaBrowser") are kept as sent. */
const BRAND_NAMES: Record<string, string> = {
  'Google Chrome': 'Chrome',
  'Microsoft Edge': 'Edge',
  'Android WebView': 'Chrome WebView',
  'Samsung Internet': 'Samsung Browser',
};

/** Sec-CH-UA-Platform values -> ua-parser-js OS names ("Windows", "Android", "Linux", "iOS" are the same). */
const PLATFORM_NAMES: Record<string, string> = { macOS: 'Mac OS', 'Chrome OS': 'Chromium OS' };

/**
 * Systems that run on desktop and laptop computers. ua-parser-js gives no device type for them (it
 * only names mobile, tablet, console, smarttv, wearable, xr, embedded), so one of these with no other
 * type answers "desktop". An iPad in desktop mode says it is a Mac and is reported as one.
 */
const DESKTOP_SYSTEMS = new Set([
  'Windows', 'Mac OS', 'Linux', 'Chromium OS', 'Ubuntu', 'Kubuntu', 'Debian', 'Fedora', 'Mint', 'Arch', 'Gentoo', 'SUSE',
  'openSUSE', 'Red Hat', 'CentOS', 'Mandriva', 'Slackware', 'Mageia', 'Manjaro', 'elementary OS', 'Deepin',
  'FreeBSD', 'OpenBSD', 'NetBSD', 'DragonFly', 'Solaris', 'Unix', 'Haiku',
]);

/** The reduced User-Agent of Chromium on Android writes this in place of the device model. */
const REDUCED_MODEL = 'K';

/** The browser's own brand: a Chromium-based browser lists "Chromium" besides its own name. */
function significantBrand(brands: Brand[]): Brand | undefined {
  return brands.find((b) => b.brand !== 'Chromium') ?? brands.find((b) => b.brand === 'Chromium');
}

/**
 * Sec-CH-UA-Platform-Version of Windows is the Windows.Foundation.UniversalApiContract version:
 * 13 and above is Windows 11, 1 to 12 Windows 10, 0.1 / 0.2 / 0.3 Windows 7 / 8 / 8.1.
 */
function windowsVersion(platformVersion: string): string | null {
  const [major, minor] = platformVersion.split('.').map(Number);
  if (major === undefined || Number.isNaN(major)) return null;
  if (major >= 13) return '11';
  if (major >= 1) return '10';
  return ({ 1: '7', 2: '8', 3: '8.1' } as Record<number, string>)[minor ?? -1] ?? null;
}

function applyHints(result: BrowserOs, hints: ClientHints): void {
  const brands = hints.fullVersions?.length ? hints.fullVersions : hints.brands;
  const brand = brands && significantBrand(brands);
  if (brand) {
    const name = BRAND_NAMES[brand.brand] ?? brand.brand;
    const full = hints.fullVersions?.find((b) => b.brand === brand.brand)?.version;
    const major = hints.brands?.find((b) => b.brand === brand.brand)?.version ?? brand.version.split('.')[0] ?? null;
    result.browser = { name, version: full ?? major };
    const chromium = hints.fullVersions?.find((b) => b.brand === 'Chromium') ?? hints.brands?.find((b) => b.brand === 'Chromium');
    if (chromium) result.engine = { name: 'Blink', version: chromium.version };
  }

  if (hints.platform && hints.platform !== 'Unknown') {
    const name = PLATFORM_NAMES[hints.platform] ?? hints.platform;
    let version = name === result.os.name ? result.os.version : null;
    if (hints.platformVersion) version = name === 'Windows' ? windowsVersion(hints.platformVersion) : hints.platformVersion;
    result.os = { name, version };
  }

  if (hints.mobile === true) result.device.type = 'mobile';
  else if (hints.mobile === false && result.device.type === 'mobile') result.device.type = null;
  if (hints.model && hints.model !== result.device.model) {
    // The vendor ua-parser-js found belongs to the model it read, not to this one.
    result.device = { ...result.device, vendor: null, model: hints.model };
  }
}

export function describeClient(userAgent: string | undefined, hints: ClientHints): BrowserOs {
  const ua = (userAgent ?? '').slice(0, MAX_UA_LENGTH);
  const { browser, engine, os, device } = new UAParser(ua).getResult();
  const result: BrowserOs = {
    browser: { name: browser.name ?? null, version: browser.version ?? null },
    engine: { name: engine.name ?? null, version: engine.version ?? null },
    os: { name: os.name ?? null, version: os.version ?? null },
    device: {
      type: device.type ?? null,
      vendor: device.vendor ?? null,
      model: device.model && device.model !== REDUCED_MODEL ? device.model : null,
    },
    is_bot: isbot(ua),
  };
  applyHints(result, hints);
  if (result.device.type === null && result.os.name !== null && DESKTOP_SYSTEMS.has(result.os.name)) result.device.type = 'desktop';
  return result;
}
