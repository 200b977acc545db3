import { sql } from 'kysely';
import type { DB } from '../../db/database.js';
import type { TextSearchDialect } from '../dialects/index.js';
import { scopeConditions, type SearchPlan } from '../repository.js';
import type { OverviewDialect } from './dialects.js';

/**
 * The map's points and the timeline's months (issue #27): aggregates over every asset a search plan matches, read
 * with the same conditions as its hits (workspaces, the private-asset rule, filter, words), so a point or a count
 * never names an asset the caller could not find.
 */

/** The documents a plan matches, as `d` (search_documents): FROM and WHERE. */
export function matchedDocuments(text: TextSearchDialect, plan: SearchPlan) {
  const scope = scopeConditions(plan, plan.workspaceIds);
  const match = plan.words ? text.textMatch(plan.words, plan.required) : null;
  return { from: match ? match.from : sql`search_documents d`, where: sql.join(match ? [match.where, ...scope] : scope, sql` AND `) };
}

/** [asset id, latitude, longitude] */
export type GeoPoint = [number, number, number];

/** Up to `limit` positions of matched assets, newest assets first (by id), and whether there were more. */
export async function geoPoints(db: DB, text: TextSearchDialect, plan: SearchPlan, limit: number): Promise<{ points: GeoPoint[]; truncated: boolean }> {
  const { from, where } = matchedDocuments(text, plan);
  // `g`: SQLite's text match already names search_fts `f`.
  const { rows } = await sql<{ id: number; lat: number; lon: number }>`
    SELECT d.ref_id AS id, g.gps_lat AS lat, g.gps_lon AS lon FROM ${from} JOIN search_asset_facts g ON g.doc_id = d.doc_id
    WHERE ${where} AND g.gps_lat IS NOT NULL AND g.gps_lon IS NOT NULL
    ORDER BY d.doc_id DESC LIMIT ${limit + 1}`.execute(db);
  const points = rows.slice(0, limit).map((r): GeoPoint => [Number(r.id), Number(r.lat), Number(r.lon)]);
  return { points, truncated: rows.length > limit };
}

export interface MonthCount {
  month: string;
  count: number;
}

/** Matched assets per month of their date taken (newest month first), up to `limit` months, and how many have none. */
export async function monthCounts(
  db: DB,
  text: TextSearchDialect,
  dialect: OverviewDialect,
  plan: SearchPlan,
  limit: number,
): Promise<{ months: MonthCount[]; undated: number; truncated: boolean }> {
  const { from, where } = matchedDocuments(text, plan);
  const month = dialect.month(sql`d.taken_at`);
  const [dated, undated] = await Promise.all([
    sql<{ month: string; n: number | string }>`SELECT ${month} AS month, count(*) AS n FROM ${from}
      WHERE ${where} AND d.taken_at IS NOT NULL GROUP BY 1 ORDER BY 1 DESC LIMIT ${limit + 1}`.execute(db),
    sql<{ n: number | string }>`SELECT count(*) AS n FROM ${from} WHERE ${where} AND d.taken_at IS NULL`.execute(db),
  ]);
  const months = dated.rows.slice(0, limit).map((r) => ({ month: r.month, count: Number(r.n) }));
  return { months, undated: Number(undated.rows[0]?.n ?? 0), truncated: dated.rows.length > limit };
}
