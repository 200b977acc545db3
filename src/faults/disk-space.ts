import { stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../config.js';

/** A directory the service writes to, named by what it holds (the `path` label of dam_disk_free_bytes). */
export interface DiskPlace {
  label: 'data' | 'tmp' | 'storage' | 'database';
  path: string;
}

/** The free space of one file system, named by the first place on it. */
export interface DiskSpace {
  label: DiskPlace['label'];
  path: string;
  /** Bytes this process may still write (statfs bavail: the blocks reserved for root not counted). */
  freeBytes: number;
  sizeBytes: number;
}

/**
 * Where the service writes (issue #37): the data dir; its `tmp/` (the upload spool, job work directories) and, on the
 * local store, `storage/` (objects and parts), either of which may be a mount of its own; and the SQLite file's
 * directory when DATABASE_URL puts it elsewhere. The data dir first: its file system is named `data`.
 */
export function diskPlaces(config: Pick<AppConfig, 'dataDir' | 'databaseUrl' | 'storage'>): DiskPlace[] {
  const places: DiskPlace[] = [
    { label: 'data', path: config.dataDir },
    { label: 'tmp', path: path.join(config.dataDir, 'tmp') },
  ];
  if (config.storage.kind === 'local') places.push({ label: 'storage', path: path.join(config.dataDir, 'storage') });
  const sqliteFile = config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl.slice('sqlite:'.length) : undefined;
  if (sqliteFile && sqliteFile !== ':memory:') places.push({ label: 'database', path: path.dirname(path.resolve(sqliteFile)) });
  return places;
}

/**
 * The free space of each file system among `places`, once per file system (told apart by device id). A place that does
 * not exist yet (tmp/ before the first upload) is on its parent's file system and is skipped; the first place must
 * exist (its failure is thrown).
 */
export async function diskSpace(places: readonly DiskPlace[]): Promise<DiskSpace[]> {
  const seen = new Set<number>();
  const out: DiskSpace[] = [];
  for (const [i, place] of places.entries()) {
    let device: number;
    try {
      device = (await stat(place.path)).dev;
    } catch (err) {
      if (i > 0 && (err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    if (seen.has(device)) continue;
    seen.add(device);
    const fs = await statfs(place.path);
    out.push({ label: place.label, path: place.path, freeBytes: fs.bavail * fs.bsize, sizeBytes: fs.blocks * fs.bsize });
  }
  return out;
}

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** 536870912 → "512 MiB", 1288490189 → "1.2 GiB": for messages, not for machines (they read the metrics). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  // One decimal below 100 (1.2 GiB), none from there (512 MiB) or where it is .0 (8 PiB rather than 8.0 PiB).
  const shown = value >= 100 ? Math.round(value) : Number(value.toFixed(1));
  return `${shown} ${UNITS[unit]}`;
}
