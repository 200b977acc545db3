import { sql, type Kysely } from 'kysely';
import { SCOPE_MARK } from '../dialects/scope.js';
import {
  docIdSql,
  EMBEDDED_INDEXES,
  EMBEDDED_TABLES,
  HAS_CAMERA_TEXT,
  HAS_EMBEDDED_TEXT,
  HAS_FACTS,
  INDEX_SOURCES,
  SHARED_INDEXES,
  sourceOf,
  TERM_RULE,
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

/** A JSON-array column of row `a` when it is one, else NULL (json_each of NULL has no rows; bad JSON never fails a catalog write). */
const jsonArray = (column: string, a = 'r') => `CASE WHEN json_valid(${a}.${column}) THEN CASE WHEN json_type(${a}.${column}) = 'array' THEN ${a}.${column} END END`;
const tagsJson = jsonArray('tags');
/** The string members of a JSON-array column, as words separated by spaces. */
const arrayWords = (column: string, a: string) => `coalesce((SELECT group_concat(j.value, ' ') FROM json_each(${jsonArray(column, a)}) j WHERE j.type = 'text'), '')`;

/** The searchable text of the row `a` (a table alias, or OLD in a trigger): FTS5's columns name and extra. */
function searchText(s: IndexSource, a: string): { name: string; extra: string } {
  // Nullable text (caption, creator, camera) must not turn the whole concatenation NULL.
  const plain = s.plainColumns.map((c) => `coalesce(${a}.${c}, '')`);
  const arrays = [arrayWords('tags', a), ...(s.embedded ? [arrayWords('keywords', a)] : [])];
  return { name: splitText(`${a}.${s.name}`), extra: [...s.splitColumns.map((c) => splitText(`${a}.${c}`)), ...plain, ...arrays].join(" || ' ' || ") };
}

function where(s: IndexSource, only: string | null, extra: string | null = null): string {
  const parts = [s.readyCondition, only && `r.id = ${only}.id`, extra].filter((p): p is string => Boolean(p));
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

/**
 * INSERT ... SELECT statements that index the rows of `s` (one row when `only` names NEW), embedded facts included,
 * and (one row only: a backfill counts the words per workspace, backfillTerms) its words in the term dictionary.
 */
function indexStatements(s: IndexSource, only: string | null): string[] {
  const terms = only && s.terms ? addTermStatements(s, only) : [];
  return [...textStatements(s, where(s, only)), ...(s.embedded ? embeddedStatements(s, where(s, only)) : []), ...terms];
}

/** The rows of search_documents, search_names, search_fts and search_tags of the rows of `s` that `w` selects. */
function textStatements(s: IndexSource, w: string): string[] {
  const doc = docIdSql('r', s.kind);
  const from = `FROM ${s.table} r`;
  const { name, extra } = searchText(s, 'r');
  return [
    `INSERT INTO search_documents (doc_id, kind, ref_id, workspace_id, folder_id, file_type, orientation, visibility, created_at, modified_at${s.embedded ? ', taken_at' : ''}${s.uploader ? ', uploaded_by' : ''})
     SELECT ${doc}, ${s.kind}, r.id, r.workspace_id, ${s.folderColumn ? `r.${s.folderColumn}` : 'NULL'},
            ${s.fileTypeLiteral ?? 'r.file_type'}, ${s.hasOrientation ? 'r.orientation' : 'NULL'}, r.visibility, r.created_at, r.modified_at${s.embedded ? ', r.taken_at' : ''}${s.uploader ? ', r.uploaded_by' : ''}
     ${from} ${w}`,
    `INSERT INTO search_names (doc_id, workspace_id, name, name_folded) SELECT ${doc}, r.workspace_id, r.${s.name}, lower(r.${s.name}) ${from} ${w}`,
    `INSERT INTO search_fts (rowid, name, extra, scope) SELECT ${doc}, ${name}, ${extra}, ${scopeSql(s.kind)} ${from} ${w}`,
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
  const terms = s.terms ? removeTermStatements(s) : [];
  return [...terms, ...indexTables(s).map((t) => `DELETE FROM ${t} WHERE doc_id = ${doc}`), `DELETE FROM search_fts WHERE rowid = ${doc}`];
}

/**
 * The term dictionary (migration 0027, issue #27): one row per (workspace, word) with the number of documents that
 * hold it, for typo candidates (search/typos/). Words are cut by FTS5 itself: a document's text goes through
 * `search_term_stage` (contentless FTS5, the index's tokenizer, one document at a time) and its fts5vocab
 * `search_term_vocab` lists the distinct words, so the dictionary holds exactly the index's words.
 */
const TERM_DDL = [
  `CREATE VIRTUAL TABLE search_term_stage USING fts5(words, tokenize = 'unicode61 remove_diacritics 0', content = '')`,
  `CREATE VIRTUAL TABLE search_term_vocab USING fts5vocab(search_term_stage, 'row')`,
  `CREATE TABLE search_terms (
     workspace_id INTEGER NOT NULL, term TEXT NOT NULL, len INTEGER NOT NULL, docs INTEGER NOT NULL,
     PRIMARY KEY (workspace_id, term)) WITHOUT ROWID`,
  // Candidates are read by length (a word with k typos is k characters longer or shorter at most).
  'CREATE INDEX search_terms_length ON search_terms (workspace_id, len, term, docs)',
  // Words no document holds any more, found without a scan of the workspace's dictionary.
  'CREATE INDEX search_terms_unused ON search_terms (workspace_id) WHERE docs = 0',
];
const TERM_WORD = `length(v.term) BETWEEN ${TERM_RULE.minLength} AND ${TERM_RULE.maxLength} AND v.term NOT GLOB '*[0-9]*'`;
const CLEAR_STAGE = "INSERT INTO search_term_stage (search_term_stage) VALUES ('delete-all')";
const stageText = (s: IndexSource, a: string) => {
  const { name, extra } = searchText(s, a);
  return `${name} || ' ' || ${extra}`;
};

/** Counts the words of the row NEW (when it is indexed) in its workspace. */
function addTermStatements(s: IndexSource, only: string): string[] {
  return [
    `INSERT INTO search_term_stage (rowid, words) SELECT 1, ${stageText(s, 'r')} FROM ${s.table} r ${where(s, only)}`,
    `INSERT INTO search_terms (workspace_id, term, len, docs) SELECT ${only}.workspace_id, v.term, length(v.term), 1 FROM search_term_vocab v
     WHERE ${TERM_WORD} ON CONFLICT (workspace_id, term) DO UPDATE SET docs = docs + 1`,
    CLEAR_STAGE,
  ];
}

/** Uncounts the words of the row OLD when it was indexed (it has a search_documents row), before its rows go; drops words left unused. */
function removeTermStatements(s: IndexSource): string[] {
  return [
    `INSERT INTO search_term_stage (rowid, words) SELECT 1, ${stageText(s, 'OLD')}
     WHERE EXISTS (SELECT 1 FROM search_documents WHERE doc_id = ${docIdSql('OLD', s.kind)})`,
    'UPDATE search_terms SET docs = docs - 1 WHERE workspace_id = OLD.workspace_id AND term IN (SELECT term FROM search_term_vocab)',
    'DELETE FROM search_terms WHERE workspace_id = OLD.workspace_id AND docs = 0',
    CLEAR_STAGE,
  ];
}

/** Fills the term dictionary from the catalog, one workspace at a time (the stage counts each word's documents). */
async function backfillTerms(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  const { rows } = await sql<{ workspace_id: number }>`SELECT DISTINCT workspace_id FROM search_documents`.execute(db);
  for (const { workspace_id: ws } of rows) {
    for (const s of sources.filter((x) => x.terms)) {
      const rowsOf = `FROM ${s.table} r ${where(s, null, 'r.workspace_id = ')}`;
      await sql`${sql.raw(`INSERT INTO search_term_stage (rowid, words) SELECT ${docIdSql('r', s.kind)}, ${stageText(s, 'r')} ${rowsOf}`)}${ws}`.execute(db);
    }
    await sql`INSERT INTO search_terms (workspace_id, term, len, docs) SELECT ${ws}, v.term, length(v.term), v.doc FROM search_term_vocab v WHERE ${sql.raw(TERM_WORD)}`.execute(db);
    await sql.raw(CLEAR_STAGE).execute(db);
  }
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
    ...(sources.some((s) => s.terms) ? TERM_DDL : []),
    // Backfill what the catalog already holds, then keep it in step.
    ...sources.flatMap((s) => indexStatements(s, null)),
    ...sources.flatMap(triggers),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
  if (sources.some((s) => s.terms)) await backfillTerms(db, sources);
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

/**
 * Migration 0027 (issue #27): the term dictionary; the assets with a camera make, model or lens get their text rows
 * anew (those words are searchable now); the triggers of `sources` (every table: each counts its words); then the
 * dictionary is filled from the catalog.
 */
export async function addSqliteTermIndex(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  const assets = sourceOf(sources, 'assets');
  const withCamera = `${assets.table} r ${where(assets, null, HAS_CAMERA_TEXT)}`;
  const doc = docIdSql('r', assets.kind);
  const statements = [
    ...TERM_DDL,
    ...['search_documents', 'search_names', 'search_tags'].map((t) => `DELETE FROM ${t} WHERE doc_id IN (SELECT ${doc} FROM ${withCamera})`),
    `DELETE FROM search_fts WHERE rowid IN (SELECT ${doc} FROM ${withCamera})`,
    ...textStatements(assets, where(assets, null, HAS_CAMERA_TEXT)),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
  await replaceSqliteSearchTriggers(db, sources);
  await backfillTerms(db, sources);
}
