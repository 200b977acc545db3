import { existsSync, mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type JSHandle, type Page } from 'playwright-core';
import type { AppConfig } from '../../src/config.js';
import { startHttpTestApp, type TestApp } from '../helpers/app.js';
import { startFakeGoogle, type FakeGoogle } from '../helpers/fake-google.js';

/** Debian's chromium (.ci/run installs it); CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.DAM_TEST_REQUIRE_BROWSER === '1') {
  throw new Error(`DAM_TEST_REQUIRE_BROWSER=1 but there is no chromium at ${CHROMIUM}`);
}

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

export interface BrowserApp {
  app: TestApp & { baseUrl: string };
  google: FakeGoogle;
  close(): Promise<void>;
}

/** The real server on 127.0.0.1 (serving web/dist) with social login pointed at a fake Google; `config` overrides more. */
export async function startBrowserApp(config: Partial<AppConfig> = {}): Promise<BrowserApp> {
  const google = await startFakeGoogle();
  const app = await startHttpTestApp({ config: { social: google.config, allowRegistration: true, ...config } });
  return {
    app,
    google,
    close: async () => {
      await app.close();
      await google.close();
    },
  };
}

export interface BrowserSuite {
  browser: Browser;
  env: BrowserApp;
  /** The app's base URL. */
  base: string;
}

/**
 * The lifetime of a browser test file: one app and one chromium for the file, started before its
 * tests (then `setUp` seeds what the file needs) and closed after them, and after every test the
 * check that no page saw a Content-Security-Policy violation (src/http/security-headers.ts).
 */
export function useBrowserSuite(
  setUp: (suite: BrowserSuite) => Promise<void> | void,
  /** The app's config beyond the defaults, asked for when the app starts (after the file's earlier beforeAll hooks, e.g. a fake provider's). */
  config: () => Partial<AppConfig> = () => ({}),
): void {
  let suite: BrowserSuite | undefined;
  beforeAll(async () => {
    const [env, browser] = await Promise.all([startBrowserApp(config()), launchBrowser()]);
    suite = { env, browser, base: env.app.baseUrl };
    await setUp(suite);
  });
  afterAll(async () => {
    await suite?.browser.close();
    await suite?.env.close();
  });
  afterEach(() => {
    expect(takePolicyViolations()).toEqual([]);
  });
}

/** Content-Security-Policy violations seen by every page of this file (see watchPolicy). */
const violations: string[] = [];

/** The violations since the last call (test files assert none after each test). */
export function takePolicyViolations(): string[] {
  return violations.splice(0);
}

/**
 * Records CSP violations of every page of the context: the `securitypolicyviolation` events
 * (reported to the test through a binding) and the console's "Refused to ..." messages.
 */
async function watchPolicy(context: BrowserContext): Promise<void> {
  await context.exposeBinding('__damPolicyViolation', (_source, text: string) => {
    violations.push(text);
  });
  // Runs in the page (written as source: this file is type-checked without the DOM library).
  await context.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => {
      window.__damPolicyViolation(e.effectiveDirective + ' blocked ' + (e.blockedURI || 'inline') + ' in ' + e.documentURI);
    });`,
  });
  context.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(`console: ${message.text()}`);
  });
}

export async function newPage(browser: Browser, options: { width?: number; height?: number } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 820 }, locale: 'en-GB' });
  await watchPolicy(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

/** Saves a full-page screenshot under test-results/screenshots/ (look at them). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/**
 * A page at desktop and phone width, in light and dark: four screenshots named <name>-<desktop|phone>-<light|dark>.
 * `ready` runs before each shot (a page that re-lays out at a width). The viewport and colour scheme are put back.
 */
export async function screenshotVariants(page: Page, name: string, ready: () => Promise<unknown> = async () => undefined): Promise<void> {
  const size = page.viewportSize() ?? { width: 1280, height: 820 };
  for (const [label, width, height] of [['desktop', 1280, 820], ['phone', 390, 844]] as const) {
    await page.setViewportSize({ width, height });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await ready();
      // Buttons and cards fade over 0.12-0.15 s (main.css): a shot taken at once catches them half-way.
      await page.waitForTimeout(300);
      await screenshot(page, `${name}-${label}-${scheme}`);
    }
  }
  await page.setViewportSize(size);
  await page.emulateMedia({ colorScheme: 'light' });
}

/** The `data` of an API call made with `token` (test set-up); anything but a 2xx throws with the answer's text. */
export async function apiData<T>(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

export interface Session {
  token: string;
  user: { id: number; email: string; name: string };
  workspaces: { id: number; name: string; role: string }[];
}

let seq = 0;
/** Registers a user through the API. */
export async function registerApi(baseUrl: string, name = 'Test User'): Promise<Session & { email: string; password: string }> {
  seq += 1;
  const email = `${name.toLowerCase().replace(/\W+/g, '.')}.${seq}.${Date.now().toString(36)}@example.test`;
  const password = 'correct horse battery';
  const res = await fetch(`${baseUrl}/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, name }),
  });
  if (res.status !== 201) throw new Error(`register: ${res.status} ${await res.text()}`);
  return { ...((await res.json()) as Session), email, password };
}

