import type { Kysely } from 'kysely';
import type { DialectName } from '../../db/dialects/types.js';
import { addPostgresEmbeddedIndex, addPostgresTermIndex, addPostgresUploaderIndex, createPostgresSearchSchema, replacePostgresSearchTriggers } from './postgres.js';
import type { IndexSource } from './sources.js';
import { addSqliteEmbeddedIndex, addSqliteTermIndex, addSqliteUploaderIndex, createSqliteSearchSchema, replaceSqliteSearchTriggers } from './sqlite.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDB = Kysely<any>;

/**
 * Creates the search index tables, backfills them from the catalog and installs the triggers that keep them in step.
 * `sources` defaults to today's INDEX_SOURCES; migration 0003 passes the sources of its time.
 */
export const createSearchSchema: Readonly<Record<DialectName, (db: AnyDB, sources?: readonly IndexSource[]) => Promise<void>>> = {
  sqlite: createSqliteSearchSchema,
  postgres: createPostgresSearchSchema,
};

/** Replaces the triggers with those rendered from `sources`; the index tables and their rows stay. */
export const replaceSearchTriggers: Readonly<Record<DialectName, (db: AnyDB, sources: readonly IndexSource[]) => Promise<void>>> = {
  sqlite: replaceSqliteSearchTriggers,
  postgres: replacePostgresSearchTriggers,
};

/**
 * Migration 0012 (issue #12): adds search_asset_facts and search_keywords, fills them (and the text of assets
 * that already have a caption, creator or keywords) from the catalog, and installs the asset triggers of `sources`.
 */
export const addEmbeddedIndex: Readonly<Record<DialectName, (db: AnyDB, sources: readonly IndexSource[]) => Promise<void>>> = {
  sqlite: addSqliteEmbeddedIndex,
  postgres: addPostgresEmbeddedIndex,
};

/**
 * Migration 0025 (issue #27): adds search_documents.uploaded_by and installs the asset triggers of `sources`,
 * which copy an asset's uploader there (the private-asset rule, src/domain/asset-visibility.ts).
 */
export const addUploaderIndex: Readonly<Record<DialectName, (db: AnyDB, sources: readonly IndexSource[]) => Promise<void>>> = {
  sqlite: addSqliteUploaderIndex,
  postgres: addPostgresUploaderIndex,
};

/**
 * Migration 0027 (issue #27): the term dictionary `search_terms` (typo candidates; PostgreSQL requires pg_trgm), an
 * asset's camera make, model and lens as searchable text, and the triggers of `sources`, which keep both in step.
 */
export const addTermIndex: Readonly<Record<DialectName, (db: AnyDB, sources: readonly IndexSource[]) => Promise<void>>> = {
  sqlite: addSqliteTermIndex,
  postgres: addPostgresTermIndex,
};
