import { sql, type Kysely } from 'kysely';
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
 * The search index on PostgreSQL: the same plain tables as on SQLite, with
 * the words of each document in a tsvector (GIN) instead of an FTS5 table,
 * maintained by plpgsql triggers in the catalog write's transaction.
 *
 * Words are cut by the same rule as SQLite's unicode61 tokenizer (runs of
 * letters and digits, lower-cased) and stored verbatim with array_to_tsvector,
 * so PostgreSQL's own parser (which keeps `img_2041.jpg` as one "file" token)
 * never decides what a word is. Sorted text columns use COLLATE "C" so
 * suggestions order like SQLite's BINARY collation.
 */

const ASCII_FOLD = "translate($1, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')";

const FUNCTIONS = [
  // SQLite's lower() folds ASCII only; names and tags are folded the same way here for equal suggestions and tag filters.
  `CREATE FUNCTION search_fold(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT ${ASCII_FOLD} $$`,
  `CREATE FUNCTION search_split_text(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
     SELECT $1 || ' ' || regexp_replace(lower($1), '[a-z]', ' ', 'g') || ' ' || regexp_replace($1, '[0-9]', ' ', 'g') $$`,
  // tsvector lexemes are limited to 2046 bytes; longer "words" are not indexed.
  `CREATE FUNCTION search_words(text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
     SELECT coalesce(array_agg(w ORDER BY n), '{}')
     FROM unnest(regexp_split_to_array(lower($1), '[^[:alnum:]]+')) WITH ORDINALITY AS u(w, n)
     WHERE w <> '' AND octet_length(w) < 2047 $$`,
  // The string members of a JSON array; anything else (bad JSON included) is no tags, never a failed catalog write.
  `CREATE FUNCTION search_tag_list(text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
   DECLARE j jsonb;
   BEGIN
     j := $1::jsonb;
     IF jsonb_typeof(j) <> 'array' THEN RETURN '{}'; END IF;
     RETURN coalesce((SELECT array_agg(e #>> '{}' ORDER BY n) FROM jsonb_array_elements(j) WITH ORDINALITY AS x(e, n)
                      WHERE jsonb_typeof(e) = 'string'), '{}');
   EXCEPTION WHEN others THEN RETURN '{}';
   END $$`,
];

const TABLES = [
  `CREATE TABLE search_documents (
     doc_id bigint PRIMARY KEY, kind smallint NOT NULL, ref_id integer NOT NULL, workspace_id integer NOT NULL,
     folder_id integer, file_type text COLLATE "C" NOT NULL, orientation text COLLATE "C", visibility integer NOT NULL,
     created_at bigint NOT NULL, modified_at bigint NOT NULL,
     -- ' word word ... ': the name's words, for the relevance tiers (SQLite asks its FTS5 name column instead).
     name_norm text NOT NULL,
     search_vector tsvector NOT NULL)`,
  `CREATE TABLE search_names (
     doc_id bigint PRIMARY KEY, workspace_id integer NOT NULL, name text COLLATE "C" NOT NULL, name_folded text COLLATE "C" NOT NULL)`,
  `CREATE TABLE search_tags (
     doc_id bigint NOT NULL, workspace_id integer NOT NULL, tag text COLLATE "C" NOT NULL, tag_folded text COLLATE "C" NOT NULL,
     PRIMARY KEY (doc_id, tag))`,
  'CREATE INDEX search_documents_words ON search_documents USING gin (search_vector)',
];

/** Migration 0012 (issue #12): the embedded facts of assets and their keywords; see sources.ts. */
const EMBEDDED_TABLE_DDL = [
  'ALTER TABLE search_documents ADD COLUMN taken_at bigint',
  `CREATE TABLE search_asset_facts (
     doc_id bigint PRIMARY KEY, workspace_id integer NOT NULL, taken_year integer,
     camera_make text COLLATE "C", camera_make_folded text COLLATE "C", camera_model text COLLATE "C", camera_model_folded text COLLATE "C",
     creator text COLLATE "C", creator_folded text COLLATE "C", gps_lat double precision, gps_lon double precision)`,
  `CREATE TABLE search_keywords (
     doc_id bigint NOT NULL, workspace_id integer NOT NULL, keyword text COLLATE "C" NOT NULL, keyword_folded text COLLATE "C" NOT NULL,
     PRIMARY KEY (doc_id, keyword))`,
];

