// Bulk loaders for `npm run bench:search`: direct SQL inserts into the catalog
// tables in big transactions. The search triggers fire on every row, so the
// time taken is the indexing throughput (catalog insert + index maintenance).
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { ASSET_COLUMNS, assetValues, prng, sortKey, TAGS } from './bench-search-data.mjs';

const BATCH = 10_000;
const FOLDERS = 1_000;
const COLLECTIONS = 100;
const NOW = 1_767_225_600; // 2026-01-01, fixed so that runs are comparable
const FOLDER_NAMES = Array.from({ length: FOLDERS }, (_, i) => `Folder ${TAGS[i % TAGS.length]} ${i}`);
const COLLECTION_NAMES = TAGS.slice(0, COLLECTIONS).map((t) => `Collection ${t}`);

function progress(done, total, t0) {
  if (!process.stdout.isTTY) return;
  const rate = done / ((performance.now() - t0) / 1000);
  process.stdout.write(`\r  loading ${done.toLocaleString('en')} / ${total.toLocaleString('en')} (${Math.round(rate).toLocaleString('en')}/s)   `);
}

/** SQLite: a second connection to the same file, with a 512 MiB page cache for the load. Returns assets/s. */
export function loadSqlite(file, workspaceId, count) {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -524288');
  const r = prng(42);
  const m = prng(43);
  const folder = db.prepare('INSERT INTO folders (workspace_id, parent_id, name, name_key, visibility, tags, created_at, modified_at) VALUES (?, NULL, ?, ?, 0, ?, ?, ?) RETURNING id');
  const folderIds = db.transaction(() => FOLDER_NAMES.map((name, i) => folder.get(workspaceId, name, sortKey(name), JSON.stringify([TAGS[i % TAGS.length]]), NOW, NOW).id))();
  const collection = db.prepare("INSERT INTO collections (workspace_id, name, name_key, description, visibility, tags, created_at, modified_at) VALUES (?, ?, ?, '', 0, '[]', ?, ?)");
  db.transaction(() => COLLECTION_NAMES.map((name) => collection.run(workspaceId, name, sortKey(name), NOW, NOW)))();
  const insert = db.prepare(`INSERT INTO assets (${ASSET_COLUMNS.join(', ')}) VALUES (${ASSET_COLUMNS.map(() => '?').join(', ')})`);
  const batch = db.transaction((n) => {
    for (let i = 0; i < n; i += 1) insert.run(assetValues(r, m, NOW, workspaceId, folderIds));
  });
  const t0 = performance.now();
  for (let done = 0; done < count; done += BATCH) {
    batch(Math.min(BATCH, count - done));
    progress(Math.min(done + BATCH, count), count, t0);
  }
  const seconds = (performance.now() - t0) / 1000;
  db.exec('ANALYZE');
  db.close();
  return count / seconds;
}

const PG_TYPES = ['int', 'int', 'text', 'text', 'text', 'text', 'text', 'bigint', 'int', 'int', 'text', 'text', 'int', 'text', 'text', 'text', 'bigint', 'bigint', 'bigint', 'text', 'text'];

/** PostgreSQL: batches of 10,000 rows through unnest(), one transaction each. Returns assets/s. */
export async function loadPostgres(url, schema, workspaceId, count) {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
  await client.connect();
  const r = prng(42);
  const m = prng(43);
  const folders = await client.query(
    `INSERT INTO folders (workspace_id, parent_id, name, name_key, visibility, tags, created_at, modified_at)
     SELECT $1, NULL, name, k, 0, json_build_array(t)::text, $2, $2 FROM unnest($3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(name, k, t, n) ORDER BY n RETURNING id`,
    [workspaceId, NOW, FOLDER_NAMES, FOLDER_NAMES.map(sortKey), FOLDER_NAMES.map((_, i) => TAGS[i % TAGS.length])],
  );
  const folderIds = folders.rows.map((row) => row.id);
  await client.query(
    "INSERT INTO collections (workspace_id, name, name_key, description, visibility, tags, created_at, modified_at) SELECT $1, name, k, '', 0, '[]', $2, $2 FROM unnest($3::text[], $4::text[]) AS u(name, k)",
    [workspaceId, NOW, COLLECTION_NAMES, COLLECTION_NAMES.map(sortKey)],
  );
  const sql = `INSERT INTO assets (${ASSET_COLUMNS.join(', ')}) SELECT * FROM unnest(${PG_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;
  const t0 = performance.now();
  for (let done = 0; done < count; done += BATCH) {
    const columns = ASSET_COLUMNS.map(() => []);
    for (let i = 0; i < Math.min(BATCH, count - done); i += 1) assetValues(r, m, NOW, workspaceId, folderIds).forEach((v, c) => columns[c].push(v));
    await client.query(sql, columns);
    progress(Math.min(done + BATCH, count), count, t0);
  }
  const seconds = (performance.now() - t0) / 1000;
  await client.query('VACUUM ANALYZE');
  await client.end();
  return count / seconds;
}

export const LOAD_NOW = NOW;
