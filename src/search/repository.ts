import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { DB } from '../db/database.js';
import { visibleInWorkspacesSql, type ViewerWorkspaces } from '../domain/asset-visibility.js';
import type { SearchSort } from '../domain/sort-orders.js';
import { parseTags } from '../repositories/assets.js';
import { KIND } from './collections.js';
import type { TextSearchDialect, TypoMatch } from './dialects/index.js';
import type { RequiredWords } from './filter/pushdown.js';
import { listedFacets, parseFacetJson, textFacets, type FacetPlan, type FacetResult } from './facets/index.js';

/**
 * SQL of the search index (issue #4). A query is planned by the service and
 * run here: with words as one statement (matches, count and page), without
 * as two (count, and one page read in index order); the page is joined to the
 * catalog table of its kind for the documents' fields. All parameterised; the
 * caller's workspaces are always part of the WHERE clause (seed 5), and so is,
 * for assets, the private-asset rule in the workspaces where the caller is a
 * viewer (domain/asset-visibility.ts): every match, count, facet and page.
 */

export interface SearchPlan {
  readonly kind: number;
  /** The workspaces whose documents may be returned; never empty. */
  readonly workspaceIds: readonly number[];
  /** Of those, the ones where the caller is a viewer: their private assets show only when the caller uploaded them. */
  readonly viewer?: ViewerWorkspaces | null;
  /** Words to match, or null for all documents. */
  readonly words: readonly string[] | null;
  /** Per word, the typo candidates that also match it (issue #27, src/search/typos/); absent: the words as typed. */
  readonly typos?: TypoMatch;
  readonly filter: RawBuilder<SqlBool> | null;
  /** Words the filter implies (filter/pushdown.ts). */
  readonly required: RequiredWords;
  /** Null: by relevance (with words), then newest first. Folders and collections never get a file_size or taken_at sort (sort-orders.ts). */
  readonly sort: SearchSort | null;
  /** Facet counts to compute over the whole result (issue #12, src/search/facets/); absent: none. */
  readonly facets?: FacetPlan | null;
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
  /** Assets only: the embedded metadata (issue #12). */
  embedded?: EmbeddedFields;
  /** Assets only: the SHA-256 of the current file (issue #19), null until hashed. */
  sha256?: string | null;
  /** Assets only: why the current file cannot be read (issue #27), null when readable. */
  unreadable_reason?: string | null;
}

/** The embedded-metadata columns of an asset (migration 0011) a search document carries. */
export const EMBEDDED_FIELDS = [
  'taken_at', 'camera_make', 'camera_model', 'lens', 'iso', 'exposure', 'aperture', 'focal_length', 'gps_lat', 'gps_lon',
  'duration', 'color_space', 'caption', 'creator', 'copyright', 'usage_terms',
] as const;
export type EmbeddedFields = { [K in (typeof EMBEDDED_FIELDS)[number]]: number | string | null } & { keywords: string[] };

/** The catalog table of each kind and its columns under the names of DocumentRow (`c` is the catalog row). */
const CATALOG: Readonly<Record<number, { table: RawBuilder<unknown>; columns: RawBuilder<unknown> }>> = {
  [KIND.digital_assets]: {
    table: sql.raw('assets'),
    columns: sql`c.id, c.workspace_id, c.folder_id, c.display_file_name AS name, c.file_name, c.file_type,
      c.mime_type, c.file_size, c.width, c.height, c.orientation, c.tags, c.visibility, NULL AS description, c.created_at, c.modified_at,
      ${sql.raw(EMBEDDED_FIELDS.map((f) => `c.${f}`).join(', '))}, c.keywords, c.sha256, c.unreadable_reason`,
  },
  [KIND.digital_assets_categories]: {
    table: sql.raw('folders'),
    columns: sql`c.id, c.workspace_id, c.parent_id AS folder_id, c.name, NULL AS file_name, 'folder' AS file_type,
      NULL AS mime_type, NULL AS file_size, NULL AS width, NULL AS height, NULL AS orientation, c.tags, c.visibility, NULL AS description, c.created_at, c.modified_at`,
  },
  [KIND.dam_collections]: {
    table: sql.raw('collections'),
    columns: sql`c.id, c.workspace_id, NULL AS folder_id, c.name, NULL AS file_name, 'collection' AS file_type,
      NULL AS mime_type, NULL AS file_size, NULL AS width, NULL AS height, NULL AS orientation, c.tags, c.visibility, c.description, c.created_at, c.modified_at`,
  },
};