/**
 * PostgreSQL also covers taken_at in its date index, so that a library page by date with a date-taken
 * range (the web client's filter) is read from the index alone, as a modified_at range is: at 100,000
 * assets 20 ms with a heap fetch per skipped row, 0.6 ms covered. (SQLite plans that page from
 * search_documents_taken and sorts the range; rebuilding its date index would change its plans
 * without statistics, see sources.ts.)
 */
const EMBEDDED_POSTGRES_INDEXES = [
  'DROP INDEX search_documents_modified',
  `CREATE INDEX search_documents_modified ON search_documents
     (kind, workspace_id, modified_at, doc_id, visibility, created_at, file_type, orientation, folder_id, taken_at)`,
];

/** Migration 0025 (issue #27): the uploader of an asset, for the private-asset rule; null on folders and collections. */
const UPLOADER_DDL = ['ALTER TABLE search_documents ADD COLUMN uploaded_by integer'];

function where(s: IndexSource, only: boolean, extra: string | null = null): string {
  const parts = [s.readyCondition, only && 'r.id = NEW.id', extra].filter((p): p is string => Boolean(p));
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

/**
 * INSERT ... SELECT statements that index the rows of `s` (the row NEW when `only`), embedded facts included, and
 * (the row NEW only: a backfill counts them at once, TERM_BACKFILL) its words in the term dictionary.
 */
function indexStatements(s: IndexSource, only: boolean): string[] {
  const terms = only && s.terms ? [addTerms(docIdSql('NEW', s.kind, '::bigint'))] : [];
  return [...textStatements(s, where(s, only)), ...(s.embedded ? embeddedStatements(s, where(s, only)) : []), ...terms];
}

/**
 * The term dictionary (migration 0027, issue #27): one row per (workspace, word) with the number of documents that
 * hold it, for typo candidates (search/typos/), read by trigram distance (pg_trgm's GiST index). A document's words
 * are the lexemes of its search_vector, so the dictionary holds exactly the index's words.
 *
 * The row triggers only append +1 / -1 per word to search_term_deltas; a statement trigger sums them and updates
 * each word once per statement. Updating a common word's row once per document instead left one row version per
 * update for the rest of the transaction, and each upsert walked them all: 10,000 assets inserted or re-tagged in
 * one statement took minutes instead of seconds (MVCC; SQLite updates in place and counts per row).
 */
const TERM_DDL = [
  `CREATE TABLE search_terms (
     workspace_id integer NOT NULL, term text COLLATE "C" NOT NULL, len integer NOT NULL, docs integer NOT NULL,
     PRIMARY KEY (workspace_id, term))`,
  'CREATE INDEX search_terms_trgm ON search_terms USING gist (term public.gist_trgm_ops)',
  // Words no document holds any more, found without a scan of the dictionary.
  'CREATE INDEX search_terms_unused ON search_terms (workspace_id) WHERE docs <= 0',
  // Empty at every statement's end (search_flush_terms).
  'CREATE TABLE search_term_deltas (workspace_id integer NOT NULL, term text COLLATE "C" NOT NULL, delta integer NOT NULL)',
  // In word order, so that concurrent writers lock shared words in the same order.
  `CREATE OR REPLACE FUNCTION search_flush_terms() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     WITH d AS (DELETE FROM search_term_deltas RETURNING workspace_id, term, delta),
     s AS (SELECT workspace_id, term, sum(delta)::integer AS delta FROM d GROUP BY workspace_id, term HAVING sum(delta) <> 0)
     INSERT INTO search_terms (workspace_id, term, len, docs) SELECT workspace_id, term, char_length(term), delta FROM s ORDER BY workspace_id, term
     ON CONFLICT (workspace_id, term) DO UPDATE SET docs = search_terms.docs + EXCLUDED.docs;
     DELETE FROM search_terms WHERE docs <= 0;
     RETURN NULL;
   END $$`,
];
const TERM_WORD = `char_length(t.term) BETWEEN ${TERM_RULE.minLength} AND ${TERM_RULE.maxLength} AND t.term !~ '[0-9]'`;
/** +1 or -1 for each dictionary word of the indexed document `doc`. */
const termDeltas = (doc: string, delta: 1 | -1) =>
  `INSERT INTO search_term_deltas (workspace_id, term, delta) SELECT d.workspace_id, t.term, ${delta}
   FROM search_documents d, unnest(tsvector_to_array(d.search_vector)) AS t(term) WHERE d.doc_id = ${doc} AND ${TERM_WORD}`;
const addTerms = (doc: string) => termDeltas(doc, 1);
const removeTerms = (doc: string) => [`${termDeltas(doc, -1)};`];
const TERM_BACKFILL = `INSERT INTO search_terms (workspace_id, term, len, docs)
  SELECT d.workspace_id, t.term, char_length(t.term), count(*) FROM search_documents d, unnest(tsvector_to_array(d.search_vector)) AS t(term)
  WHERE ${TERM_WORD} GROUP BY d.workspace_id, t.term`;

/** The rows of search_documents (with the words), search_names and search_tags of the rows of `s` that `w` selects. */
function textStatements(s: IndexSource, w: string): string[] {
  const doc = docIdSql('r', s.kind, '::bigint');
  const from = `FROM ${s.table} r`;
  const text = [
    `search_split_text(r.${s.name})`,
    ...s.splitColumns.map((c) => `search_split_text(r.${c})`),
    // Nullable text (caption, creator) must not turn the whole concatenation NULL.
    ...s.plainColumns.map((c) => `coalesce(r.${c}, '')`),
    "array_to_string(search_tag_list(r.tags), ' ')",
    ...(s.embedded ? ["array_to_string(search_tag_list(r.keywords), ' ')"] : []),
  ].join(" || ' ' || ");
  return [
    `INSERT INTO search_documents (doc_id, kind, ref_id, workspace_id, folder_id, file_type, orientation, visibility, created_at, modified_at,
       ${s.embedded ? 'taken_at, ' : ''}${s.uploader ? 'uploaded_by, ' : ''}name_norm, search_vector)
     SELECT ${doc}, ${s.kind}, r.id, r.workspace_id, ${s.folderColumn ? `r.${s.folderColumn}` : 'NULL'},
            ${s.fileTypeLiteral ?? 'r.file_type'}, ${s.hasOrientation ? 'r.orientation' : 'NULL'}, r.visibility, r.created_at, r.modified_at,
            ${s.embedded ? 'r.taken_at, ' : ''}${s.uploader ? 'r.uploaded_by, ' : ''}
            ' ' || array_to_string(search_words(search_split_text(r.${s.name})), ' ') || ' ',
            array_to_tsvector(search_words(${text}))
     ${from} ${w}`,
    `INSERT INTO search_names (doc_id, workspace_id, name, name_folded) SELECT ${doc}, r.workspace_id, r.${s.name}, search_fold(r.${s.name}) ${from} ${w}`,
    `INSERT INTO search_tags (doc_id, workspace_id, tag, tag_folded)
     SELECT DISTINCT ${doc}, r.workspace_id, t.tag, search_fold(t.tag) FROM ${s.table} r, unnest(search_tag_list(r.tags)) AS t(tag) ${w}
     ON CONFLICT DO NOTHING`,
  ];
}

/** The asset's row of search_asset_facts (when it has a fact) and its rows of search_keywords (sources.ts). Strings are folded by search_fold(), as tags. */
function embeddedStatements(s: IndexSource, w: string): string[] {
  const doc = docIdSql('r', s.kind, '::bigint');
  const [first, last] = YEAR_RANGE;
  const year = `CASE WHEN r.taken_at BETWEEN ${first} AND ${last} THEN extract(year FROM to_timestamp(r.taken_at) AT TIME ZONE 'UTC')::integer END`;
  return [
    `INSERT INTO search_asset_facts (doc_id, workspace_id, taken_year, camera_make, camera_make_folded, camera_model, camera_model_folded,
       creator, creator_folded, gps_lat, gps_lon)
     SELECT ${doc}, r.workspace_id, ${year}, r.camera_make, search_fold(r.camera_make), r.camera_model, search_fold(r.camera_model),
       r.creator, search_fold(r.creator), r.gps_lat, r.gps_lon FROM ${s.table} r ${w ? `${w} AND` : 'WHERE'} ${HAS_FACTS}`,
    `INSERT INTO search_keywords (doc_id, workspace_id, keyword, keyword_folded)
     SELECT DISTINCT ${doc}, r.workspace_id, k.keyword, search_fold(k.keyword) FROM ${s.table} r, unnest(search_tag_list(r.keywords)) AS k(keyword) ${w}
     ON CONFLICT DO NOTHING`,
  ];
}

function trigger(s: IndexSource): string[] {
  const fn = `search_index_${s.table}`;
  const doc = docIdSql('OLD', s.kind, '::bigint');
  const tables = ['search_documents', 'search_names', 'search_tags', ...(s.embedded ? EMBEDDED_TABLES : [])];
  // The words are uncounted while the document's search_vector is still there.
  const unindex = [...(s.terms ? removeTerms(doc) : []), ...tables.map((t) => `DELETE FROM ${t} WHERE doc_id = ${doc};`)];
  return [
    `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF TG_OP <> 'INSERT' THEN ${unindex.join(' ')} END IF;
       IF TG_OP <> 'DELETE' THEN ${indexStatements(s, true).join('; ')}; END IF;
       RETURN NULL;
     END $$`,
    `CREATE TRIGGER ${fn} AFTER INSERT OR DELETE OR UPDATE OF ${s.watched.join(', ')} ON ${s.table} FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    ...(s.terms
      ? [
          `CREATE OR REPLACE TRIGGER search_terms_${s.table} AFTER INSERT OR DELETE OR UPDATE OF ${s.watched.join(', ')} ON ${s.table}
           FOR EACH STATEMENT EXECUTE FUNCTION search_flush_terms()`,
        ]
      : []),
  ];
}

/**
 * pg_trgm (in schema public, so every schema sees it) lets `tags:<text>` (contains) use an index.
 * Creating it needs a superuser or, since PostgreSQL 13 (pg_trgm is a trusted extension),
 * the CREATE privilege on the database. Without it the index is skipped and contains-filters scan.
 */
async function tryTrigramIndex(db: AnyDB): Promise<void> {
  await sql`SAVEPOINT search_trgm`.execute(db);
  try {
    // Serialises concurrent migrations (parallel test schemas) on the one database-wide extension.
    await sql`SELECT pg_advisory_xact_lock(hashtext('dam_search_pg_trgm'))`.execute(db);
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`.execute(db);
    await sql`CREATE INDEX search_tags_trgm ON search_tags USING gin (tag_folded public.gin_trgm_ops)`.execute(db);
    await sql`RELEASE SAVEPOINT search_trgm`.execute(db);
  } catch {
    await sql`ROLLBACK TO SAVEPOINT search_trgm`.execute(db);
  }
}

export async function createPostgresSearchSchema(db: AnyDB, sources: readonly IndexSource[] = INDEX_SOURCES): Promise<void> {
  // The migrator runs inside a transaction; a direct call (tests) gets its own, for the savepoint.
  if (!db.isTransaction) return db.transaction().execute((trx) => createPostgresSearchSchema(trx, sources));
  const embedded = sources.some((s) => s.embedded) ? [...EMBEDDED_TABLE_DDL, ...EMBEDDED_INDEXES, ...EMBEDDED_POSTGRES_INDEXES] : [];
  const uploader = sources.some((s) => s.uploader) ? UPLOADER_DDL : [];
  const terms = sources.some((s) => s.terms);
  if (terms) await requireTrigram(db);
  const statements = [
    ...FUNCTIONS,
    ...TABLES,
    ...SHARED_INDEXES,
    ...embedded,
    ...uploader,
    ...(terms ? TERM_DDL : []),
    ...sources.flatMap((s) => indexStatements(s, false)),
    ...(terms ? [TERM_BACKFILL] : []),
    ...sources.flatMap(trigger),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
  await tryTrigramIndex(db);
}

/**
 * pg_trgm is required from migration 0027 on (the term dictionary's index). Creating it needs a superuser or, since
 * PostgreSQL 13 (a trusted extension), CREATE on the database; without either the migration stops with this error.
 */
async function requireTrigram(db: AnyDB): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('dam_search_pg_trgm'))`.execute(db);
  await sql`SAVEPOINT search_require_trgm`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`.execute(db);
    await sql`RELEASE SAVEPOINT search_require_trgm`.execute(db);
  } catch (err) {
    await sql`ROLLBACK TO SAVEPOINT search_require_trgm`.execute(db);
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(
      `Migration 0027_search_terms needs the PostgreSQL extension pg_trgm (typo-tolerant search) and could not create it: ${reason}. ` +
        'Install the contrib package (postgresql-contrib) and run `CREATE EXTENSION pg_trgm WITH SCHEMA public` as a superuser, ' +
        "or give the application's role CREATE on the database (pg_trgm is a trusted extension since PostgreSQL 13).",
    );
  }
}

