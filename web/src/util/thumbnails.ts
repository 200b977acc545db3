import { catalogApi } from '../api/catalog';

/**
 * Object URLs of asset files fetched with the session token, for thumbnails
 * until the server hands out signed thumbnail URLs. A few at a time, cached
 * by asset and modification time, the oldest released past a limit.
 */
const MAX_PARALLEL = 4;
const MAX_CACHED = 200;
/** Larger files are not fetched only to draw a tile. */
export const MAX_THUMB_SOURCE_BYTES = 15 * 1024 * 1024;

const cache = new Map<string, Promise<string>>();
let active = 0;
const waiting: (() => void)[] = [];

async function slot<T>(work: () => Promise<T>): Promise<T> {
  if (active >= MAX_PARALLEL) await new Promise<void>((resolve) => waiting.push(resolve));
  active += 1;
  try {
    return await work();
  } finally {
    active -= 1;
    waiting.shift()?.();
  }
}

export function assetObjectUrl(asset: { id: number; workspace_id: number; modified_at: number }): Promise<string> {
  const key = `${asset.workspace_id}/${asset.id}@${asset.modified_at}`;
  let url = cache.get(key);
  if (!url) {
    url = slot(() => catalogApi.assetFile(asset)).then((blob) => URL.createObjectURL(blob));
    url.catch(() => cache.delete(key));
    cache.set(key, url);
    if (cache.size > MAX_CACHED) {
      const [oldestKey, oldest] = cache.entries().next().value as [string, Promise<string>];
      cache.delete(oldestKey);
      void oldest.then((u) => URL.revokeObjectURL(u)).catch(() => undefined);
    }
  }
  return url;
}

/** The server's stand-in thumbnail (a generic file-type icon) until a version has a real one. */
export function isGenericIcon(url: string | null | undefined): boolean {
  if (!url) return false;
  try {
    return new URL(url, window.location.origin).pathname.startsWith('/media/icons/');
  } catch {
    return false;
  }
}