const DIRECTION = { asc: sql.raw('ASC'), desc: sql.raw('DESC') } as const;
/**
 * Where each sort's value is: the dates in search_documents (`d`), the name key and the size in
 * search_sort (migration 0010), kept apart so that the index triggers of search_documents stay as they are.
 * Only the date taken (migration 0012; assets only) may be NULL.
 */
const SORT_COLUMN = {
  modified_at: { table: null, column: sql.raw('modified_at'), nullable: false },
  created_at: { table: null, column: sql.raw('created_at'), nullable: false },
  display_file_name: { table: sql.raw('search_sort'), column: sql.raw('name_key'), nullable: false },
  file_size: { table: sql.raw('search_sort'), column: sql.raw('file_size'), nullable: false },
  taken_at: { table: null, column: sql.raw('taken_at'), nullable: true },
} as const;

/** Up to this many workspaces, a page without words is read per workspace (see listPage). */
const MAX_BRANCHES = 64;

/** The documents of one page, and how many match in all. */
export interface SearchPage {
  found: number;
  rows: DocumentRow[];
  /** When the plan asks for facets. */
  facets?: FacetResult;
}

type Condition = RawBuilder<SqlBool>;

/** What every read of a plan holds on `d` (search_documents): its kind, the workspaces `ws`, the private-asset rule, its filter. */
export function scopeConditions(plan: SearchPlan, ws: readonly number[]): Condition[] {
  const conditions: Condition[] = [
    sql<SqlBool>`d.kind = ${plan.kind}`,
    ws.length === 1 ? sql<SqlBool>`d.workspace_id = ${ws[0]}` : sql<SqlBool>`d.workspace_id IN (${sql.join(ws)})`,
  ];
  // Folders and collections have no uploader; the rule is about assets.
  const visible = plan.kind === KIND.digital_assets ? visibleInWorkspacesSql(plan.viewer ?? null, 'd', ws) : null;
  if (visible) conditions.push(visible);
  if (plan.filter) conditions.push(plan.filter);
  return conditions;
}

function order(plan: SearchPlan) {
  const dir = DIRECTION[plan.sort?.direction ?? 'desc'];
  const { table, column, nullable } = SORT_COLUMN[plan.sort?.field ?? 'modified_at'];
  /**
   * ORDER BY terms over rows (doc_id, r, s) of alias `a` ('' for none): relevance tier, then (when the
   * value may be missing) those without one last in both directions, the value, doc_id.
   */
  const keys = (a: string) => {
    const ref = (c: string) => sql.raw(`${a}${c}`);
    return sql.join([ref('r'), ...(nullable ? [sql`${ref('s')} IS NULL`] : []), sql`${ref('s')} ${dir}`, sql`${ref('doc_id')} ${dir}`]);
  };
  return { dir, col: column, sortTable: table, nullable, keys };
}

/** `page` (doc_id, ref_id, r, s) joined to the catalog, in page order. */
function withDocuments(plan: SearchPlan) {
  const { table, columns } = CATALOG[plan.kind]!;
  // `+p.ref_id`: SQLite otherwise may scan the whole catalog table and probe the page through an automatic index
  // (36 ms instead of 0.7 at 200,000 assets, for a page of 10 or none); the + leaves it only the page-first order.
  return sql`SELECT ${columns}, p.r, p.s, p.doc_id FROM page p JOIN ${table} c ON c.id = +p.ref_id`;
}