/** Replaces the index functions and triggers with those of `sources` (a later migration that changes what is indexed). */
export async function replacePostgresSearchTriggers(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  // The trigger goes too: its UPDATE OF column list may change.
  const drops = sources.flatMap((s) => [`DROP TRIGGER IF EXISTS search_index_${s.table} ON ${s.table}`, `DROP TRIGGER IF EXISTS search_terms_${s.table} ON ${s.table}`]);
  for (const statement of [...drops, ...sources.flatMap(trigger)]) await sql.raw(statement).execute(db);
}

/**
 * Migration 0012: the embedded-metadata tables, filled for every indexed asset; the assets whose
 * caption, creator or keywords hold text get their search_documents row (the words) anew; then the
 * asset trigger of `sources`.
 */
export async function addPostgresEmbeddedIndex(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  const assets = sourceOf(sources, 'assets');
  const withText = where(assets, false, HAS_EMBEDDED_TEXT);
  const doc = docIdSql('r', assets.kind, '::bigint');
  const statements = [
    ...EMBEDDED_TABLE_DDL,
    ...EMBEDDED_INDEXES,
    ...EMBEDDED_POSTGRES_INDEXES,
    ...embeddedStatements(assets, where(assets, false)),
    ...['search_documents', 'search_names', 'search_tags'].map((t) => `DELETE FROM ${t} WHERE doc_id IN (SELECT ${doc} FROM ${assets.table} r ${withText})`),
    ...textStatements(assets, withText),
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
  await replacePostgresSearchTriggers(db, [assets]);
}

/**
 * Migration 0025: search_documents.uploaded_by, and the asset trigger of `sources`, which writes it. No row is
 * rewritten: the assets' uploaded_by is new as well, null on every row, and so is the new index column.
 */
export async function addPostgresUploaderIndex(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  for (const statement of UPLOADER_DDL) await sql.raw(statement).execute(db);
  await replacePostgresSearchTriggers(db, [sourceOf(sources, 'assets')]);
}

/**
 * Migration 0027 (issue #27): pg_trgm (required), the term dictionary; the assets with a camera make, model or lens get
 * their search_documents row (the words) anew; the triggers of `sources` (every table: each counts its words); then
 * the dictionary is filled from the index.
 */
export async function addPostgresTermIndex(db: AnyDB, sources: readonly IndexSource[]): Promise<void> {
  await requireTrigram(db);
  const assets = sourceOf(sources, 'assets');
  const withCamera = where(assets, false, HAS_CAMERA_TEXT);
  const doc = docIdSql('r', assets.kind, '::bigint');
  const statements = [
    ...TERM_DDL,
    ...['search_documents', 'search_names', 'search_tags'].map((t) => `DELETE FROM ${t} WHERE doc_id IN (SELECT ${doc} FROM ${assets.table} r ${withCamera})`),
    ...textStatements(assets, withCamera),
    TERM_BACKFILL,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
  await replacePostgresSearchTriggers(db, sources);
}
