import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { refusedRange } from './address-policy.js';
import {
  FetchFailed,
  FetchForbidden,
  FetchTooLarge,
  type FetchedBody,
  type FetchOptions,
  type FetchPolicy,
  type ResolvedAddress,
  type Resolver,
  type SafeFetcher,
} from './index.js';

/** Every address of a host name, as the system resolver (getaddrinfo) gives them. */
export const dnsResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'DAM-image-proxy/1.0';

/** A URL whose every address was checked, with the addresses the socket may connect to. */
interface CheckedTarget {
  url: URL;
  hostname: string;
  port: number;
  addresses: ResolvedAddress[];
}

export function createSafeFetcher(policy: FetchPolicy, resolver: Resolver = dnsResolver): SafeFetcher {
  return { fetch: (url, options) => fetchSafely(policy, resolver, url, options ?? {}) };
}

async function fetchSafely(policy: FetchPolicy, resolver: Resolver, input: string, options: FetchOptions): Promise<FetchedBody> {
  const maxBytes = Math.min(options.maxBytes ?? policy.maxBytes, policy.maxBytes);
  const controller = new AbortController();
  // One deadline for the whole fetch: DNS, connects, redirects and the body.
  const timer = setTimeout(() => controller.abort(), policy.timeoutMs);
  try {
    let url = checkUrlText(input);
    for (let hop = 0; ; hop += 1) {
      const target = await checkTarget(policy, resolver, url, controller.signal);
      const answer = await send(target, options.accept ?? '*/*', controller.signal);
      const status = answer.statusCode ?? 0;
      const location = answer.headers.location;
      if (REDIRECTS.has(status) && location) {
        answer.destroy();
        if (hop >= policy.maxRedirects) throw new FetchFailed(`More than ${policy.maxRedirects} redirects`);
        url = checkUrlText(location, url);
        continue;
      }
      if (status < 200 || status > 299) {
        answer.destroy();
        throw new FetchFailed(`${target.hostname} answered ${status}`, status);
      }
      const body = await readLimited(answer, maxBytes);
      return { url: url.href, status, contentType: answer.headers['content-type'] ?? null, body };
    }
  } catch (err) {
    if (err instanceof FetchForbidden || err instanceof FetchTooLarge) throw err;
    if (controller.signal.aborted) throw new FetchFailed(`No complete answer within ${policy.timeoutMs / 1000} s`);
    if (err instanceof FetchFailed) throw err;
    // Only the error code: a message may repeat the URL, and with it a token in its query.
    throw new FetchFailed(`The request failed (${(err as NodeJS.ErrnoException).code ?? 'network error'})`);
  } finally {
    clearTimeout(timer);
  }
}

/** A URL we may fetch, by its text alone: http(s), no credentials. `base` resolves a redirect's Location. */
export function checkUrlText(text: string, base?: URL): URL {
  let url: URL;
  try {
    // The WHATWG parser normalises hosts: 2130706433, 0x7f.1 and 127.1 all become 127.0.0.1.
    url = new URL(text, base);
  } catch {
    throw base ? new FetchFailed('The redirect target is not a valid URL') : new FetchForbidden('The URL is not valid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchForbidden(`Only http and https URLs are fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new FetchForbidden('URLs with credentials are not fetched');
  return url;
}

/** Resolves the host and checks the port and every address, unless `host:port` is allowed as such. */
async function checkTarget(policy: FetchPolicy, resolver: Resolver, url: URL, signal: AbortSignal): Promise<CheckedTarget> {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  // url.hostname is lower case, an IPv6 address in brackets: the form DAM_PROXY_ALLOW_HOSTS is written in.
  const allowed = policy.allowHosts.includes(`${url.hostname}:${port}`);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!allowed && !policy.ports.includes(port)) throw new FetchForbidden(`Port ${port} is not allowed`);
  const family = isIP(hostname);
  // A name that resolves to nothing, fails to resolve, or resolves to a refused address gets one answer (issue #28):
  // telling them apart would let a caller map the internal names of the server's network.
  const unfit = () => new FetchForbidden(`${hostname} does not resolve to a public address`);
  const addresses = family ? [{ address: hostname, family: family as 4 | 6 }] : await resolve(resolver, hostname, signal, unfit);
  if (addresses.length === 0) throw unfit();
  if (!allowed) {
    // Every address: the socket may be given any of them (Happy Eyeballs tries several).
    for (const { address } of addresses) {
      const refusal = refusedRange(address);
      if (refusal) throw family ? new FetchForbidden(`${hostname} is a ${refusal} address, which is not fetched`) : unfit();
    }
  }
  return { url, hostname, port, addresses };
}

async function resolve(resolver: Resolver, hostname: string, signal: AbortSignal, unfit: () => Error): Promise<ResolvedAddress[]> {
  // getaddrinfo cannot be cancelled; the deadline stops waiting for it.
  const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
  aborted.catch(() => undefined);
  try {
    const found = await Promise.race([resolver(hostname), aborted]);
    return found.map(({ address }) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
  } catch (err) {
    if (signal.aborted) throw err;
    throw unfit();
  }
}

/**
 * The request, connected to the checked addresses only: the lookup hook hands the socket the
 * addresses checked above instead of resolving the name again, so a DNS answer that changes
 * between check and connect (rebinding) is never used. An IP literal is connected to as is.
 * No cookies, no credentials, no compression (the byte limit counts what we decode: nothing).
 */
function send(target: CheckedTarget, accept: string, signal: AbortSignal): Promise<http.IncomingMessage> {
  const lookup = ((_hostname, options, callback) => {
    if (options.all) callback(null, target.addresses);
    else callback(null, target.addresses[0]!.address, target.addresses[0]!.family);
  }) as LookupFunction;
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        method: 'GET',
        headers: { host: target.url.host, accept, 'accept-encoding': 'identity', 'user-agent': USER_AGENT },
        lookup,
        // A fresh agent: no pooled socket connected for an earlier check is reused.
        agent: false,
        signal,
      },
      resolve,
    );
    request.on('error', reject);
    request.end();
  });
}

/** The body, stopped as soon as it passes `maxBytes` (a Content-Length above it stops it at once). */
async function readLimited(answer: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  const tooLarge = () => new FetchTooLarge(`The answer is larger than ${maxBytes} bytes`);
  const declared = Number(answer.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    answer.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of answer as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      answer.destroy();
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  if (!answer.complete) throw new FetchFailed('The answer was cut off');
  return Buffer.concat(chunks);
}