type RawRow = Omit<DocumentRow, 'tags' | 'embedded'> & { tags: string; id: number | null; keywords?: string } & Partial<Record<(typeof EMBEDDED_FIELDS)[number], number | string | null>>;

/**
 * Completes the driver's rows in place (tags parsed, the embedded fields gathered) rather than copying them
 * with rest spreads and deleting the embedded columns: `delete` turned each row into a slow dictionary-mode
 * object, and the copies were a visible part of a search's CPU (issue #18). The embedded columns stay on the
 * row too; toSearchDocument reads the fields it answers by name.
 */
function toRows(rows: readonly RawRow[]): DocumentRow[] {
  const docs: DocumentRow[] = [];
  for (const row of rows) {
    if (row.id === null) continue;
    const doc = row as unknown as DocumentRow;
    doc.tags = parseTags(row.tags);
    if (row.keywords !== undefined) {
      const embedded: Record<string, unknown> = { keywords: parseTags(row.keywords) };
      for (const field of EMBEDDED_FIELDS) embedded[field] = row[field] ?? null;
      doc.embedded = embedded as EmbeddedFields;
    }
    docs.push(doc);
  }
  return docs;
}

/**
 * One page in order, and the count. Sort keys: relevance (only with words and
 * no sort_by), then the date, then doc_id in the date's direction, so ties are
 * broken by id and the order is total (pages are disjoint and complete).
 */
export async function searchDocuments(db: DB, dialect: TextSearchDialect, plan: SearchPlan, limit: number, offset: number): Promise<SearchPage> {
  if (plan.words) return textPage(db, dialect, plan, plan.words, limit, offset);
  const [found, rows] = await Promise.all([countListed(db, plan), listPage(db, plan, limit, offset)]);
  if (!plan.facets) return { found, rows };
  const scope = { kind: plan.kind, catalog: CATALOG[plan.kind]!.table, where: sql.join(scopeConditions(plan, plan.workspaceIds), sql` AND `) };
  return { found, rows, facets: await listedFacets(db, plan.facets, scope, found) };
}

/**
 * With words, every match has to be read anyway (for the relevance or the
 * date order), so the matches are collected once, materialised, and both
 * counted and paged from there: one text-index evaluation per query instead
 * of one for the count and one for the page.
 */
async function textPage(db: DB, dialect: TextSearchDialect, plan: SearchPlan, words: readonly string[], limit: number, offset: number): Promise<SearchPage> {
  const text = dialect.textMatch(words, plan.required, plan.typos);
  const { col, sortTable, keys } = order(plan);
  const rank = plan.sort ? sql`0` : text.relevance;
  // A name or size is one more lookup per match, by primary key (a scalar subquery: the same SQL on both databases).
  const value = sortTable ? sql`(SELECT o.${col} FROM ${sortTable} o WHERE o.doc_id = d.doc_id)` : sql`d.${col}`;
  const where = sql.join([text.where, ...scopeConditions(plan, plan.workspaceIds)], sql` AND `);
  // Facets (facets/repository.ts) are counted over the same materialised matches, in this statement.
  const facets = plan.facets ? textFacets(plan.facets, plan.kind) : { matchColumns: sql``, ctes: sql``, json: sql`NULL` };
  const { rows } = await sql<RawRow & { found: number | string; facets: string | null }>`
    WITH m AS MATERIALIZED (SELECT d.doc_id, d.ref_id, ${rank} AS r, ${value} AS s${facets.matchColumns} FROM ${text.from} WHERE ${where}),
    page AS (SELECT * FROM m ORDER BY ${keys('')} LIMIT ${limit} OFFSET ${offset})${facets.ctes}
    SELECT n.found, n.facets, x.* FROM (SELECT count(*) AS found, ${facets.json} AS facets FROM m) n LEFT JOIN (${withDocuments(plan)}) x ON 1 = 1
    ORDER BY ${keys('x.')}`.execute(db);
  const found = Number(rows[0]?.found ?? 0);
  const page: SearchPage = { found, rows: toRows(rows) };
  if (plan.facets) page.facets = { rows: parseFacetJson(rows[0]?.facets), sampled: found > plan.facets.sample };
  return page;
}

