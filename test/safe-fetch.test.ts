import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSafeFetcher,
  FetchFailed,
  FetchForbidden,
  FetchTooLarge,
  type FetchPolicy,
  type ResolvedAddress,
  type Resolver,
} from '../src/fetcher/index.js';
import { refusedRange } from '../src/fetcher/address-policy.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { tempDir } from './helpers/databases.js';
import { startFakeOrigin, type FakeOrigin } from './helpers/fake-origin.js';

/**
 * The SSRF-safe fetcher (src/fetcher/) through its interface: a fake origin on 127.0.0.1, which
 * the default policy refuses, is reached only when DAM_PROXY_ALLOW_HOSTS names it; every other
 * non-public address class is refused, whether written in the URL, resolved from a name (fake
 * resolver) or reached by a redirect.
 */

let origin: FakeOrigin;
beforeAll(async () => {
  origin = await startFakeOrigin();
});
afterAll(() => origin.close());

const policy = (overrides: Partial<FetchPolicy> = {}): FetchPolicy => ({
  allowHosts: [origin.hostPort],
  ports: [80, 443],
  maxBytes: 1024 * 1024,
  timeoutMs: 5000,
  maxRedirects: 3,
  ...overrides,
});

/** A resolver answering from a table, counting its calls; unknown names fail like NXDOMAIN. */
function fakeResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => {
    calls.push(hostname);
    const found = table[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('the fetch succeeded');
}

describe('fetching an allowed origin', () => {
  it('answers the body, status and Content-Type; sends no cookies, credentials or compression request', async () => {
    const fetcher = createSafeFetcher(policy());
    const got = await fetcher.fetch(`${origin.baseUrl}/image.png?token=secret`);
    expect(got.status).toBe(200);
    expect(got.contentType).toBe('image/png');
    expect(got.body.equals(origin.png)).toBe(true);
    const seen = origin.requests.at(-1)!;
    expect(seen.path).toBe('/image.png');
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers['accept-encoding']).toBe('identity');
    expect(seen.headers.host).toBe(origin.hostPort);
  });

  it('connects to the addresses it checked, never resolving the name again (DNS rebinding)', async () => {
    // origin.test exists only in the fake resolver: reaching the origin proves the socket used the checked address.
    const resolver = fakeResolver({ 'origin.test': ['127.0.0.1'] });
    const fetcher = createSafeFetcher(policy({ allowHosts: [`origin.test:${origin.port}`] }), resolver);
    const got = await fetcher.fetch(`http://origin.test:${origin.port}/image.jpg`);
    expect(got.body.equals(origin.jpeg)).toBe(true);
    expect(resolver.calls).toEqual(['origin.test']);
    expect(origin.requests.at(-1)!.headers.host).toBe(`origin.test:${origin.port}`);
  });

  it('follows up to 3 redirects, and fails on the 4th', async () => {
    const fetcher = createSafeFetcher(policy());
    const got = await fetcher.fetch(`${origin.baseUrl}/chain/3`);
    expect(got.url).toBe(`${origin.baseUrl}/image.png`);
    expect(got.body.equals(origin.png)).toBe(true);
    const err = await failure(fetcher.fetch(`${origin.baseUrl}/chain/4`));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/more than 3 redirects/i);
  });

  it('refuses a redirect to a private, link-local or loopback address, or to another scheme', async () => {
    const fetcher = createSafeFetcher(policy());
    for (const to of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]/', 'http://localhost/', 'file:///etc/passwd']) {
      const err = await failure(fetcher.fetch(`${origin.baseUrl}/redirect?to=${encodeURIComponent(to)}`));
      expect(err, to).toBeInstanceOf(FetchForbidden);
    }
    // The same origin on a port the allow list does not name.
    const err = await failure(fetcher.fetch(`${origin.baseUrl}/redirect?to=${encodeURIComponent(`http://127.0.0.1:${origin.port + 1}/`)}`));
    expect(err).toBeInstanceOf(FetchForbidden);
  });

  it('stops a body without Content-Length as soon as it passes the byte limit', async () => {
    const fetcher = createSafeFetcher(policy({ maxBytes: 100 * 1024 }));
    const err = await failure(fetcher.fetch(`${origin.baseUrl}/huge`));
    expect(err).toBeInstanceOf(FetchTooLarge);
    // The origin would send 256 MiB; it got far less out before the fetcher hung up.
    expect(origin.hugeBytesSent()).toBeLessThan(32 * 1024 * 1024);
    // A smaller limit for one fetch.
    const small = await failure(createSafeFetcher(policy()).fetch(`${origin.baseUrl}/image.png`, { maxBytes: 10 }));
    expect(small).toBeInstanceOf(FetchTooLarge);
  });

  it('gives up on a slow answer at the timeout', async () => {
    const fetcher = createSafeFetcher(policy({ timeoutMs: 400 }));
    const started = Date.now();
    const err = await failure(fetcher.fetch(`${origin.baseUrl}/slow`));
    expect(err).toBeInstanceOf(FetchFailed);
    expect(err.message).toMatch(/within 0.4 s/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('fails on a non-2xx answer with its status, and on a refused connection', async () => {
    const fetcher = createSafeFetcher(policy({ allowHosts: [origin.hostPort, `127.0.0.1:1`] }));
    const err = await failure(fetcher.fetch(`${origin.baseUrl}/status/404`));
    expect(err).toBeInstanceOf(FetchFailed);
    expect((err as FetchFailed).status).toBe(404);
    expect(await failure(fetcher.fetch(`${origin.baseUrl}/status/500`))).toBeInstanceOf(FetchFailed);
    expect(await failure(fetcher.fetch('http://127.0.0.1:1/'))).toBeInstanceOf(FetchFailed);
  });
});

describe('refused URLs (the default policy)', () => {
  const fetcher = () => createSafeFetcher(policy({ allowHosts: [] }), fakeResolver({}));

  it('refuses other schemes, credentials and other ports', async () => {
    for (const url of ['ftp://example.com/a.png', 'file:///etc/passwd', 'data:image/png;base64,AAAA', 'gopher://example.com/', 'not a url']) {
      expect(await failure(fetcher().fetch(url)), url).toBeInstanceOf(FetchForbidden);
    }
    const resolver = fakeResolver({ 'example.com': ['93.184.215.14'] });
    const f = createSafeFetcher(policy({ allowHosts: [] }), resolver);
    for (const url of ['http://user:pass@example.com/a.png', 'https://user@example.com/a.png', 'http://example.com:8080/a.png', 'https://example.com:22/']) {
      expect(await failure(f.fetch(url)), url).toBeInstanceOf(FetchForbidden);
    }
    expect(resolver.calls).toEqual([]);
  });

  it('refuses the origin itself when DAM_PROXY_ALLOW_HOSTS does not name it, even on an allowed port', async () => {
    const err = await failure(createSafeFetcher(policy({ allowHosts: [], ports: [origin.port] })).fetch(`${origin.baseUrl}/image.png`));
    expect(err).toBeInstanceOf(FetchForbidden);
    expect(err.message).toMatch(/loopback/);
    const byName = await failure(createSafeFetcher(policy({ allowHosts: [], ports: [origin.port] })).fetch(`http://localhost:${origin.port}/image.png`));
    expect(byName).toBeInstanceOf(FetchForbidden);
  });

  const literals: [string, RegExp][] = [
    ['http://127.0.0.1/', /loopback/],
    ['http://127.255.0.9/', /loopback/],
    ['http://10.1.2.3/', /private/],
    ['http://172.16.0.1/', /private/],
    ['http://172.31.255.254/', /private/],
    ['http://192.168.1.1/', /private/],
    ['http://169.254.169.254/latest/meta-data/', /linkLocal/],
    ['http://100.64.0.1/', /carrierGradeNat/],
    ['http://100.127.255.254/', /carrierGradeNat/],
    ['http://0.0.0.0/', /unspecified/],
    ['http://0/', /unspecified/],
    ['http://224.0.0.1/', /multicast/],
    ['http://239.255.255.250/', /multicast/],
    ['http://255.255.255.255/', /broadcast/],
    ['http://192.0.2.1/', /reserved/],
    ['http://240.0.0.1/', /reserved/],
    ['http://[::]/', /unspecified/],
    ['http://[::1]/', /loopback/],
    ['http://[fc00::1]/', /uniqueLocal/],
    ['http://[fd12:3456::1]/', /uniqueLocal/],
    ['http://[fe80::1]/', /linkLocal/],
    ['http://[fec0::1]/', /SiteLocal/],
    ['http://[ff02::1]/', /multicast/],
    ['http://[2001:db8::1]/', /reserved/],
    ['http://[::ffff:127.0.0.1]/', /loopback \(ipv4Mapped/],
    ['http://[::ffff:7f00:1]/', /loopback \(ipv4Mapped/],
    ['http://[::ffff:10.0.0.1]/', /private \(ipv4Mapped/],
    ['http://[::ffff:169.254.169.254]/', /linkLocal \(ipv4Mapped/],
    ['http://[::ffff:0:7f00:1]/', /loopback \(rfc6145/],
    ['http://[64:ff9b::a00:1]/', /private \(rfc6052/],
    ['http://[2002:7f00:1::1]/', /loopback \(6to4/],
    ['http://[::127.0.0.1]/', /ipv4Compatible/],
    // Decimal, hexadecimal, octal and short IPv4 forms, which the URL parser turns into 127.0.0.1.
    ['http://2130706433/', /loopback/],
    ['http://0x7f.1/', /loopback/],
    ['http://0x7f000001/', /loopback/],
    ['http://0177.0.0.1/', /loopback/],
    ['http://127.1/', /loopback/],
    ['http://127.0.0.1./', /loopback/],
    ['https://[::ffff:a9fe:a9fe]/', /linkLocal/],
  ];
  it.each(literals)('refuses %s', async (url, reason) => {
    const resolver = fakeResolver({});
    const err = await failure(createSafeFetcher(policy({ allowHosts: [] }), resolver).fetch(url));
    expect(err).toBeInstanceOf(FetchForbidden);
    expect(err.message).toMatch(reason);
    // An IP literal is checked as it is, never resolved.
    expect(resolver.calls).toEqual([]);
  });

  it('refuses a name that resolves to a loopback address, or to one public and one private address', async () => {
    const resolver = fakeResolver({
      'rebind.example': ['127.0.0.1'],
      'mixed.example': ['93.184.215.14', '10.0.0.7'],
      'mixed6.example': ['2606:4700::1', 'fd00::1'],
      'mapped.example': ['::ffff:192.168.0.1'],
      'metadata.example': ['169.254.169.254'],
    });
    const f = createSafeFetcher(policy({ allowHosts: [] }), resolver);
    for (const host of ['rebind.example', 'mixed.example', 'mixed6.example', 'mapped.example', 'metadata.example']) {
      const err = await failure(f.fetch(`http://${host}/a.png`));
      expect(err, host).toBeInstanceOf(FetchForbidden);
      expect(err.message).toBe(`${host} does not resolve to a public address`);
    }
  });

  it('refuses a name that does not resolve or resolves to nothing with the same words as a private one (issue #28)', async () => {
    // Different answers would tell a caller which internal names exist on the server's network.
    const f = createSafeFetcher(policy({ allowHosts: [] }), fakeResolver({ 'empty.example': [], 'internal.example': ['10.1.2.3'] }));
    const answers = await Promise.all(['nowhere.example', 'empty.example', 'internal.example'].map((h) => failure(f.fetch(`http://${h}/`))));
    for (const err of answers) expect(err).toBeInstanceOf(FetchForbidden);
    expect(answers.map((e) => e.message.replace(/^\S+/, 'HOST'))).toEqual(Array(3).fill('HOST does not resolve to a public address'));
  });
});

describe('the address rule', () => {
  it('lets public unicast addresses through, in both families and in IPv4-mapped form', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001::1', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      expect(refusedRange(address), address).toBeNull();
    }
  });

  it('refuses the edges of each private range and anything that is not an address', () => {
    for (const address of ['10.255.255.255', '172.16.0.0', '192.168.255.255', '100.64.0.0', '169.254.0.1', '0.1.2.3', 'fe80::1%eth0', 'example.com', '']) {
      expect(refusedRange(address), address).not.toBeNull();
    }
    for (const address of ['172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '11.0.0.0']) {
      expect(refusedRange(address), address).toBeNull();
    }
  });
});

describe('DAM_PROXY_* configuration', () => {
  const env = (vars: Record<string, string | undefined>) => ({ DAM_DATA_DIR: tempDir('dam-config-'), DAM_JWT_SECRET: 'a-secret-that-is-long-enough-0123456789', ...vars });

  it('defaults to ports 80 and 443, 20 MiB, 10 s, an hour, no allowed hosts', () => {
    expect(loadConfig(env({})).proxy).toEqual({ maxBytes: 20 * 1024 * 1024, ports: [80, 443], allowHosts: [], timeoutMs: 10_000, urlTtl: 3600, rateLimit: 600 });
  });

  it('reads the lists and refuses malformed ones', () => {
    const proxy = loadConfig(
      env({ DAM_PROXY_PORTS: '80, 443,8443', DAM_PROXY_ALLOW_HOSTS: 'Intranet.Example:8080, 127.0.0.1:9000,[::1]:80', DAM_PROXY_MAX_BYTES: '1048576', DAM_PROXY_TIMEOUT: '3' }),
    ).proxy;
    expect(proxy).toMatchObject({ ports: [80, 443, 8443], allowHosts: ['intranet.example:8080', '127.0.0.1:9000', '[::1]:80'], maxBytes: 1_048_576, timeoutMs: 3000 });
    for (const vars of [{ DAM_PROXY_PORTS: '80,http' }, { DAM_PROXY_PORTS: '0' }, { DAM_PROXY_PORTS: '70000' }, { DAM_PROXY_ALLOW_HOSTS: 'intranet.example' }, { DAM_PROXY_ALLOW_HOSTS: 'http://a:80' }, { DAM_PROXY_MAX_BYTES: '-1' }]) {
      expect(() => loadConfig(env(vars)), JSON.stringify(vars)).toThrow(ConfigError);
    }
  });
});
