/**
 * The map view's tile layer (issue #27, "Map and timeline"): a URL template in Leaflet's form, which the web client
 * fills in, and the attribution the tile provider asks for. The server fetches no tile; the browser does, so the web
 * client's Content-Security-Policy allows images from the template's origin (http/security-headers.ts).
 */

/** OpenStreetMap's standard layer (https://operations.osmfoundation.org/policies/tiles/: attribution required). */
export const OSM_TILE_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
export const OSM_ATTRIBUTION = '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors';

/** Leaflet's placeholders: {s} (a subdomain, only at the start of the host), {z} {x} {y}, {r} (@2x on retina screens). */
const PLACEHOLDER = /\{(s|z|x|y|r)\}/g;

/** The template with every placeholder filled with something a URL parser accepts. */
const sample = (template: string): string => template.replace(PLACEHOLDER, (_m, name: string) => (name === 's' ? 'a' : name === 'r' ? '' : '0'));

/**
 * Why a tile URL template cannot be used, or null: it must be an http(s) URL without credentials holding {z}, {x}
 * and {y}; {s} may only stand for the first label of the host (it becomes a `*.` wildcard in the CSP).
 */
export function tileTemplateProblem(template: string): string | null {
  let url: URL;
  try {
    url = new URL(sample(template));
  } catch {
    return 'must be an http(s) URL template';
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) return 'must be an http(s) URL without credentials';
  if (!['{z}', '{x}', '{y}'].every((p) => template.includes(p))) return 'must contain {z}, {x} and {y}';
  const host = template.slice(template.indexOf('//') + 2).split('/', 1)[0] ?? '';
  if (/[{}]/.test(host.replace(/^\{s\}\./, ''))) return 'may use {s} only as the first label of the host';
  return null;
}

/** The Content-Security-Policy source of a checked template's tiles: its origin, with `*.` in place of a `{s}.` subdomain. */
export function tileImageSource(template: string): string {
  const origin = new URL(sample(template)).origin;
  const host = template.slice(template.indexOf('//') + 2);
  return host.startsWith('{s}.') ? origin.replace('//a.', '//*.') : origin;
}