/** The catalog ids a plan matches, in id order, up to a limit, and how many match in all. */
export interface MatchedIds {
  found: number;
  ids: number[];
}

/**
 * Every match of a plan as catalog ids (issue #27: a bulk action over a search), without documents, relevance or
 * facets: the matches are collected once, as textPage does, then counted and read in id order up to `limit`.
 */
export async function matchingIds(db: DB, dialect: TextSearchDialect, plan: SearchPlan, limit: number): Promise<MatchedIds> {
  const scope = scopeConditions(plan, plan.workspaceIds);
  const text = plan.words ? dialect.textMatch(plan.words, plan.required, plan.typos) : null;
  const from = text ? text.from : sql`search_documents d`;
  const where = sql.join(text ? [text.where, ...scope] : scope, sql` AND `);
  const { rows } = await sql<{ found: number | string; ref_id: number | null }>`
    WITH m AS MATERIALIZED (SELECT d.ref_id FROM ${from} WHERE ${where})
    SELECT n.found, x.ref_id FROM (SELECT count(*) AS found FROM m) n
    LEFT JOIN (SELECT ref_id FROM m ORDER BY ref_id LIMIT ${limit}) x ON 1 = 1
    ORDER BY x.ref_id`.execute(db);
  const ids = rows.flatMap((r) => (r.ref_id === null ? [] : [Number(r.ref_id)]));
  return { found: Number(rows[0]?.found ?? 0), ids };
}

