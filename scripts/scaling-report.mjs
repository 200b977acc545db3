#!/usr/bin/env node
// `npm run report:scaling [-- --count <n>] [--reps <n>] [--dir <path>] [--no-probes] [--no-plans] [--no-search]`
//
// Prints the figures docs/architecture/capacity.md quotes, so they can be measured again on
// another machine or size. Reads the PostgreSQL database `npm run bench:search`
// seeded (DAM_BENCH_DATABASE_URL, schema bench_search_<count>; run the bench
// first) and prints:
//   1. rows, heap, index and total size of every table, and each index of the big ones;
//   2. bytes per row of the tables the bench leaves empty (jobs, sessions, versions,
//      renditions), from synthetic rows in copies of those tables in a scratch schema
//      (dropped after), with the plans of the job claim, the session check and the sweeps;
//   3. for each search shape and catalog list: HTTP p50/p95 and EXPLAIN (ANALYZE, BUFFERS)
//      of every statement it issued on the search index or the assets table;
//   4. bytes of a thumbnail and a preview made from a generated 12-megapixel JPEG.
// A measurement, not a test. It only reads the bench data: section 2 works on copies in a scratch
// schema, and section 3 needs the bench schema at dist/'s latest migration (bench:search migrates it).
import { Buffer } from 'node:buffer';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import console from 'node:console';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Kysely } from 'kysely';
import pg from 'pg';
import sharp from 'sharp';
import { LOAD_NOW } from './bench-search-load.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    reps: { type: 'string', default: '20' },
    // bench:search's --dir: its data directory (the local store's marker) and its SQLite file.
    dir: { type: 'string', default: path.join(root, 'data', 'bench-search') },
    'no-probes': { type: 'boolean', default: false },
    'no-plans': { type: 'boolean', default: false },
    // Sizes and probes only: no app, so the bench schema is not migrated.
    'no-search': { type: 'boolean', default: false },
  },
});
const count = Number(opts.count);
const reps = Number(opts.reps);
const pgUrl = process.env.DAM_BENCH_DATABASE_URL;
if (!pgUrl || !Number.isInteger(count) || count < 1 || !Number.isInteger(reps) || reps < 1) {
  console.error('report:scaling: set DAM_BENCH_DATABASE_URL (the database bench:search seeded); --count and --reps are positive integers');
  process.exit(2);
}
const schema = `bench_search_${count}`;
const DAY = 86_400;
const mb = (b) => (Number(b) / 1048576).toFixed(1);

/**
 * A plan as text, shortened for reading: lines cut at 220 characters, and of a run of sibling
 * nodes with the same first line (the facet sample's 80 bitmap index scans) the first two kept.
 */
