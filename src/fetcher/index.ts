/**
 * Fetching outside URLs safely (issue #13): the one way this server requests a URL a user (or a
 * provider's answer) named. Every hop's host is resolved, every address checked (no loopback,
 * private, link-local, CGNAT, ... see `address-policy.ts`), and the socket connects to exactly the
 * checked address, so DNS rebinding cannot swap it. Callers get the body or one of the typed errors
 * below and map them to the catalogue themselves (the image proxy: PROXY_*).
 */
export { createSafeFetcher, dnsResolver, checkUrlText } from './safe-fetch.js';
export { policyFromConfig } from './policy.js';

/** An address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to all its addresses (default: dns.lookup with all: true); replaceable in tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface FetchPolicy {
  /** `host:port` pairs let through whatever they resolve to (tests, intranets); exact, lower case. */
  readonly allowHosts: readonly string[];
  /** Ports an outside URL may name (default 80 and 443). */
  readonly ports: readonly number[];
  /** Largest body in bytes, counted while streaming (Content-Length is not trusted). */
  readonly maxBytes: number;
  /** Connect + whole-answer timeout of one fetch (all hops), milliseconds. */
  readonly timeoutMs: number;
  /** Redirects followed (each hop checked again); one more is a failure. */
  readonly maxRedirects: number;
}

export interface FetchOptions {
  /** A smaller byte limit than the policy's for this fetch. */
  maxBytes?: number;
  /** The Accept header sent upstream (default `*\/*`). */
  accept?: string;
}

export interface FetchedBody {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** The upstream Content-Type header as sent, or null. */
  contentType: string | null;
  body: Buffer;
}

export interface SafeFetcher {
  /** A 2xx answer's body; throws FetchForbidden, FetchTooLarge or FetchFailed. */
  fetch(url: string, options?: FetchOptions): Promise<FetchedBody>;
}

/** The URL (or a redirect's target) is not one we may fetch: scheme, port, credentials, address. */
export class FetchForbidden extends Error {
  override readonly name = 'FetchForbidden';
}

/** The body is longer than the byte limit (stopped as soon as it was). */
export class FetchTooLarge extends Error {
  override readonly name = 'FetchTooLarge';
}

/** The target could not be fetched: DNS, connection, timeout, non-2xx, too many redirects. */
export class FetchFailed extends Error {
  override readonly name = 'FetchFailed';
  constructor(
    message: string,
    /** The upstream status, when it answered one that is not a success. */
    readonly status?: number,
  ) {
    super(message);
  }
}
