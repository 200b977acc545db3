import { parseItem as parseSfItem, parseList as parseSfList } from 'structured-headers';

/**
 * The shapes structured-headers parses into, named here: typescript-eslint does not follow the
 * package's re-exported type module, so its own names would read as unresolved there.
 */
type BareItem = string | number | boolean | object;
type Item = [BareItem, Map<string, BareItem>];
type List = Array<Item | [Item[], Map<string, BareItem>]>;
const parseList = parseSfList as (input: string) => List;
const parseItem = parseSfItem as (input: string) => Item;

/**
 * User-Agent Client Hints (https://wicg.github.io/ua-client-hints/) as sent in request headers.
 * Chromium browsers send the low-entropy ones on every request; the high-entropy ones only to
 * an origin that asked for them with `Accept-CH` (over HTTPS). A header that is too long or does
 * not parse as the structured field it must be (RFC 8941, parsed by `structured-headers`) is
 * ignored, as the specification says.
 */

/** Sent by default. */
export const LOW_ENTROPY_HINTS = ['Sec-CH-UA', 'Sec-CH-UA-Mobile', 'Sec-CH-UA-Platform'] as const;
/** Sent after Accept-CH: the ones GET /api/browser-os reads. */
export const HIGH_ENTROPY_HINTS = ['Sec-CH-UA-Full-Version-List', 'Sec-CH-UA-Platform-Version', 'Sec-CH-UA-Model'] as const;

/** Longer hint headers are ignored: real ones are under 300 characters. */
export const MAX_HINT_LENGTH = 1024;

export interface Brand {
  brand: string;
  version: string;
}

export interface ClientHints {
  /** Sec-CH-UA: brands with their significant (major) version, GREASE brands removed. */
  brands?: Brand[];
  /** Sec-CH-UA-Full-Version-List: the same brands with full versions. */
  fullVersions?: Brand[];
  platform?: string;
  platformVersion?: string;
  mobile?: boolean;
  model?: string;
}

type Headers = Record<string, string | string[] | undefined>;

/**
 * The GREASE brands browsers add so that servers do not depend on the list's order or content
 * ("Not A(Brand", "Not/A)Brand", "Not_A Brand", ".Not/A)Brand", "Not;A=Brand", ...).
 */
export function isGreaseBrand(brand: string): boolean {
  return /not.?a.?brand/i.test(brand);
}

function header(headers: Headers, name: string): string | undefined {
  const raw = headers[name.toLowerCase()];
  // Node joins repeated headers into one line; an array only comes from set-cookie-like ones.
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  return value !== undefined && value.length <= MAX_HINT_LENGTH ? value : undefined;
}

/** The parsed field, or undefined when it is absent or malformed (the parser throws ParseError). */
function parsed<T>(value: string | undefined, parse: (input: string) => T): T | undefined {
  if (value === undefined) return undefined;
  try {
    return parse(value);
  } catch {
    return undefined;
  }
}

function brandList(value: string | undefined): Brand[] | undefined {
  const members: List | undefined = parsed(value, parseList);
  if (!members) return undefined;
  const brands: Brand[] = [];
  for (const member of members) {
    const [brand, params] = member;
    // An inner list (an array where an item would be) is not a brand.
    const version = params.get('v');
    // Strings only: a token or a number is not a brand (and a DisplayString is an object).
    if (typeof brand !== 'string' || typeof version !== 'string' || isGreaseBrand(brand)) continue;
    brands.push({ brand, version });
  }
  return brands;
}

function bareItem(value: string | undefined): BareItem | undefined {
  const item: Item | undefined = parsed(value, parseItem);
  return item?.[0];
}

function stringItem(value: string | undefined): string | undefined {
  const item = bareItem(value);
  return typeof item === 'string' && item.trim() !== '' ? item.trim() : undefined;
}

function booleanItem(value: string | undefined): boolean | undefined {
  const item = bareItem(value);
  return typeof item === 'boolean' ? item : undefined;
}

export function readClientHints(headers: Headers): ClientHints {
  return {
    brands: brandList(header(headers, 'Sec-CH-UA')),
    fullVersions: brandList(header(headers, 'Sec-CH-UA-Full-Version-List')),
    platform: stringItem(header(headers, 'Sec-CH-UA-Platform')),
    platformVersion: stringItem(header(headers, 'Sec-CH-UA-Platform-Version')),
    mobile: booleanItem(header(headers, 'Sec-CH-UA-Mobile')),
    model: stringItem(header(headers, 'Sec-CH-UA-Model')),
  };
}
