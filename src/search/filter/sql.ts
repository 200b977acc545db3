import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { visibleInWorkspacesSql, type ViewerWorkspaces } from '../../domain/asset-visibility.js';
import type { GeoBox, Predicate } from './bind.js';
import type { BoundCustom } from './custom.js';
import { customMatches } from './custom-sql.js';
import { any, big, containsPattern, oneOf, OPERATORS, type Condition } from './sql-parts.js';
import { KIND } from '../collections.js';
import type { FieldSpec } from './fields.js';

/**
 * Compiles a checked filter into a parameterised SQL condition over
 * `search_documents d`. Every value is a bound parameter; the only SQL text
 * that varies is column names and comparison operators taken from fixed
 * tables (fields.ts, bind.ts), never from the request. The same SQL runs on
 * SQLite and PostgreSQL.
 *
 * Embedded-metadata fields (issue #12) live in search_asset_facts `f` (and
 * search_keywords `k`), which only assets have rows in: a condition on them is
 * `d.doc_id IN (the rows of the caller's workspaces that pass)`, and `:!=` is
 * `NOT IN` the rows that pass the positive test, so a document without the
 * value (a folder, an asset without a camera) matches `:!=`, as a NULL
 * orientation does.
 */

export { containsPattern };

const column = (field: FieldSpec) => sql.ref(`${field.facts ? 'f' : 'd'}.${field.column ?? 'doc_id'}`);

/** `:!=`: none of the values; a document without a value (NULL) is not equal to any. */
function negated(condition: Condition, field: FieldSpec | null): Condition {
  return field?.nullable ? sql<SqlBool>`(${column(field)} IS NULL OR NOT ${condition})` : sql<SqlBool>`NOT ${condition}`;
}

function textTest(target: RawBuilder<unknown>, test: 'equals' | 'contains', values: readonly string[]): Condition {
  if (test === 'equals') return oneOf(target, values);
  return any(values.map((v) => sql<SqlBool>`${target} LIKE ${containsPattern(v)} ESCAPE '\\'`));
}

/** `d.doc_id IN (rows)`, or `NOT IN` for `:!=`. */
const member = (rows: RawBuilder<unknown>, negate: boolean): Condition =>
  negate ? sql<SqlBool>`d.doc_id NOT IN (${rows})` : sql<SqlBool>`d.doc_id IN (${rows})`;

/**
 * A test on one field: on search_documents in place (a nullable column's `:!=` includes NULL), on
 * search_asset_facts as membership in its passing rows of the caller's workspaces. The `IS NOT NULL`
 * is implied by the test; it is written so that both planners see the partial indexes apply.
 */
function onField(field: FieldSpec, test: Condition, negate: boolean, workspaceIds: readonly number[]): Condition {
  if (!field.facts) return negate ? negated(sql<SqlBool>`(${test})`, field) : test;
  const rows = sql`SELECT f.doc_id FROM search_asset_facts f
    WHERE f.workspace_id IN (${sql.join(workspaceIds)}) AND ${column(field)} IS NOT NULL AND ${test}`;
  return member(rows, negate);
}

/** gps inside the box; across the antimeridian (west > east) the longitudes are those east of west or west of east. */
function geoRows(box: GeoBox, workspaceIds: readonly number[]): RawBuilder<unknown> {
  const longitude =
    box.west <= box.east ? sql`f.gps_lon BETWEEN ${box.west} AND ${box.east}` : sql`(f.gps_lon >= ${box.west} OR f.gps_lon <= ${box.east})`;
  return sql`SELECT f.doc_id FROM search_asset_facts f
    WHERE f.workspace_id IN (${sql.join(workspaceIds)}) AND f.gps_lat IS NOT NULL AND f.gps_lat BETWEEN ${box.south} AND ${box.north} AND ${longitude}`;
}

/** The conditions of nested ANDs, in order. */
function flattenAnd(children: readonly Predicate[]): Predicate[] {
  return children.flatMap((c) => (c.type === 'and' ? flattenAnd(c.children) : [c]));
}

/**
 * The SQL condition of a checked filter. `workspaceIds` are the caller's workspaces searched (never
 * empty): the embedded-metadata tables are read within them (their B-trees lead with the workspace).
 * `viewer`: those where the caller is a viewer, in which an asset a filter names (duplicate_of) counts
 * only when the caller may see it (domain/asset-visibility.ts); the documents themselves are held to the
 * rule by the search (search/repository.ts).
 */
