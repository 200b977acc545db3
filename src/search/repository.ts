import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DB } from '../db/database.js';
import { parseTags } from '../repositories/assets.js';
import { KIND } from './collections.js';
import type { TextSearchDialect } from './dialects/index.js';
import type { RequiredWords } from './filter/pushdown.js';

/**
 * SQL of the search index (issue #4). A query is planned by the service and
 * run here as two statements: the count, and one page joined to the catalog
 * table of its kind for the documents' fields. Both are parameterised; the
 * caller's workspaces are always part of the WHERE clause (seed 5).
 */

export type SortField = 'modified_at' | 'created_at';
export type Direction = 'asc' | 'desc';

export interface SearchPlan {
  readonly kind: number;
  /** The workspaces whose documents may be returned; never empty. */
  readonly workspaceIds: readonly number[];
  /** Words to match, or null for all documents. */
  readonly words: readonly string[] | null;
  readonly filter: RawBuilder<SqlBool> | null;
  /** Words the filter implies (filter/pushdown.ts). */
  readonly required: RequiredWords;
  /** Null: by relevance (with words), then newest first. */
  readonly sort: { readonly field: SortField; readonly direction: Direction } | null;
}

export interface DocumentRow {
  id: number;
  workspace_id: number;
  folder_id: number | null;
  name: string;
  file_name: string | null;
  file_type: string;
  mime_type: string | null;
  file_size: number | null;
  width: number | null;
  height: number | null;
  orientation: string | null;
  tags: string[];
  visibility: number;
  description: string | null;
  created_at: number;
  modified_at: number;
}

/** The catalog columns of each kind, under the names of DocumentRow. */
const CATALOG: Readonly<Record<number, RawBuilder<unknown>>> = {
  [KIND.digital_assets]: sql`SELECT c.id, c.workspace_id, c.folder_id, c.display_file_name AS name, c.file_name, c.file_type,
      c.mime_type, c.file_size, c.width, c.height, c.orientation, c.tags, c.visibility, NULL AS description, c.created_at, c.modified_at
    FROM page p JOIN assets c ON c.id = p.ref_id`,
  [KIND.digital_assets_categories]: sql`SELECT c.id, c.workspace_id, c.parent_id AS folder_id, c.name, NULL AS file_name, 'folder' AS file_type,
      NULL AS mime_type, NULL AS file_size, NULL AS width, NULL AS height, NULL AS orientation, c.tags, c.visibility, NULL AS description, c.created_at, c.modified_at
    FROM page p JOIN folders c ON c.id = p.ref_id`,
  [KIND.dam_collections]: sql`SELECT c.id, c.workspace_id, NULL AS folder_id, c.name, NULL AS file_name, 'collection' AS file_type,
      NULL AS mime_type, NULL AS file_size, NULL AS width, NULL AS height, NULL AS orientation, c.tags, c.visibility, c.description, c.created_at, c.modified_at
    FROM page p JOIN collections c ON c.id = p.ref_id`,
};

const DIRECTION = { asc: sql.raw('ASC'), desc: sql.raw('DESC') } as const;
const SORT_COLUMN = { modified_at: sql.raw('modified_at'), created_at: sql.raw('created_at') } as const;

/** Up to this many workspaces, a page without words is read per workspace (see pageDocuments). */
const MAX_BRANCHES = 64;

function source(dialect: TextSearchDialect, plan: SearchPlan, ws = plan.workspaceIds) {
  const text = plan.words ? dialect.textMatch(plan.words, { kind: plan.kind, workspaceIds: ws, required: plan.required }) : null;
  const conditions: RawBuilder<SqlBool>[] = [
    sql<SqlBool>`d.kind = ${plan.kind}`,
    ws.length === 1 ? sql<SqlBool>`d.workspace_id = ${ws[0]}` : sql<SqlBool>`d.workspace_id IN (${sql.join(ws)})`,
  ];
  if (text) conditions.push(text.where);
  if (plan.filter) conditions.push(plan.filter);
  return { from: text?.from ?? sql`search_documents d`, where: sql.join(conditions, sql` AND `), relevance: text?.relevance, textCount: text?.count };
}

