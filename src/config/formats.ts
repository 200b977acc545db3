import path from 'node:path';
import { tileTemplateProblem } from '../domain/map-tiles.js';
import { ConfigError } from './declare.js';

/**
 * The parsers of the variables whose values have a format of their own (vars.ts names them in its
 * declarations). Each takes the raw value and the variable's name, and throws a ConfigError naming it.
 * A parser of a secret never puts the value into its message.
 */

/**
 * DAM_TRUST_PROXY (issue #28): how many proxies stand in front (a hop count), or their addresses. The client
 * address is then the rightmost X-Forwarded-For entry no trusted proxy wrote, never the leftmost, which the
 * client itself may have written. `true` means one proxy (1 hop), the common case.
 */
export function trustProxy(raw: string, name: string): false | number | string {
  if (raw === 'false') return false;
  if (raw === 'true') return 1;
  if (/^\d{1,2}$/.test(raw)) {
    const hops = Number(raw);
    if (hops >= 1 && hops <= 10) return hops;
  }
  if (!/^[0-9a-fA-F:./]+(\s*,\s*[0-9a-fA-F:./]+)*$/.test(raw) || /^\d+$/.test(raw)) {
    throw new ConfigError(`${name} must be false, true (one proxy), a hop count from 1 to 10, or a comma list of proxy addresses/CIDRs, got "${raw}"`);
  }
  return raw;
}

export function databaseUrl(raw: string, name: string): string {
  // No "got": the URL carries the database password.
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(raw)) throw new ConfigError(`${name} must start with sqlite: or postgres://`);
  return raw;
}

export function redisUrl(raw: string, name: string): string {
  if (!/^rediss?:\/\/\S+$/.test(raw)) throw new ConfigError(`${name} must be a redis:// or rediss:// URL`);
  return raw;
}

export function resolvedPath(raw: string): string {
  return path.resolve(raw);
}

/** A signing secret: at least 32 characters. */
export function signingSecret(raw: string, name: string): string {
  if (raw.length < 32) throw new ConfigError(`${name} must be at least 32 characters`);
  return raw;
}

/** DAM_JWT_SECRET_PREVIOUS: a comma list of retired secrets that still verify during a rotation. */
export function previousSecrets(raw: string, name: string): string[] {
  const list = raw.split(',').map((item) => signingSecret(item.trim(), `each secret of ${name}`));
  if (list.length > 8) throw new ConfigError(`${name} takes at most 8 secrets`);
  return list;
}

/** DAM_METRICS_TOKEN: at least 16 characters (a scraper's secret, guessed otherwise), no whitespace (it travels in a header). */
export function metricsToken(raw: string, name: string): string {
  if (raw.length < 16 || raw.length > 512 || /\s/.test(raw)) throw new ConfigError(`${name} must be 16 to 512 characters without whitespace`);
  return raw;
}

export function ports(raw: string, name: string): number[] {
  return raw.split(',').map((item) => {
    const port = Number(item.trim());
    if (!/^\d{1,5}$/.test(item.trim()) || port < 1 || port > 65_535) {
      throw new ConfigError(`${name} must be a comma list of ports (1-65535), got "${raw}"`);
    }
    return port;
  });
}

/** `host:port` pairs, lower case; an IPv6 host in brackets (`[::1]:8080`), as URL.host writes it. */
export function hostPorts(raw: string, name: string): string[] {
  return raw.split(',').map((item) => {
    const value = item.trim().toLowerCase();
    if (!/^([a-z0-9.-]+|\[[0-9a-f:.]+\]):\d{1,5}$/.test(value)) {
      throw new ConfigError(`${name} must be a comma list of host:port pairs, got "${item.trim()}"`);
    }
    return value;
  });
}

/** An Apple app id: the 10-character Team ID, a dot, the bundle id (letters, digits, hyphens, dots). */
const IOS_APP_ID = /^[A-Z0-9]{10}\.[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/;
/** An Android application id: two or more dot-separated segments, each starting with a letter. */
const ANDROID_PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
/** A SHA-256 fingerprint as keytool prints it (32 colon-separated hex bytes) or as 64 hex digits. */
const SHA256_FINGERPRINT = /^([0-9A-F]{2}(:[0-9A-F]{2}){31}|[0-9A-F]{64})$/;

export function iosAppIds(raw: string, name: string): string[] {
  const ids = raw.split(',').map((item) => {
    const id = item.trim();
    if (!IOS_APP_ID.test(id) || id.length > 255) {
      throw new ConfigError(`${name} must be a comma list of TEAMID.bundle.id (e.g. ABCDE12345.com.example.dam), got "${id}"`);
    }
    return id;
  });
  return [...new Set(ids)];
}

export interface AndroidApp {
  readonly packageName: string;
  readonly fingerprints: readonly string[];
}

/** `package:FINGERPRINT[,FINGERPRINT...]`: the package name ends at the first colon (package names have none). */
export function androidApp(value: string, name: string): AndroidApp {
  const raw = value.trim();
  const at = raw.indexOf(':');
  const packageName = at < 0 ? raw : raw.slice(0, at);
  const usage = `${name} must be package:SHA256[,SHA256...] (e.g. com.example.dam:14:6D:E9:...:B8 with 32 hex bytes per fingerprint)`;
  if (at < 0 || !ANDROID_PACKAGE.test(packageName) || packageName.length > 255) throw new ConfigError(`${usage}, got "${raw}"`);
  const fingerprints = raw
    .slice(at + 1)
    .split(',')
    .map((item) => {
      const fp = item.trim().toUpperCase();
      if (!SHA256_FINGERPRINT.test(fp)) throw new ConfigError(`${usage}; "${item.trim()}" is not a SHA-256 fingerprint`);
      return fp.includes(':') ? fp : (fp.match(/../g) ?? []).join(':');
    });
  return Object.freeze({ packageName, fingerprints: Object.freeze([...new Set(fingerprints)]) });
}

/** The URL as an error may show it: scheme, host and port only (an SMTP URL carries credentials, some providers' user name is a token too). */
function schemeAndHost(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/** DAM_SMTP_URL: `smtp://user:pass@host:port` or `smtps://…`. The password is never part of an error message. */
export function smtpUrl(value: string, name: string): string {
  const raw = value.trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an smtp:// or smtps:// URL (smtp://user:pass@host:587), got a value that is not a URL`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new ConfigError(`${name} must be an smtp:// or smtps:// URL (smtp://user:pass@host:587), got "${schemeAndHost(url)}"`);
  }
  if (url.hostname === '') throw new ConfigError(`${name} must name a host, got "${schemeAndHost(url)}"`);
  return raw;
}

/** One address, optionally after a display name (`Name <address>`); no line breaks (it becomes a header). */
export function mailFrom(value: string, name: string): string {
  const from = value.trim();
  if (!/^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(from)) {
    throw new ConfigError(`${name} must be an e-mail address, optionally after a name (DAM <no-reply@example.com>), got "${from}"`);
  }
  return from;
}

export function tileUrl(value: string, name: string): string {
  const url = value.trim();
  const problem = tileTemplateProblem(url);
  if (problem) throw new ConfigError(`${name} ${problem}, got "${url}"`);
  return url;
}

export function attribution(value: string, name: string): string {
  const html = value.trim();
  if (html.length > 1000) throw new ConfigError(`${name} must be at most 1000 characters`);
  return html;
}