export function predicateSql(p: Predicate, workspaceIds: readonly number[], viewer: ViewerWorkspaces | null = null): Condition {
  switch (p.type) {
    case 'and': {
      // Issue #30: the conditions on custom fields of one AND become one lookup (custom-sql.ts).
      const children = flattenAnd(p.children);
      const custom = children.filter((c): c is BoundCustom => c.type === 'custom-bound' && !c.negate);
      const others = custom.length > 1 ? children.filter((c) => !custom.includes(c as BoundCustom)) : children;
      const parts = others.map((c) => predicateSql(c, workspaceIds, viewer));
      if (custom.length > 1) parts.push(member(customMatches(custom), false));
      return sql<SqlBool>`(${sql.join(parts, sql` AND `)})`;
    }
    case 'or':
      return sql<SqlBool>`(${sql.join(
        p.children.map((c) => predicateSql(c, workspaceIds, viewer)),
        sql` OR `,
      )})`;
    case 'compare':
      return onField(p.field, sql<SqlBool>`${column(p.field)} ${OPERATORS[p.op]} ${big(p.value)}`, false, workspaceIds);
    case 'number': {
      const parts = p.values.length ? [oneOf(column(p.field), p.values)] : [];
      for (const [from, to] of p.ranges) parts.push(sql<SqlBool>`${column(p.field)} BETWEEN ${big(from)} AND ${big(to)}`);
      return onField(p.field, any(parts), p.negate, workspaceIds);
    }
    case 'text':
      return onField(p.field, textTest(column(p.field), p.test, p.values), p.negate, workspaceIds);
    case 'tags': {
      // "has a tag that ..." through the tags table; :!= is "has no tag that ...". Keywords likewise, within the workspaces.
      const { table, folded } = p.field.list!;
      if (table === 'search_tags') return member(sql`SELECT t.doc_id FROM search_tags t WHERE ${textTest(sql.ref(`t.${folded}`), p.test, p.values)}`, p.negate);
      const rows = sql`SELECT k.doc_id FROM search_keywords k
        WHERE k.workspace_id IN (${sql.join(workspaceIds)}) AND ${textTest(sql.ref(`k.${folded}`), p.test, p.values)}`;
      return member(rows, p.negate);
    }
    case 'geo':
      return member(geoRows(p.box, workspaceIds), p.negate);
    case 'hash': {
      // Issue #19: assets whose current file has one of the hashes (assets.sha256, indexed behind workspace_id).
      const rows = sql`SELECT CAST(h.id AS BIGINT) * 4 + ${sql.lit(KIND.digital_assets)} FROM assets h
        WHERE h.workspace_id IN (${sql.join(workspaceIds)}) AND ${oneOf(sql.ref('h.sha256'), p.values)}`;
      return member(rows, p.negate);
    }
    case 'duplicate': {
      // Issue #19: assets with the hash of one of the named assets (of the caller's workspaces), those assets excluded.
      // A private asset the caller may not see names nothing: its duplicates would tell that it exists, and its content.
      const visible = visibleInWorkspacesSql(viewer, 'o', workspaceIds);
      const rows = sql`SELECT CAST(h.id AS BIGINT) * 4 + ${sql.lit(KIND.digital_assets)} FROM assets o
        JOIN assets h ON h.workspace_id = o.workspace_id AND h.sha256 = o.sha256
        WHERE o.workspace_id IN (${sql.join(workspaceIds)}) AND ${oneOf(sql.ref('o.id'), p.values)}
          AND o.sha256 IS NOT NULL AND NOT ${oneOf(sql.ref('h.id'), p.values)}${visible ? sql` AND ${visible}` : sql``}`;
      return member(rows, p.negate);
    }
    case 'flag': {
      // Issue #27: assets whose current file could not be read (assets_unreadable_idx, partial, behind workspace_id).
      const rows = sql`SELECT CAST(u.id AS BIGINT) * 4 + ${sql.lit(KIND.digital_assets)} FROM assets u
        WHERE u.workspace_id IN (${sql.join(workspaceIds)}) AND u.unreadable_reason IS NOT NULL`;
      return member(rows, p.negate);
    }
    case 'custom':
      // The service binds every fields.<key> before it asks for SQL (search-service.ts, resolveCustomFields).
      throw new Error(`fields.${p.key} was not bound to its field`);
    case 'custom-bound':
      return member(customMatches([p]), p.negate);
    case 'collection': {
      // Members are assets; their doc_id is asset_id * 4 + the assets' kind (collections.ts). A collection
      // in the trash has no members here (its trashed members are not in the index anyway).
      const members = sql`SELECT CAST(ca.asset_id AS BIGINT) * 4 + ${sql.lit(KIND.digital_assets)} FROM collection_assets ca
        JOIN collections mc ON mc.id = ca.collection_id AND mc.deleted_at IS NULL WHERE ${oneOf(sql.ref('ca.collection_id'), p.values)}`;
      return p.negate ? sql<SqlBool>`d.doc_id NOT IN (${members})` : sql<SqlBool>`d.doc_id IN (${members})`;
    }
  }
}