export async function countDocuments(db: DB, dialect: TextSearchDialect, plan: SearchPlan): Promise<number> {
  const { from, where, textCount } = source(dialect, plan);
  const query = textCount && !plan.filter ? textCount : sql<{ n: number | string }>`SELECT count(*) AS n FROM ${from} WHERE ${where}`;
  const { rows } = await query.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * One page in order. Sort keys: relevance (only with words and no sort_by),
 * then the date, then doc_id in the date's direction, so ties are broken by
 * id and the order is total (pages are disjoint and complete).
 */
export async function pageDocuments(db: DB, dialect: TextSearchDialect, plan: SearchPlan, limit: number, offset: number): Promise<DocumentRow[]> {
  const { from, where, relevance } = source(dialect, plan);
  const field = plan.sort?.field ?? 'modified_at';
  const dir = DIRECTION[plan.sort?.direction ?? 'desc'];
  const col = SORT_COLUMN[field];
  const byDate = (f: typeof from, w: typeof where) => sql`SELECT d.doc_id, d.ref_id, 0 AS r, d.${col} AS s FROM ${f} WHERE ${w} ORDER BY d.${col} ${dir}, d.doc_id ${dir}`;
  let inner = relevance && !plan.sort ? sql`SELECT d.doc_id, d.ref_id, ${relevance} AS r, d.${col} AS s FROM ${from} WHERE ${where} ORDER BY r, s ${dir}, d.doc_id ${dir}` : byDate(from, where);
  const ws = plan.workspaceIds;
  if (!plan.words && ws.length > 1 && ws.length <= MAX_BRANCHES) {
    // workspace_id IN (a, b) cannot read the date index in order, so neither database avoids sorting
    // every document (seconds at a million); one ordered, limited branch per workspace, merged, can.
    const branches = ws.map((id, i) => {
      const one = source(dialect, plan, [id]);
      return sql`SELECT * FROM (${byDate(one.from, one.where)} LIMIT ${limit + offset}) AS ${sql.raw(`b${i}`)}`;
    });
    inner = sql`SELECT * FROM (${sql.join(branches, sql` UNION ALL `)}) AS u ORDER BY s ${dir}, doc_id ${dir}`;
  }
  const { rows } = await sql<Omit<DocumentRow, 'tags'> & { tags: string }>`
    WITH page AS (${inner} LIMIT ${limit} OFFSET ${offset})
    ${CATALOG[plan.kind]}
    ORDER BY p.r, p.s ${dir}, p.doc_id ${dir}`.execute(db);
  return rows.map((row) => ({ ...row, tags: parseTags(row.tags) }));
}

/**
 * Distinct tags, then names, of the workspaces that start with the (ASCII-folded)
 * prefix, in byte order. Read per workspace (each branch stops after `limit`
 * in index order; `workspace_id IN (...)` would sort every match) and merged.
 */
export async function suggestions(db: DB, workspaceIds: readonly number[], folded: string, limit: number): Promise<string[]> {
  // The greatest code point: every string that starts with `folded` sorts below folded + U+10FFFF.
  const upper = `${folded}\u{10FFFF}`;
  const groups = workspaceIds.length <= MAX_BRANCHES ? workspaceIds.map((ws) => [ws]) : [workspaceIds];
  const merged = (branch: (ws: RawBuilder<unknown>) => RawBuilder<unknown>) =>
    sql<{ folded: string; text: string }>`SELECT DISTINCT folded, text FROM (${sql.join(
      groups.map((ws, i) => sql`SELECT * FROM (${branch(sql`IN (${sql.join(ws)})`)} ORDER BY folded, text LIMIT ${limit}) AS ${sql.raw(`b${i}`)}`),
      sql` UNION ALL `,
    )}) AS u ORDER BY folded, text LIMIT ${limit}`;
  const [tags, names] = await Promise.all([
    merged((ws) => sql`SELECT DISTINCT t.tag_folded AS folded, t.tag AS text FROM search_tags t
      WHERE t.workspace_id ${ws} AND t.tag_folded >= ${folded} AND t.tag_folded < ${upper}`).execute(db),
    merged((ws) => sql`SELECT DISTINCT n.name_folded AS folded, n.name AS text FROM search_names n
      WHERE n.workspace_id ${ws} AND n.name_folded >= ${folded} AND n.name_folded < ${upper}`).execute(db),
  ]);
  return [...tags.rows, ...names.rows].map((r) => r.text);
}
