#!/usr/bin/env node
// `npm run restore -- DIR`: puts a backup made by `npm run backup` (scripts/backup.mjs) into an EMPTY data
// dir (DAM_DATA_DIR, with the database at DATABASE_URL's sqlite: path), after checking every hash of its
// manifest. It never writes over an existing instance. Start the service on that data dir afterwards.
import { chmodSync, copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { FORMAT, LAYOUT, fail, keyPath, objectStore, serverConfig, sha256, sqliteFile } from './backup-common.mjs';

async function digest(stream) {
  const hash = sha256();
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

const same = (a, b) => a.size === b.size && a.sha256 === b.sha256;

async function main() {
  const args = process.argv.slice(2);
  if (args.length !== 1 || args[0].startsWith('-')) fail('usage: npm run restore -- DIR   (into the empty DAM_DATA_DIR)');
  const dir = path.resolve(args[0]);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, LAYOUT.manifest), 'utf8'));
  } catch {
    fail(`${dir} holds no readable ${LAYOUT.manifest}: not a complete backup`);
  }
  if (manifest.format !== FORMAT) fail(`${dir} is a backup of format ${JSON.stringify(manifest.format)}, this version reads ${FORMAT}`);

  const config = await serverConfig();
  const file = sqliteFile(config.databaseUrl);
  if (!file) fail('restore writes a SQLite instance: DATABASE_URL must be sqlite: (restore PostgreSQL with pg_restore)');
  if (manifest.storage.kind !== config.storage.kind) fail(`the backup is of a ${manifest.storage.kind} store, the configuration says DAM_STORAGE=${config.storage.kind}`);
  if (existsSync(config.dataDir) && readdirSync(config.dataDir).length > 0) fail(`the data dir ${config.dataDir} is not empty: restore only into an empty one`);
  if (existsSync(file)) fail(`a database already exists at ${file}`);

  // 1. Check everything before writing anything.
  const dbCopy = path.join(dir, LAYOUT.database);
  if (!same(await digest(createReadStream(dbCopy)), manifest.database)) fail(`${dbCopy} does not match its hash in the manifest`);
  const objectsDir = path.join(dir, LAYOUT.objects);
  const bad = [];
  if (manifest.storage.kind === 'local') {
    for (const o of manifest.objects) {
      const source = keyPath(objectsDir, o.key);
      if (!existsSync(source) || !same(await digest(createReadStream(source)), o)) bad.push(o.key);
    }
    if (bad.length > 0) fail(`${bad.length} objects of the backup are missing or do not match their hash: ${bad.slice(0, 10).join(', ')}`);
  }

  // 2. The data dir: database, secret, id (the database expects this id of its data dir), objects.
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(path.dirname(file), { recursive: true });
  copyFileSync(dbCopy, file);
  for (const name of [LAYOUT.secret, LAYOUT.marker]) {
    if (!existsSync(path.join(dir, name))) continue;
    copyFileSync(path.join(dir, name), path.join(config.dataDir, name));
    chmodSync(path.join(config.dataDir, name), name === LAYOUT.secret ? 0o600 : 0o644);
  }
  const store = await objectStore(config, undefined);
  if (manifest.storage.kind === 'local') {
    for (const o of manifest.objects) await store.putFile(o.key, keyPath(objectsDir, o.key), 'application/octet-stream');
  } else {
    // S3: the objects stayed in the bucket; check that it still holds each one as it was.
    for (const o of manifest.objects) {
      try {
        if (!same(await digest((await store.read(o.key)).stream), o)) bad.push(o.key);
      } catch {
        bad.push(o.key);
      }
    }
    if (bad.length > 0) {
      fail(`restored the database, but ${bad.length} objects of bucket ${manifest.storage.bucket} are missing or changed (restore them from bucket versioning): ${bad.slice(0, 10).join(', ')}`);
    }
  }
  console.log(`restored ${dir} into ${config.dataDir}: database ${manifest.database.size} bytes, ${manifest.objects.length} objects verified`);
  if (manifest.missing?.length) console.warn(`note: ${manifest.missing.length} objects were already gone when the backup was made: ${manifest.missing.slice(0, 10).join(', ')}`);
}

await main();