async function countListed(db: DB, plan: SearchPlan): Promise<number> {
  const where = sql.join(scopeConditions(plan, plan.workspaceIds), sql` AND `);
  const { rows } = await sql<{ n: number | string }>`SELECT count(*) AS n FROM search_documents d WHERE ${where}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/**
 * A page without words, in index order: by date from search_documents' date indexes; by name or size
 * from search_sort's (kind, workspace_id, name_key | file_size, doc_id), each entry joined to its
 * document, which decides whether it is searchable and holds the filtered fields. Then doc_id.
 */
async function listPage(db: DB, plan: SearchPlan, limit: number, offset: number): Promise<DocumentRow[]> {
  const { dir, col, sortTable, nullable, keys } = order(plan);
  const ordered = (ws: readonly number[]) => {
    const where = sql.join(scopeConditions(plan, ws), sql` AND `);
    if (nullable) {
      // The date taken: the dated documents from search_documents_taken (kind, workspace_id, taken_at, doc_id)
      // in order, the undated ones from search_documents_undated (kind, workspace_id, doc_id), each limited, so
      // that a page reads neither to its end; merged with the undated last.
      const range = (condition: RawBuilder<unknown>, orderBy: RawBuilder<unknown>, alias: string) =>
        sql`SELECT * FROM (SELECT d.doc_id, d.ref_id, 0 AS r, d.${col} AS s FROM search_documents d WHERE ${where} AND ${condition}
          ORDER BY ${orderBy} LIMIT ${limit + offset}) AS ${sql.raw(alias)}`;
      const dated = range(sql`d.${col} IS NOT NULL`, sql`d.${col} ${dir}, d.doc_id ${dir}`, 't0');
      const undated = range(sql`d.${col} IS NULL`, sql`d.doc_id ${dir}`, 't1');
      return sql`SELECT * FROM (${dated} UNION ALL ${undated}) AS t ORDER BY ${keys('')}`;
    }
    if (!sortTable) {
      return sql`SELECT d.doc_id, d.ref_id, 0 AS r, d.${col} AS s FROM search_documents d WHERE ${where}
        ORDER BY d.${col} ${dir}, d.doc_id ${dir}`;
    }
    const workspace = ws.length === 1 ? sql`o.workspace_id = ${ws[0]}` : sql`o.workspace_id IN (${sql.join(ws)})`;
    return sql`SELECT o.doc_id, d.ref_id, 0 AS r, o.${col} AS s FROM ${sortTable} o JOIN search_documents d ON d.doc_id = o.doc_id
      WHERE o.kind = ${plan.kind} AND ${workspace} AND ${where}
      ORDER BY o.${col} ${dir}, o.doc_id ${dir}`;
  };
  const ws = plan.workspaceIds;
  let inner = ordered(ws);
  if (ws.length > 1 && ws.length <= MAX_BRANCHES) {
    // workspace_id IN (a, b) cannot read the date index in order, so neither database avoids sorting
    // every document (seconds at a million); one ordered, limited branch per workspace, merged, can.
    const branches = ws.map((id, i) => sql`SELECT * FROM (${ordered([id])} LIMIT ${limit + offset}) AS ${sql.raw(`b${i}`)}`);
    inner = sql`SELECT * FROM (${sql.join(branches, sql` UNION ALL `)}) AS u ORDER BY ${keys('')}`;
  }
  const { rows } = await sql<RawRow>`
    WITH page AS (${inner} LIMIT ${limit} OFFSET ${offset})
    ${withDocuments(plan)}
    ORDER BY ${keys('p.')}`.execute(db);
  return toRows(rows);
}

/**
 * Distinct tags, then names, of the workspaces that start with the (ASCII-folded)
 * prefix, in byte order. Read per workspace (each branch stops after `limit`
 * in index order; `workspace_id IN (...)` would sort every match) and merged.
 * In the workspaces of `viewer`, the tags and names of private assets the caller
 * did not upload are left out (a document's visibility is in search_documents).
 */
export async function suggestions(db: DB, workspaceIds: readonly number[], folded: string, limit: number, viewer: ViewerWorkspaces | null = null): Promise<string[]> {
  // The greatest code point: every string that starts with `folded` sorts below folded + U+10FFFF.
  const upper = `${folded}\u{10FFFF}`;
  const groups = workspaceIds.length <= MAX_BRANCHES ? workspaceIds.map((ws) => [ws]) : [workspaceIds];
  const merged = (branch: (ws: RawBuilder<unknown>, visible: (doc: RawBuilder<unknown>) => RawBuilder<unknown>) => RawBuilder<unknown>) =>
    sql<{ folded: string; text: string }>`SELECT DISTINCT folded, text FROM (${sql.join(
      groups.map((ws, i) => {
        const rule = visibleInWorkspacesSql(viewer, 'd', ws);
        // Only the documents of the group's viewer workspaces are looked up: other branches read their index alone.
        const visible = (doc: RawBuilder<unknown>) =>
          rule ? sql` AND EXISTS (SELECT 1 FROM search_documents d WHERE d.doc_id = ${doc} AND (d.kind <> ${KIND.digital_assets} OR ${rule}))` : sql``;
        return sql`SELECT * FROM (${branch(sql`IN (${sql.join(ws)})`, visible)} ORDER BY folded, text LIMIT ${limit}) AS ${sql.raw(`b${i}`)}`;
      }),
      sql` UNION ALL `,
    )}) AS u ORDER BY folded, text LIMIT ${limit}`;
  const [tags, names] = await Promise.all([
    merged((ws, visible) => sql`SELECT DISTINCT t.tag_folded AS folded, t.tag AS text FROM search_tags t
      WHERE t.workspace_id ${ws} AND t.tag_folded >= ${folded} AND t.tag_folded < ${upper}${visible(sql`t.doc_id`)}`).execute(db),
    merged((ws, visible) => sql`SELECT DISTINCT n.name_folded AS folded, n.name AS text FROM search_names n
      WHERE n.workspace_id ${ws} AND n.name_folded >= ${folded} AND n.name_folded < ${upper}${visible(sql`n.doc_id`)}`).execute(db),
  ]);
  return [...tags.rows, ...names.rows].map((r) => r.text);
}
