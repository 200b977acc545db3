import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, renderConfigMarkdown, renderConfigText } from '../src/config.js';
import { VARS } from '../src/config/vars.js';
import { tempDir } from './helpers/databases.js';
import { transpileServer } from './helpers/transpiled-server.js';

/**
 * Issue #29: docs/configuration.md is generated from the declarations in src/config/vars.ts, and
 * loadConfig reads exactly the variables declared there; `--help-config` prints the same reference.
 */

const PAGE = path.resolve('docs/configuration.md');
const NAMES = Object.keys(VARS);

/** An environment that switches every optional feature on, so that every variable is read. */
function everythingOn(): Record<string, string> {
  return {
    DAM_DATA_DIR: tempDir('dam-config-docs-'),
    DAM_JWT_SECRET: 'a-secret-that-is-long-enough-0123456789',
    DAM_STORAGE: 's3',
    DAM_S3_BUCKET: 'bucket',
    DAM_SMTP_URL: 'smtp://mail.example.test',
    DAM_IMAGE_GEN_API_KEY: 'sk-test',
    DAM_SOCIAL_GOOGLE_CLIENT_ID: 'google-id',
    DAM_GDRIVE_CLIENT_ID: 'gdrive-id',
    DAM_DROPBOX_APP_KEY: 'dropbox-key',
    DAM_ONEDRIVE_CLIENT_ID: 'onedrive-id',
    DAM_STRIPE_SECRET_KEY: 'sk_test',
    DAM_STRIPE_WEBHOOK_SECRET: 'whsec_test',
  };
}

/** The names loadConfig looks up in `vars`, through the public function. */
function namesRead(vars: Record<string, string>): Set<string> {
  const read = new Set<string>();
  const env = new Proxy(vars, {
    get(target, key) {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key) as unknown;
    },
  });
  loadConfig(env);
  return read;
}

describe('docs/configuration.md', () => {
  it('is what the declarations render (run `npm run docs:config` after changing src/config/vars.ts)', () => {
    const page = existsSync(PAGE) ? readFileSync(PAGE, 'utf8') : '';
    if (page !== renderConfigMarkdown()) {
      expect.fail('docs/configuration.md differs from the declarations in src/config/vars.ts: run `npm run docs:config`');
    }
  });

  it('documents every variable under a heading of its own, and its section links resolve', () => {
    const page = renderConfigMarkdown();
    const slugger = new GithubSlugger();
    const anchors = new Set([...page.matchAll(/^#+ (.+)$/gm)].map((m) => slugger.slug(m[1]!)));
    for (const name of NAMES) expect(page).toContain(`\n### \`${name}\`\n`);
    const links = [...page.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) expect(anchors, `#${link}`).toContain(link);
    // Links to other pages name files that exist (the docs move; a declaration must follow).
    const files = [...page.matchAll(/\]\((?!#|https?:)([^)#]+)/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect(existsSync(path.join(path.dirname(PAGE), file)), file).toBe(true);
  });

  it('keeps rows short: no line of the page is longer than 600 characters', () => {
    const longest = Math.max(...renderConfigMarkdown().split('\n').map((line) => line.length));
    expect(longest).toBeLessThan(600);
  });
});

describe('the declarations and loadConfig', () => {
  it('reads every declared variable, and no undeclared one', () => {
    const read = namesRead(everythingOn());
    expect(NAMES.filter((name) => !read.has(name)), 'declared but never read (orphan docs)').toEqual([]);
    expect([...read].filter((name) => !NAMES.includes(name)), 'read but not declared (undocumented)').toEqual([]);
  });

  it.each(NAMES.filter((name) => VARS[name as keyof typeof VARS].onlyWith !== undefined))('reads %s only with what its docs say', (name) => {
    const onlyWith = VARS[name as keyof typeof VARS].onlyWith!;
    const [other = ''] = onlyWith.split('=');
    const vars = everythingOn();
    expect(namesRead(vars).has(name)).toBe(true);
    delete vars[other];
    expect(namesRead(vars).has(name)).toBe(false);
  });

  it('applies the documented defaults', () => {
    const config = loadConfig({ DAM_DATA_DIR: tempDir('dam-config-docs-'), DAM_JWT_SECRET: 'a-secret-that-is-long-enough-0123456789' });
    const { DAM_SESSION_TTL, DAM_MAX_FILE_SIZE, DAM_PROXY_PORTS, DAM_ROLE, DAM_MAP_TILE_URL } = VARS;
    expect(config.sessionTtl).toBe(Number(DAM_SESSION_TTL.default));
    expect(config.maxFileSize).toBe(Number(DAM_MAX_FILE_SIZE.default));
    expect(config.proxy.ports.join(',')).toBe(DAM_PROXY_PORTS.default);
    expect(config.role).toBe(DAM_ROLE.default);
    expect(config.map.tileUrl).toBe(DAM_MAP_TILE_URL.default);
  });

  it('never repeats the value of a secret in an error message', () => {
    const refused: string[] = [];
    for (const name of NAMES.filter((n) => VARS[n as keyof typeof VARS].secret)) {
      for (const bad of ['hunter2', 'http://user:hunter2@x.example', 'hunter2 hunter2 hunter2 hunter2 hunter2']) {
        try {
          loadConfig({ ...everythingOn(), [name]: bad });
        } catch (err) {
          expect(err).toBeInstanceOf(ConfigError);
          expect((err as Error).message).toContain(name);
          expect((err as Error).message).not.toContain('hunter2');
          refused.push(name);
        }
      }
    }
    // The secrets with a format of their own were tried with values they refuse.
    expect(new Set(refused)).toEqual(new Set(['DATABASE_URL', 'DAM_REDIS_URL', 'DAM_METRICS_TOKEN', 'DAM_JWT_SECRET', 'DAM_JWT_SECRET_PREVIOUS', 'DAM_SMTP_URL']));
  });
});

describe('--help-config', () => {
  let server: ReturnType<typeof transpileServer>;
  beforeAll(() => {
    server = transpileServer();
  }, 120_000);
  afterAll(() => server?.remove());

  it('prints the reference as plain text and exits 0 without reading the environment or starting anything', () => {
    const cwd = tempDir('dam-help-config-');
    // An environment loadConfig would refuse: the reference is printed all the same.
    const env = { PATH: process.env.PATH, PORT: 'not-a-port', DAM_DATA_DIR: path.join(cwd, 'data') };
    const run = spawnSync(process.execPath, [server.entry, '--help-config'], { cwd, env, encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toBe(renderConfigText());
    for (const name of NAMES) expect(run.stdout).toContain(`\n${name}\n`);
    expect(run.stdout).not.toMatch(/`|\]\(/);
    expect(Math.max(...run.stdout.split('\n').filter((line) => !line.includes('://')).map((line) => line.length))).toBeLessThanOrEqual(80);
    // Nothing was set up: no data dir (no generated secret, no database).
    expect(existsSync(path.join(cwd, 'data'))).toBe(false);
  });
});