function planText(rows) {
  const lines = rows.map((r) => r['QUERY PLAN']);
  const out = [];
  let last = '';
  let repeats = 0;
  let skipIndent = -1;
  for (const line of lines) {
    const indent = line.search(/\S/);
    if (skipIndent >= 0 && indent > skipIndent) continue;
    skipIndent = -1;
    if (line.trim().startsWith('->')) {
      const head = line.replace(/\(.*$/, '').replace(/\s+$/, '');
      repeats = head === last ? repeats + 1 : 0;
      last = head;
      if (repeats === 2) out.push(`${' '.repeat(indent)}-> ... (more of the same)`);
      if (repeats >= 2) {
        skipIndent = indent;
        continue;
      }
    }
    out.push(line.length > 220 ? `${line.slice(0, 217)}...` : line);
  }
  return out.join('\n');
}

const client = new pg.Client({ connectionString: pgUrl });
await client.connect();
const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
if (exists.rowCount === 0) {
  console.error(`report:scaling: schema ${schema} not found; run DAM_BENCH_DATABASE_URL=... npm run bench:search -- --count ${count} first`);
  process.exit(2);
}
await client.query(`SET search_path TO ${schema}, public`);
const settings = await client.query(
  "SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'effective_cache_size', 'random_page_cost', 'max_parallel_workers_per_gather') ORDER BY name",
);
console.log(`load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} on ${os.cpus().length} cores`);
console.log(`report:scaling on ${(await client.query('SELECT version()')).rows[0].version.split(' on ')[0]}, schema ${schema}, ${new Date().toISOString()}`);
console.log(settings.rows.map((r) => `${r.name}=${r.setting}${r.unit ?? ''}`).join(', '));

// ---------------------------------------------------------------- 1. sizes

const tables = await client.query(
  `SELECT c.relname, c.oid, pg_relation_size(c.oid) AS heap, pg_indexes_size(c.oid) AS idx,
          pg_total_relation_size(c.oid) - pg_relation_size(c.oid) - pg_indexes_size(c.oid) AS toast,
          pg_total_relation_size(c.oid) AS total
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = $1 AND c.relkind = 'r' AND pg_total_relation_size(c.oid) > 1048576
    ORDER BY total DESC`,
  [schema],
);
console.log('\n## Tables over 1 MiB\n\n| table | rows | heap MiB | indexes MiB | toast MiB | total MiB | total bytes per row |\n|---|---:|---:|---:|---:|---:|---:|');
let sum = 0;
for (const t of tables.rows) {
  const rows = Number((await client.query(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(t.relname)}`)).rows[0].n);
  sum += Number(t.total);
  console.log(`| ${t.relname} | ${rows.toLocaleString('en')} | ${mb(t.heap)} | ${mb(t.idx)} | ${mb(t.toast)} | ${mb(t.total)} | ${rows ? Math.round(t.total / rows) : '-'} |`);
}
console.log(`| all of them | | | | | ${mb(sum)} | |`);

const indexes = await client.query(
  `SELECT t.relname AS tbl, i.relname AS idx, pg_relation_size(i.oid) AS size, am.amname
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_am am ON am.oid = i.relam
    WHERE n.nspname = $1 AND pg_relation_size(i.oid) > 1048576
    ORDER BY t.relname, size DESC`,
  [schema],
);
console.log('\n## Indexes over 1 MiB\n\n| table | index | type | MiB |\n|---|---|---|---:|');
for (const r of indexes.rows) console.log(`| ${r.tbl} | ${r.idx} | ${r.amname} | ${mb(r.size)} |`);

// SQLite: the file bench:search left under --dir, if any (dbstat reads the whole file once).
const sqliteFile = path.join(opts.dir, `sqlite-${count}.sqlite`);
if (existsSync(sqliteFile)) {
  const lite = new Database(sqliteFile, { readonly: true });
  const rows = lite
    .prepare(
      `SELECT coalesce(m.tbl_name, s.name) AS tbl, sum(s.pgsize) AS bytes FROM dbstat s LEFT JOIN sqlite_master m ON m.name = s.name
        GROUP BY tbl HAVING bytes > 1048576 ORDER BY bytes DESC`,
    )
    .all();
  console.log(`\n## SQLite: ${sqliteFile} (${mb(statSync(sqliteFile).size)} MiB)\n\n| table (with its indexes; FTS5 shadow tables by name) | MiB |\n|---|---:|`);
  for (const r of rows) console.log(`| ${r.tbl} | ${mb(r.bytes)} |`);
  lite.close();
}

// ---------------------------------------------------------------- 2. probes on empty tables

/**
 * Bytes per row of each of `tables` after `insert`, and the plans of `explain`: on empty copies
 * of the tables (same columns, defaults and indexes) in a scratch schema that is dropped after,
 * so the bench data is left as it was.
 */
async function probe(label, tables, n, insert, explain = []) {
  const scratch = `scaling_probe_${process.pid}`;
  await client.query(`CREATE SCHEMA ${scratch}`);
  try {
    for (const t of tables) await client.query(`CREATE TABLE ${scratch}.${t} (LIKE ${schema}.${t} INCLUDING ALL)`);
    await client.query(`SET search_path TO ${scratch}, ${schema}, public`);
    await client.query(insert, [n]);
    for (const t of tables) await client.query(`ANALYZE ${scratch}.${t}`);
    console.log(`\n### ${label}: ${n.toLocaleString('en')} synthetic rows\n`);
    for (const t of tables) {
      const rows = Number((await client.query(`SELECT count(*) AS n FROM ${scratch}.${t}`)).rows[0].n);
      const bytes = Number((await client.query('SELECT pg_total_relation_size($1::regclass) AS b', [`${scratch}.${t}`])).rows[0].b);
      console.log(`- ${t}: ${rows.toLocaleString('en')} rows, ${mb(bytes)} MiB with indexes, ${Math.round(bytes / rows)} bytes per row`);
    }
    for (const [name, sql, params] of explain) {
      await client.query('BEGIN');
      try {
        const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) ${sql}`, params);
        console.log(`\n${name}:\n\n\`\`\`\n${planText(plan.rows)}\n\`\`\``);
      } finally {
        await client.query('ROLLBACK');
      }
    }
  } finally {
    await client.query(`SET search_path TO ${schema}, public`);
    await client.query(`DROP SCHEMA ${scratch} CASCADE`);
  }
}

if (!opts['no-probes']) {
  console.log('\n## Tables the bench leaves empty (synthetic rows in a scratch copy)');
  const now = LOAD_NOW;
  const user = Number((await client.query('SELECT min(id) AS id FROM users')).rows[0].id);
  // A week of work: 5% queued or running, the rest succeeded (kept 7 days by the worker's prune).
  await probe(
    'jobs',
    ['jobs'],
    200_000,
    `INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, locked_by, locked_until, created_at, updated_at, finished_at)
     SELECT CASE WHEN g % 2 = 0 THEN 'version.renditions' ELSE 'version.metadata' END, '{"versionId":' || g || '}',
            CASE WHEN g % 20 = 0 THEN 'queued' ELSE 'succeeded' END, 1, 5, ${now} - (g % 604800), NULL, NULL,
            ${now} - (g % 604800), ${now}, CASE WHEN g % 20 = 0 THEN NULL ELSE ${now} END
       FROM generate_series(1, $1) g`,
    [
      [
        'claim (the worker\'s poll, 4 jobs)',
        `SELECT id FROM jobs WHERE ((status = 'queued' AND run_at <= $1) OR (status = 'running' AND locked_until < $1))
          ORDER BY run_at, id LIMIT 4 FOR UPDATE SKIP LOCKED`,
        [now],
      ],
      [
        'queued and running jobs by kind (GET /metrics, every scrape)',
        `SELECT kind, status, count(*), min(created_at) FROM jobs WHERE status IN ('queued', 'running') GROUP BY kind, status`,
        [],
      ],
      ['queue depth by status (GET /jobs, metrics)', 'SELECT status, count(*) FROM jobs GROUP BY status', []],
    ],
  );
  // A backlog: one job per asset, as migrations 0004 and 0011 queue them for every existing version.
  await probe(
    'jobs, a backlog of one queued job per asset',
    ['jobs'],
    count,
    `INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
     SELECT 'version.renditions', '{"versionId":' || g || '}', 'queued', 0, 5, ${now}, ${now}, ${now} FROM generate_series(1, $1) g`,
    [
      [
        'claim (the worker\'s poll, 4 jobs)',
        `SELECT id FROM jobs WHERE ((status = 'queued' AND run_at <= $1) OR (status = 'running' AND locked_until < $1))
          ORDER BY run_at, id LIMIT 4 FOR UPDATE SKIP LOCKED`,
        [now],
      ],
      [
        'queued and running jobs by kind (GET /metrics, every scrape)',
        `SELECT kind, status, count(*), min(created_at) FROM jobs WHERE status IN ('queued', 'running') GROUP BY kind, status`,
        [],
      ],
    ],
  );
  await probe(
    'sessions',
    ['sessions'],
    200_000,
    `INSERT INTO sessions (id, user_id, created_at, expires_at, revoked_at)
     SELECT md5(g::text) || md5((g + 1)::text), ${user}, ${now}, ${now} + 30 * 86400, NULL FROM generate_series(1, $1) g`,
    [
      ['the session check of every request', 'SELECT s.id, s.user_id FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1 AND s.expires_at > $2 AND s.revoked_at IS NULL', [`${'0'.repeat(64)}`, now]],
      ['housekeeping: expired sessions (every minute)', 'DELETE FROM sessions WHERE expires_at < $1', [now - DAY]],
    ],
  );
  const firstAsset = Number((await client.query('SELECT min(id) AS id FROM assets')).rows[0].id);
  await probe(
    'asset_versions, one per asset, each with a thumbnail and a preview',
    ['asset_versions', 'version_renditions'],
    200_000,
    `WITH v AS (
       INSERT INTO asset_versions (asset_id, workspace_id, number, status, is_current, file_name, display_file_name, mime_type, file_size,
                                   width, height, metadata, storage_key, preview_status, created_by, created_at)
       SELECT a.id, a.workspace_id, 1, 'ready', 1, a.file_name, a.display_file_name, a.mime_type, a.file_size, a.width, a.height, '{}',
              a.workspace_id || '/digital_assets/' || a.id, 'ready', 'Bench User', a.created_at
         FROM assets a WHERE a.id >= ${firstAsset} ORDER BY a.id LIMIT $1
       RETURNING id, workspace_id, asset_id)
     INSERT INTO version_renditions (version_id, kind, storage_key, mime_type, width, height, file_size)
     SELECT v.id, k.kind, v.workspace_id || '/digital_assets/' || v.asset_id || '/renditions/' || v.id || '/' || k.kind || '.webp', 'image/webp',
            k.w, k.h, k.w * 40 FROM v CROSS JOIN (VALUES ('thumbnail', 256, 192), ('preview', 1440, 1080)) AS k(kind, w, h)`,
  );
}

// ---------------------------------------------------------------- 3. search shapes: timings and plans

if (opts['no-search']) await client.end();
else await searchSection();

async function searchSection() {
  const { buildApp } = await import(path.join(root, 'dist/app.js'));
  const { loadConfig } = await import(path.join(root, 'dist/config.js'));
  const { openDatabase } = await import(path.join(root, 'dist/db/database.js'));
  // Never migrates the bench schema (a migration still being written in dist/ would stay recorded
  // there); when dist/ knows migrations the schema lacks, bench:search (which migrates) comes first.
  const known = readdirSync(path.join(root, 'dist/db/migrations')).filter((f) => /^\d{4}_.*\.js$/.test(f)).map((f) => f.slice(0, -3));
  const applied = new Set((await client.query('SELECT name FROM kysely_migration')).rows.map((r) => r.name));
  const missing = known.filter((m) => !applied.has(m));
  if (missing.length > 0) {
    console.error(`\nreport:scaling: schema ${schema} lacks migrations ${missing.join(', ')} of dist/; run npm run bench:search -- --count ${count} first (it migrates the schema)`);
    await client.end();
    process.exit(2);
  }
  const handle = openDatabase(pgUrl, { schema });
  const capture = { on: null };
  const db = new Kysely({ dialect: handle.support.kyselyDialect, log: (e) => e.level === 'query' && capture.on?.(e.query) });
  const config = loadConfig({
    NODE_ENV: 'production', DAM_DATA_DIR: opts.dir, DATABASE_URL: pgUrl, DAM_JWT_SECRET: 'bench-search-secret-bench-search-secret-0123',
    DAM_ALLOW_REGISTRATION: 'true', LOG_LEVEL: 'warn', DAM_JOB_CONCURRENCY: '0', DAM_LOGIN_RATE_LIMIT: '1000', HOST: '127.0.0.1', PORT: '0',
    DAM_USER_RATE_LIMIT: '100000000',
    ...(process.env.DAM_PLANS_FILE && { DAM_PLANS_FILE: process.env.DAM_PLANS_FILE }),
  });
  const app = await buildApp(config, { database: { ...handle, db }, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${app.server.address().port}`;
  const agent = new http.Agent({ keepAlive: true });

  function call(method, route, token, body) {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const headers = { ...(token && { authorization: `Bearer ${token}` }), ...(data && { 'content-type': 'application/json', 'content-length': data.length }) };
    return new Promise((resolve, reject) => {
      const req = http.request(`${base}${route}`, { method, agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (res.statusCode >= 300) reject(new Error(`${method} ${route} answered ${res.statusCode}: ${JSON.stringify(json).slice(0, 300)}`));
          else resolve(json);
        });
      });
      req.on('error', reject);
      req.end(data);
    });
  }

  const assets = (q, request = {}, extra = {}) => ({ request: { q, collections: ['digital_assets'], ...request }, ...extra });
  const filter = (f) => ({ filterQuery: { digital_assets: f } });
  const SHAPES = [
    ['match-all sorted by date', assets('*', { sort_by: 'modified_at:desc' })],
    ['match-all, facets file_type,tags,taken_year', assets('*', {}, { commonSearchParams: { facet_by: 'file_type,tags,taken_year' } })],
    ['deep page (page 500)', assets('*', {}, { commonSearchParams: { page: 500, per_page: 10 } })],
    ['deep page (page 5,000)', assets('*', {}, { commonSearchParams: { page: 5000, per_page: 10 } })],
    ['one word', assets('sunset')],
    ['one word sorted by name', assets('sunset', { sort_by: 'display_file_name:asc' })],
    ['two words with a prefix', assets('beach sun')],
    ['text + tag filter', assets('beach', {}, filter('tags:=[summer]'))],
    ['filters only', assets('*', {}, filter('file_type:=video && orientation:=landscape'))],
    ['private + date range', assets('*', {}, filter(`visibility:!=0 && modified_at:[${LOAD_NOW - 365 * DAY}..${LOAD_NOW - 335 * DAY}]`))],
    ['one folder sorted by name', assets('*', { sort_by: 'display_file_name:asc' }, filter('folder_id:=500'))],
    ['suggestions', null, '/search-engine/suggestions?q=sun'],
    // The catalog list (GET /dam/assets), as API clients page through a workspace.
    ['catalog list by id', null, (ws) => `/dam/assets?workspaceId=${ws}&per_page=50`],
    ['catalog list by id, page 2,000', null, (ws) => `/dam/assets?workspaceId=${ws}&per_page=50&page=2000`],
    ['catalog list by name', null, (ws) => `/dam/assets?workspaceId=${ws}&per_page=50&sort_by=display_file_name:asc`],
    ['catalog list by date', null, (ws) => `/dam/assets?workspaceId=${ws}&per_page=50&sort_by=modified_at:desc`],
    ['catalog list of one folder', null, (ws) => `/dam/assets?workspaceId=${ws}&per_page=50&folder_id=500`],
  ];

  const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.ceil(p * xs.length) - 1)];

  try {
    const login = await call('POST', '/auth/login', null, { email: 'bench-search@example.test', password: 'bench search password' });
    const token = login.token;
    const ws = login.workspaces[0].id;
    console.log(`\nload average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    console.log(`\n## Search shapes (HTTP over ${reps} runs after 3 warm-ups, ms; one workspace of ${count.toLocaleString('en')} assets + one empty)\n`);
    console.log('| shape | found | HTTP p50 | HTTP p95 | statements |\n|---|---:|---:|---:|---:|');
    const plans = [];
    for (const [name, body, get] of SHAPES) {
      const route = typeof get === 'function' ? get(ws) : get;
      const request = () => (route ? call('GET', route, token) : call('POST', '/search-engine/search', token, body));
      for (let i = 0; i < 3; i += 1) await request();
      const statements = [];
      capture.on = (q) => statements.push(q);
      const answer = await request();
      capture.on = null;
      const times = [];
      for (let i = 0; i < reps; i += 1) {
        const t0 = performance.now();
        await request();
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const found = !route ? answer.results[0].found : (answer.data.total ?? answer.data.length);
      console.log(`| ${name} | ${found.toLocaleString('en')} | ${pct(times, 0.5).toFixed(1)} | ${pct(times, 0.95).toFixed(1)} | ${statements.length} |`);
      plans.push([name, statements.filter((q) => /search_|from "assets"/.test(q.sql))]);
    }
    if (!opts['no-plans']) {
      console.log('\n## Plans of the statements on the search index and the assets table');
      for (const [name, statements] of plans) {
        for (const [i, q] of statements.entries()) {
          const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${q.sql}`, q.parameters);
          console.log(`\n### ${name} (${i + 1}/${statements.length})\n\n\`\`\`\n${planText(plan.rows)}\n\`\`\``);
        }
      }
      // What a text query costs a caller whose workspaces hold none of the matches: the word index
      // is one for the whole instance, so its matches in every workspace are read and filtered out.
      const empty = Number((await client.query('SELECT max(id) AS id FROM workspaces')).rows[0].id);
      console.log(`\n## The text match of "one word" for the empty workspace ${empty} (its matches are all in another workspace)`);
      for (const [label, sql] of [
        ['text match, count', `SELECT count(*) FROM search_documents d WHERE d.search_vector @@ '''sunset'':*'::tsquery AND d.kind = 1 AND d.workspace_id = ANY($1)`],
        ['listing, count', 'SELECT count(*) FROM search_documents d WHERE d.kind = 1 AND d.workspace_id = ANY($1)'],
      ]) {
        const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, [[empty]]);
        console.log(`\n### ${label}\n\n\`\`\`\n${planText(plan.rows)}\n\`\`\``);
      }
    }
  } finally {
    const closing = app.close();
    app.server.closeAllConnections();
    await closing;
    agent.destroy();
    await db.destroy();
    await client.end();
  }
}

// ---------------------------------------------------------------- 4. rendition bytes

if (!opts['no-probes']) {
  const { renderImage } = await import(path.join(root, 'dist/media/renditions.js'));
  console.log('\n## Renditions of a generated 4000x3000 JPEG (quality 88, film-grain texture, as bench:thumbnails makes them)\n');
  console.log('| original KiB | preview KiB (1440 px WebP) | thumbnail KiB (256 px WebP) |\n|---:|---:|---:|');
  for (let i = 0; i < 3; i += 1) {
    const grain = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 12 } } }).png({ compressionLevel: 0 }).toBuffer();
    const field = await sharp({ create: { width: 500, height: 375, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
    const jpeg = await sharp(field).resize(4000, 3000, { kernel: 'cubic' }).composite([{ input: grain, blend: 'soft-light' }]).jpeg({ quality: 88 }).toBuffer();
    const out = Object.fromEntries((await renderImage(jpeg)).map((r) => [r.kind, r.data.length]));
    console.log(`| ${(jpeg.length / 1024).toFixed(0)} | ${(out.preview / 1024).toFixed(0)} | ${(out.thumbnail / 1024).toFixed(0)} |`);
  }
}
