// Custom fields for `npm run bench:search` (issue #30), seeded by SQL after the assets, on SQLite and PostgreSQL alike:
// - `region`, a select with a tree vocabulary: 5 regions > 5 countries each > 4 cities each (130 options), set on 80%
//   of the assets (three in four to a city, the rest to a country);
// - `budget`, a number (0..100,000, 2 decimals), on 70%;
// - `campaign`, a select with 50 flat options, on 60%.
// Which asset gets what is arithmetic on its id (products modulo the prime 1,000,003, a permutation of the ids below
// it): deterministic, independent of the generator that drew the assets, and one INSERT … SELECT per field, so a
// million assets take seconds. Seeded only when the workspace lacks these fields, so a reused bench database gains them.
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { performance } from 'node:perf_hooks';

const NOW = 1_767_225_600;
const P = 1_000_003;
const REGIONS = ['Europe', 'Americas', 'Asia', 'Africa', 'Oceania'];
/** Country j (0..24) lies in region floor(j / 5); city i (0..99) in country floor(i / 4). */
const COUNTRIES = Array.from({ length: 25 }, (_, j) => `${REGIONS[Math.floor(j / 5)]} country ${(j % 5) + 1}`);
const CITIES = Array.from({ length: 100 }, (_, i) => `${COUNTRIES[Math.floor(i / 4)]} city ${(i % 4) + 1}`);
const CAMPAIGNS = Array.from({ length: 50 }, (_, i) => `Campaign ${String(i + 1).padStart(2, '0')}`);

/** Names the bench's filters use: city 0 is "Europe country 1 city 1". */
export const CUSTOM = { city: CITIES[0], region: REGIONS[1], campaign: CAMPAIGNS[0] };

const hash = (k) => `(CAST(a.id AS BIGINT) * ${k} % ${P})`;

/** `WITH m(k, id) AS (VALUES …)`: index → option id. */
const mapping = (ids) => `m(k, id) AS (VALUES ${ids.map((id, k) => `(${k}, ${id})`).join(', ')})`;

const valuesInsert = (columns) =>
  `INSERT INTO custom_field_values (field_id, workspace_id, doc_id, asset_id, ${columns})`;

/**
 * The statements, given a runner `q(sql) → rows` inside one transaction. Field and option ids come back from the
 * inserts (RETURNING), so the SQL embeds only integers this function made or read.
 */
async function seed(q, workspaceId) {
  const [{ n }] = await q(`SELECT count(*) AS n FROM custom_fields WHERE workspace_id = ${workspaceId} AND key IN ('region', 'budget', 'campaign')`);
  if (Number(n) > 0) return false;
  const field = async (key, label, type, position, num = 'NULL, NULL, NULL') =>
    (await q(`INSERT INTO custom_fields (workspace_id, key, label, type, position, num_min, num_max, num_decimals, created_at, modified_at)
      VALUES (${workspaceId}, '${key}', '${label}', '${type}', ${position}, ${num}, ${NOW}, ${NOW}) RETURNING id`))[0].id;
  const option = async (fieldId, parentId, label, position) =>
    (await q(`INSERT INTO custom_field_options (field_id, parent_id, label, position, created_at)
      VALUES (${fieldId}, ${parentId ?? 'NULL'}, '${label}', ${position}, ${NOW}) RETURNING id`))[0].id;

  const region = await field('region', 'Region', 'select', 0);
  const budget = await field('budget', 'Budget', 'number', 1, '0, 100000, 2');
  const campaign = await field('campaign', 'Campaign', 'select', 2);
  const regionIds = [];
  for (const [i, label] of REGIONS.entries()) regionIds.push(await option(region, null, label, i));
  const countryIds = [];
  for (const [j, label] of COUNTRIES.entries()) countryIds.push(await option(region, regionIds[Math.floor(j / 5)], label, j % 5));
  const cityIds = [];
  for (const [i, label] of CITIES.entries()) cityIds.push(await option(region, countryIds[Math.floor(i / 4)], label, i % 4));
  const campaignIds = [];
  for (const [i, label] of CAMPAIGNS.entries()) campaignIds.push(await option(campaign, null, label, i));

  const assets = `FROM assets a JOIN m ON m.k = %K% WHERE a.workspace_id = ${workspaceId} AND a.deleted_at IS NULL`;
  const own = (fieldId) => `${fieldId}, ${workspaceId}, CAST(a.id AS BIGINT) * 4 + 1, a.id`;
  // region: 80% (hash 1 below 80 of 100); hash 2 picks the city, and one in four of them stands for its country.
  const h2 = hash(104_729);
  const regionKey = `CASE WHEN ${h2} / 100 % 4 = 0 THEN 100 + ${h2} % 100 / 4 ELSE ${h2} % 100 END`;
  await q(`WITH ${mapping([...cityIds, ...countryIds])} ${valuesInsert('option_id')}
    SELECT ${own(region)}, m.id ${assets.replace('%K%', regionKey)} AND ${hash(7_919)} % 100 < 80 ORDER BY a.id`);
  await q(`${valuesInsert('num_value')}
    SELECT ${own(budget)}, CAST(CAST(a.id AS BIGINT) * 2654435761 % 10000001 AS DOUBLE PRECISION) / 100
    FROM assets a WHERE a.workspace_id = ${workspaceId} AND a.deleted_at IS NULL AND ${hash(15_485_863)} % 100 < 70 ORDER BY a.id`);
  await q(`WITH ${mapping(campaignIds)} ${valuesInsert('option_id')}
    SELECT ${own(campaign)}, m.id ${assets.replace('%K%', `${hash(69_621)} % 50`)} AND ${hash(48_271)} % 100 < 60 ORDER BY a.id`);
  return true;
}

/** Seeds the custom fields unless present; answers the seconds taken, or null when they were there. */
export async function seedCustomSqlite(file, workspaceId) {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('cache_size = -524288');
  const t0 = performance.now();
  let seeded = false;
  db.exec('BEGIN');
  try {
    seeded = await seed(async (sql) => {
      const s = db.prepare(sql);
      return s.reader ? s.all() : (s.run(), []);
    }, workspaceId);
    db.exec('COMMIT');
  } catch (e) {
    db.exec('ROLLBACK');
    throw e;
  }
  if (seeded) db.exec('ANALYZE custom_field_values; ANALYZE custom_field_options; ANALYZE custom_fields');
  db.close();
  return seeded ? (performance.now() - t0) / 1000 : null;
}

export async function seedCustomPostgres(url, schema, workspaceId) {
  const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema},public` });
  await client.connect();
  const t0 = performance.now();
  let seeded = false;
  try {
    await client.query('BEGIN');
    seeded = await seed(async (sql) => (await client.query(sql)).rows, workspaceId);
    await client.query('COMMIT');
    if (seeded) await client.query('VACUUM ANALYZE custom_field_values, custom_field_options, custom_fields');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    await client.end();
  }
  return seeded ? (performance.now() - t0) / 1000 : null;
}
