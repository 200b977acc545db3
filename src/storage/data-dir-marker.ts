import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config.js';
import type { DB } from '../db/database.js';
import { insertSettingIfAbsent } from '../repositories/instance-settings.js';

/** The name of the marker in the `settings` table, and of its file in the data dir. */
const MARKER_SETTING = 'storage.data_dir_marker';
export const MARKER_FILE = 'instance-id';

/** The marker file's id: created (exclusively, so racing first starts agree) if absent. */
function fileMarker(dataDir: string): string {
  const file = path.join(dataDir, MARKER_FILE);
  mkdirSync(dataDir, { recursive: true });
  try {
    writeFileSync(file, `${randomUUID()}\n`, { flag: 'wx', mode: 0o644 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * With the local object store every process must see the same DAM_DATA_DIR, or each would keep
 * its own files and answer 404 for the others'. The data dir holds an id (instance-id) that the
 * database also records (settings); the first process to start records its directory's id, and a
 * process whose directory holds another id (or a new one) refuses to start.
 */
export async function checkDataDirMarker(db: DB, dataDir: string): Promise<void> {
  const mine = fileMarker(dataDir);
  const recorded = await insertSettingIfAbsent(db, MARKER_SETTING, mine);
  if (recorded !== mine) {
    throw new ConfigError(
      `DAM_DATA_DIR ${dataDir} is not the data directory the other processes of this database use ` +
        `(its ${MARKER_FILE} is ${mine}, the database expects ${recorded}): with DAM_STORAGE=local every process ` +
        'must share one DAM_DATA_DIR (the same directory, e.g. a shared volume); across machines use DAM_STORAGE=s3',
    );
  }
}
