import { sql, type Kysely } from 'kysely';
import { SCOPE_MARK } from '../dialects/scope.js';
import {
  docIdSql,
  EMBEDDED_INDEXES,
  EMBEDDED_TABLES,
  HAS_EMBEDDED_TEXT,
  HAS_FACTS,
  INDEX_SOURCES,
  SHARED_INDEXES,
  sourceOf,
  YEAR_RANGE,
  type IndexSource,
} from './sources.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * The search index on SQLite: plain tables for filtering, sorting and
 * suggestions, and an FTS5 table (unicode61 words, prefix indexes) for the
 * text, all in the same database file and kept in step with the catalog by
 * triggers, i.e. in the same transaction as the catalog write (issue #4).
 */

const TABLES = [
  `CREATE TABLE search_documents (
     doc_id INTEGER PRIMARY KEY, kind INTEGER NOT NULL, ref_id INTEGER NOT NULL, workspace_id INTEGER NOT NULL,
     folder_id INTEGER, file_type TEXT NOT NULL, orientation TEXT, visibility INTEGER NOT NULL,
     created_at INTEGER NOT NULL, modified_at INTEGER NOT NULL)`,
  // Names live apart from search_documents so that the rows every text match visits stay narrow.
  `CREATE TABLE search_names (
     doc_id INTEGER PRIMARY KEY, workspace_id INTEGER NOT NULL, name TEXT NOT NULL, name_folded TEXT NOT NULL)`,
  `CREATE TABLE search_tags (
     doc_id INTEGER NOT NULL, workspace_id INTEGER NOT NULL, tag TEXT NOT NULL, tag_folded TEXT NOT NULL,
     PRIMARY KEY (doc_id, tag)) WITHOUT ROWID`,
  // Contentless: the text is in the catalog already; only the index is kept. remove_diacritics 0
  // because PostgreSQL (no unaccent) does not remove them either. `scope` holds one token
  // (workspace and kind, dialects/scope.ts), so a large count can stay inside FTS5.
  `CREATE VIRTUAL TABLE search_fts USING fts5(name, extra, scope,
     tokenize = 'unicode61 remove_diacritics 0', prefix = '1 2 3', content = '', contentless_delete = 1)`,
];

/** Migration 0012 (issue #12): the embedded facts of assets and their keywords; see sources.ts. */
const EMBEDDED_TABLE_DDL = [
  'ALTER TABLE search_documents ADD COLUMN taken_at INTEGER',
  `CREATE TABLE search_asset_facts (
     doc_id INTEGER PRIMARY KEY, workspace_id INTEGER NOT NULL, taken_year INTEGER,
     camera_make TEXT, camera_make_folded TEXT, camera_model TEXT, camera_model_folded TEXT, creator TEXT, creator_folded TEXT,
     gps_lat REAL, gps_lon REAL)`,
  `CREATE TABLE search_keywords (
     doc_id INTEGER NOT NULL, workspace_id INTEGER NOT NULL, keyword TEXT NOT NULL, keyword_folded TEXT NOT NULL,
     PRIMARY KEY (doc_id, keyword)) WITHOUT ROWID`,
];

/** Migration 0025 (issue #27): the uploader of an asset, for the private-asset rule; null on folders and collections. */
const UPLOADER_DDL = ['ALTER TABLE search_documents ADD COLUMN uploaded_by INTEGER'];

/** The scope token (dialects/scope.ts) in SQL: U+E000 (private use: a word character that no query word contains), 'w', workspace, 'k', kind. */
const scopeSql = (kind: number): string => `char(${SCOPE_MARK.codePointAt(0)}) || 'w' || r.workspace_id || 'k${kind}'`;

const nested = (expr: string, chars: string): string =>
  [...chars].reduce((acc, c) => `replace(${acc}, '${c}', ' ')`, expr);

/** The text, then its digit runs (ASCII letters blanked) and its letter runs (digits blanked). */
function splitText(expr: string): string {
  return `${expr} || ' ' || ${nested(`lower(${expr})`, 'abcdefghijklmnopqrstuvwxyz')} || ' ' || ${nested(expr, '0123456789')}`;
}

/** A JSON-array column when it is one, else NULL (json_each of NULL has no rows; bad JSON never fails a catalog write). */
const jsonArray = (column: string) => `CASE WHEN json_valid(r.${column}) THEN CASE WHEN json_type(r.${column}) = 'array' THEN r.${column} END END`;
const tagsJson = jsonArray('tags');
/** The string members of a JSON-array column, as words separated by spaces. */
const arrayWords = (column: string) => `coalesce((SELECT group_concat(j.value, ' ') FROM json_each(${jsonArray(column)}) j WHERE j.type = 'text'), '')`;

function where(s: IndexSource, only: string | null, extra: string | null = null): string {
  const parts = [s.readyCondition, only && `r.id = ${only}.id`, extra].filter((p): p is string => Boolean(p));
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

/** INSERT ... SELECT statements that index the rows of `s` (one row when `only` names NEW), embedded facts included. */
function indexStatements(s: IndexSource, only: string | null): string[] {
  return [...textStatements(s, where(s, only)), ...(s.embedded ? embeddedStatements(s, where(s, only)) : [])];
}

/** The rows of search_documents, search_names, search_fts and search_tags of the rows of `s` that `w` selects. */
function textStatements(s: IndexSource, w: string): string[] {
  const doc = docIdSql('r', s.kind);
  const from = `FROM ${s.table} r`;
  // Nullable text (caption, creator) must not turn the whole concatenation NULL.
  const plain = s.plainColumns.map((c) => `coalesce(r.${c}, '')`);
  const extra = [...s.splitColumns.map((c) => splitText(`r.${c}`)), ...plain, arrayWords('tags'), ...(s.embedded ? [arrayWords('keywords')] : [])].join(" || ' ' || ");
  return [
    `INSERT INTO search_documents (doc_id, kind, ref_id, workspace_id, folder_id, file_type, orientation, visibility, created_at, modified_at${s.embedded ? ', taken_at' : ''}${s.uploader ? ', uploaded_by' : ''})
     SELECT ${doc}, ${s.kind}, r.id, r.workspace_id, ${s.folderColumn ? `r.${s.folderColumn}` : 'NULL'},
            ${s.fileTypeLiteral ?? 'r.file_type'}, ${s.hasOrientation ? 'r.orientation' : 'NULL'}, r.visibility, r.created_at, r.modified_at${s.embedded ? ', r.taken_at' : ''}${s.uploader ? ', r.uploaded_by' : ''}
     ${from} ${w}`,
    `INSERT INTO search_names (doc_id, workspace_id, name, name_folded) SELECT ${doc}, r.workspace_id, r.${s.name}, lower(r.${s.name}) ${from} ${w}`,
    `INSERT INTO search_fts (rowid, name, extra, scope) SELECT ${doc}, ${splitText(`r.${s.name}`)}, ${extra}, ${scopeSql(s.kind)} ${from} ${w}`,
    `INSERT OR IGNORE INTO search_tags (doc_id, workspace_id, tag, tag_folded)
     SELECT ${doc}, r.workspace_id, j.value, lower(j.value) FROM ${s.table} r, json_each(${tagsJson}) j
     ${w ? `${w} AND` : 'WHERE'} j.type = 'text'`,
  ];
}

/** The asset's row of search_asset_facts (when it has a fact) and its rows of search_keywords (sources.ts). Strings are folded by lower(), as tags. */
function embeddedStatements(s: IndexSource, w: string): string[] {
  const doc = docIdSql('r', s.kind);
  const [first, last] = YEAR_RANGE;
  const year = `CASE WHEN r.taken_at BETWEEN ${first} AND ${last} THEN CAST(strftime('%Y', r.taken_at, 'unixepoch') AS INTEGER) END`;
  return [
    `INSERT INTO search_asset_facts (doc_id, workspace_id, taken_year, camera_make, camera_make_folded, camera_model, camera_model_folded,
       creator, creator_folded, gps_lat, gps_lon)
     SELECT ${doc}, r.workspace_id, ${year}, r.camera_make, lower(r.camera_make), r.camera_model, lower(r.camera_model),
       r.creator, lower(r.creator), r.gps_lat, r.gps_lon FROM ${s.table} r ${w ? `${w} AND` : 'WHERE'} ${HAS_FACTS}`,
    `INSERT OR IGNORE INTO search_keywords (doc_id, workspace_id, keyword, keyword_folded)
     SELECT ${doc}, r.workspace_id, j.value, lower(j.value) FROM ${s.table} r, json_each(${jsonArray('keywords')}) j
     ${w ? `${w} AND` : 'WHERE'} j.type = 'text'`,
  ];
}

/** The tables a document of `s` has rows in. */
const indexTables = (s: IndexSource): string[] => ['search_documents', 'search_names', 'search_tags', ...(s.embedded ? EMBEDDED_TABLES : [])];

function unindexStatements(s: IndexSource): string[] {
  const doc = docIdSql('OLD', s.kind);
  return indexTables(s).map((t) => `DELETE FROM ${t} WHERE doc_id = ${doc}`).concat(`DELETE FROM search_fts WHERE rowid = ${doc}`);
}

function triggers(s: IndexSource): string[] {
  const body = (stmts: string[]) => `BEGIN\n${stmts.map((x) => `  ${x};`).join('\n')}\nEND`;
  return [
    `CREATE TRIGGER search_${s.table}_insert AFTER INSERT ON ${s.table} ${body(indexStatements(s, 'NEW'))}`,
    `CREATE TRIGGER search_${s.table}_update AFTER UPDATE OF ${s.watched.join(', ')} ON ${s.table} ${body([...unindexStatements(s), ...indexStatements(s, 'NEW')])}`,
    `CREATE TRIGGER search_${s.table}_delete AFTER DELETE ON ${s.table} ${body(unindexStatements(s))}`,
  ];
}

export async function createSqliteSearchSchema(db: AnyDB, sources: readonly IndexSource[] = INDEX_SOURCES): Promise<void> {
  const embedded = sources.some((s) => s.embedded);
  const statements = [
    ...TABLES,
    ...SHARED_INDEXES,
    ...(embedded ? [...EMBEDDED_TABLE_DDL, ...EMBEDDED_INDEXES] : []),
    ...(sources.some((s) => s.uploader) ? UPLOADER_DDL : []),
    // Backfill what the catalog already holds, then keep it in step.
    ...sources.flatMap((s) => indexStatements(s, null)),
    ...sources.flatMap(triggers),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/** Drops the index triggers and creates them from `sources` (a later migration that changes what is indexed). */
export async function replaceSqliteSearchTriggers(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  const drops = sources.flatMap((s) => ['insert', 'update', 'delete'].map((e) => `DROP TRIGGER IF EXISTS search_${s.table}_${e}`));
  for (const statement of [...drops, ...sources.flatMap(triggers)]) await sql.raw(statement).execute(db);
}

/**
 * Migration 0012: the embedded-metadata tables, filled for every indexed asset; the assets whose
 * caption, creator or keywords hold text get their text rows anew (the others' are unchanged); then
 * the asset triggers of `sources`.
 */
export async function addSqliteEmbeddedIndex(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  const assets = sourceOf(sources, 'assets');
  const withText = `${assets.table} r ${where(assets, null, HAS_EMBEDDED_TEXT)}`;
  const doc = docIdSql('r', assets.kind);
  const statements = [
    ...EMBEDDED_TABLE_DDL,
    ...EMBEDDED_INDEXES,
    ...embeddedStatements(assets, where(assets, null)),
    ...['search_documents', 'search_names', 'search_tags'].map((t) => `DELETE FROM ${t} WHERE doc_id IN (SELECT ${doc} FROM ${withText})`),
    `DELETE FROM search_fts WHERE rowid IN (SELECT ${doc} FROM ${withText})`,
    ...textStatements(assets, where(assets, null, HAS_EMBEDDED_TEXT)),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
  await replaceSqliteSearchTriggers(db, [assets]);
}

/**
 * Migration 0025: search_documents.uploaded_by, and the asset triggers of `sources`, which write it. No row is
 * rewritten: the assets' uploaded_by is new as well, null on every row, and so is the new index column.
 */
export async function addSqliteUploaderIndex(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  for (const statement of UPLOADER_DDL) await sql.raw(statement).execute(db);
  await replaceSqliteSearchTriggers(db, [sourceOf(sources, 'assets')]);
}
