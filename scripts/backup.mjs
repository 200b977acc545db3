#!/usr/bin/env node
// `npm run backup -- --out DIR`: a consistent backup of a running SQLite instance (issue #18).
//   DIR/dam.sqlite      the database, copied by SQLite's online backup API (one snapshot; writers go on)
//   DIR/objects/<key>   every object the snapshot refers to (local store only), as plain files
//   DIR/jwt-secret      the signing secret of the data dir (sessions, signed URLs, sealed drive tokens)
//   DIR/instance-id     the data dir's id, which the database records (the restored dir must carry it)
//   DIR/manifest.json   written last: sizes and SHA-256 of the database and of every object
// On PostgreSQL it makes nothing and says how to back up with pg_dump and bucket versioning (exit 2).
import { chmodSync, copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { pipeline } from 'node:stream/promises';
import { Transform, Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { FORMAT, LAYOUT, POSTGRES_ADVICE, fail, keyPath, objectStore, referencedKeys, serverConfig, sha256, sqliteFile } from './backup-common.mjs';

function parseArgs(argv) {
  const at = argv.indexOf('--out');
  const out = at >= 0 ? argv[at + 1] : undefined;
  if (!out || argv.length !== 2) fail('usage: npm run backup -- --out DIR   (DIR: a new or empty directory)');
  return path.resolve(out);
}

/** Streams `stream` through SHA-256 into `file` (or nowhere), answering its size and hash. */
async function hashStream(stream, file) {
  const hash = sha256();
  let size = 0;
  const tap = new Transform({
    transform(chunk, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, file ? chunk : undefined);
    },
  });
  if (file) {
    mkdirSync(path.dirname(file), { recursive: true });
    await pipeline(stream, tap, createWriteStream(file, { flags: 'wx' }));
  } else {
    await pipeline(stream, tap, new Writable({ write: (_chunk, _enc, done) => done() }));
  }
  return { size, sha256: hash.digest('hex') };
}

async function main() {
  const out = parseArgs(process.argv.slice(2));
  const config = await serverConfig();
  const file = sqliteFile(config.databaseUrl);
  if (!file) {
    console.error(POSTGRES_ADVICE);
    process.exit(2);
  }
  if (!existsSync(file)) fail(`no database at ${file} (DAM_DATA_DIR / DATABASE_URL as the service has them?)`);
  if (existsSync(out) && readdirSync(out).length > 0) fail(`${out} is not empty: a backup goes into a new or empty directory`);
  // The backup holds the signing secret: readable by its owner only.
  mkdirSync(out, { recursive: true, mode: 0o700 });
  chmodSync(out, 0o700);
  const started = Date.now();

  // 1. The database, as of one moment. One step copies every page (the progress callback asks for all
  // that remain), so a busy writer cannot make SQLite restart the copy again and again.
  const live = new Database(file, { fileMustExist: true, timeout: 30_000 });
  const dbCopy = path.join(out, LAYOUT.database);
  try {
    await live.backup(dbCopy, { progress: () => 0x7fffffff });
  } finally {
    live.close();
  }
  const snapshot = new Database(dbCopy, { readonly: true });
  const keys = referencedKeys(snapshot);
  snapshot.close();
  const database = await hashStream(createReadStream(dbCopy));

  // 2. The objects the snapshot refers to. Objects are write-once, so each one read now is the one the
  // snapshot saw; one deleted since (its row deleted after the snapshot) is listed as missing.
  const store = await objectStore(config, undefined);
  const objects = [];
  const missing = [];
  for (const key of keys) {
    let body;
    try {
      body = await store.read(key);
    } catch (err) {
      if (err?.code === 'NoSuchKey' || err?.status === 404) {
        missing.push(key);
        continue;
      }
      throw err;
    }
    const target = config.storage.kind === 'local' ? keyPath(path.join(out, LAYOUT.objects), key) : undefined;
    objects.push({ key, ...(await hashStream(body.stream, target)) });
  }

  // 3. The data dir's secret and id, then the manifest, which marks the backup complete.
  for (const name of [LAYOUT.secret, LAYOUT.marker]) {
    const source = path.join(config.dataDir, name);
    if (existsSync(source)) {
      copyFileSync(source, path.join(out, name));
      chmodSync(path.join(out, name), 0o600);
    }
  }
  const manifest = {
    format: FORMAT,
    created_at: new Date(started).toISOString(),
    storage: config.storage.kind === 's3' ? { kind: 's3', bucket: config.storage.bucket, copied: false } : { kind: 'local', copied: true },
    database: { file: LAYOUT.database, ...database },
    objects,
    missing,
  };
  writeFileSync(path.join(out, LAYOUT.manifest), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  const bytes = objects.reduce((n, o) => n + o.size, 0);
  console.log(
    `backup of ${file} in ${out}: database ${database.size} bytes, ${objects.length} objects (${bytes} bytes)` +
      `${config.storage.kind === 's3' ? ' hashed in the bucket, not copied (use bucket versioning/replication)' : ' copied'}` +
      ` in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (missing.length > 0) {
    console.warn(`warning: ${missing.length} objects the database refers to were gone (deleted during the backup?): ${missing.slice(0, 10).join(', ')}`);
  }
}

await main();
