// What `npm run backup` and `npm run restore` share: where the instance keeps its state, read from the
// same environment as the server (DAM_DATA_DIR, DATABASE_URL, DAM_STORAGE, ...), and the backup's layout.
import { createHash } from 'node:crypto';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Files of a backup directory. Objects are plain files under objects/<storage key>, readable without the service. */
export const LAYOUT = Object.freeze({ database: 'dam.sqlite', manifest: 'manifest.json', objects: 'objects', secret: 'jwt-secret', marker: 'instance-id' });
export const FORMAT = 'dam-backup/1';

export const fail = (message) => {
  console.error(`${path.basename(process.argv[1] ?? 'backup')}: ${message}`);
  process.exit(1);
};

export const sha256 = () => createHash('sha256');

/**
 * The server's own configuration (dist/config.js), so that paths and store settings are read exactly as
 * the service reads them. A placeholder DAM_JWT_SECRET keeps loadConfig from generating a secret into
 * the data dir: these scripts sign nothing.
 */
export async function serverConfig(env = process.env) {
  const { loadConfig, ConfigError } = await import(pathToFileURL(path.join(ROOT, 'dist', 'config.js')).href);
  try {
    return loadConfig({ ...env, DAM_JWT_SECRET: env.DAM_JWT_SECRET || 'x'.repeat(48) });
  } catch (err) {
    if (err instanceof ConfigError) fail(`configuration error: ${err.message}`);
    throw err;
  }
}

/** A storage key as a path under `root`, refusing anything that would leave it. */
export function keyPath(root, key) {
  const full = path.resolve(root, key);
  if (key.split('/').some((s) => s === '' || s === '.' || s === '..') || !full.startsWith(root + path.sep)) fail(`refusing the storage key ${JSON.stringify(key)}`);
  return full;
}

/** The SQLite file of a `sqlite:` URL, or undefined for PostgreSQL. */
export const sqliteFile = (databaseUrl) => (databaseUrl.startsWith('sqlite:') ? path.resolve(databaseUrl.slice('sqlite:'.length)) : undefined);

/** The object store of `config` through the server's own classes (dist/storage/): reads and writes objects as the service does. */
export async function objectStore(config, db) {
  const { createObjectStore } = await import(pathToFileURL(path.join(ROOT, 'dist', 'storage', 'index.js')).href);
  // Signing secrets only matter for part-upload URLs, which these scripts never hand out.
  return createObjectStore(config, db, () => Math.floor(Date.now() / 1000), { current: 'x'.repeat(48), previous: [] });
}

/**
 * Storage keys the database refers to: every table whose rows own an object (the tables with an
 * object-deletion trigger: assets, asset_versions, version_renditions). An asset or version still
 * `uploading` has a key but no object yet (or one stored after the snapshot, which it does not know of).
 */
export function referencedKeys(sqlite) {
  const rows = sqlite
    .prepare(
      `SELECT storage_key AS key FROM assets WHERE storage_key IS NOT NULL AND status = 'ready'
       UNION SELECT storage_key FROM asset_versions WHERE storage_key IS NOT NULL AND status = 'ready'
       UNION SELECT storage_key FROM version_renditions WHERE storage_key IS NOT NULL
       ORDER BY 1`,
    )
    .all();
  return rows.map((r) => r.key);
}

export const POSTGRES_ADVICE = `The database is PostgreSQL: back it up with PostgreSQL's own tools, not with this script.
  - Database: pg_dump --format=custom --file=dam.dump "$DATABASE_URL"  (consistent while the service runs;
    restore with pg_restore --dbname=... dam.dump into an empty database), or continuous archiving
    (base backups + WAL, point-in-time recovery) for anything larger.
  - Objects: with DAM_STORAGE=s3 turn on bucket versioning (deleted or overwritten objects stay recoverable)
    and replication to a second bucket or region; a snapshot of a bucket is not something S3 offers.
  - The signing secret: DAM_JWT_SECRET, or the row instance.jwt_secret of the settings table (in the dump).`;