/** A browser context already signed in as `session` (the client keeps its session in localStorage). */
export async function signedInPage(browser: Browser, session: Session, options: { width?: number; height?: number } = {}) {
  const { context, page } = await newPage(browser, options);
  // Runs in the page (written as source: this file is type-checked without the DOM library).
  const stored = JSON.stringify({ token: session.token, user: session.user, workspaces: session.workspaces });
  await context.addInitScript({
    content: `if (!localStorage.getItem('dam.session')) {
      localStorage.setItem('dam.session', ${JSON.stringify(stored)});
      localStorage.setItem('dam.workspace', ${JSON.stringify(String(session.workspaces[0]?.id ?? ''))});
    }`,
  });
  return { context, page };
}

/** Uploads a file through POST /api/upload-asset (seed 4.6), for test data. */
export async function uploadApi(
  baseUrl: string,
  token: string,
  workspaceId: number,
  file: { name: string; type: string; data: Uint8Array; tags?: string[]; visibility?: number; folderId?: number },
): Promise<{ id: number }> {
  const form = new FormData();
  form.set('workspaceId', String(workspaceId));
  if (file.tags) form.set('tags', JSON.stringify(file.tags));
  if (file.visibility !== undefined) form.set('visibility', String(file.visibility));
  if (file.folderId !== undefined) form.set('folder_id', String(file.folderId));
  form.set('file', new Blob([file.data], { type: file.type }), file.name);
  const res = await fetch(`${baseUrl}/api/upload-asset`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: { id: number } }).data;
}

/** Drops files (name, type, bytes) on the page's main area, as a drag from the desktop does: each a new File object. */
export async function dropFiles(page: Page, files: readonly { name: string; type: string; bytes: Uint8Array }[]): Promise<void> {
  const list = JSON.stringify(files.map((f) => ({ name: f.name, type: f.type, data: Buffer.from(f.bytes).toString('base64') })));
  // In-page code is written as source: this file is type-checked without the DOM library.
  const dataTransfer: JSHandle = await page.evaluateHandle(`(() => {
    const dt = new DataTransfer();
    for (const f of ${list}) dt.items.add(new File([Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
    return dt;
  })()`);
  for (const type of ['dragenter', 'dragover', 'drop']) await page.dispatchEvent('main', type, { dataTransfer });
}

/** A PNG of the given size and colour. */
export async function png(width: number, height: number, color: string): Promise<Uint8Array> {
  const sharp = (await import('sharp')).default;
  return new Uint8Array(await sharp({ create: { width, height, channels: 3, background: color } }).png().toBuffer());
}

/**
 * Evaluates `expression` (in-page source) until it answers something other than null or undefined, and answers that.
 * Not page.waitForFunction: once its first try fails it polls through `new Function` in the page, which the client's
 * Content-Security-Policy (no 'unsafe-eval') refuses; page.evaluate runs through the DevTools protocol instead.
 */
export async function pollInPage<T>(page: Page, expression: string, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await page.evaluate<T | null | undefined>(expression);
    if (value !== null && value !== undefined) return value;
    if (Date.now() > until) throw new Error(`pollInPage: still nothing after ${timeoutMs} ms: ${expression.slice(0, 120)}`);
    await page.waitForTimeout(100);
  }
}
