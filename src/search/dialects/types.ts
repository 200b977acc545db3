import type { RawBuilder, SqlBool } from 'kysely';
import type { RequiredWords } from '../filter/pushdown.js';

/**
 * The SQL of a text query over the index, which is where SQLite (FTS5) and
 * PostgreSQL (tsvector) differ; everything else in src/search is shared SQL.
 * The semantics are the same on both (issue #4): every word must be a word
 * of the document's searchable text, the last one as a prefix.
 */
export interface TextMatch {
  /** FROM clause that exposes `search_documents` as `d`. */
  readonly from: RawBuilder<unknown>;
  /** The documents whose words match. */
  readonly where: RawBuilder<SqlBool>;
  /**
   * Relevance tier, smaller is better: 0 the name starts with the query's
   * words, 1 every word is in the name, 2 some word only in the file name,
   * description or tags. Ties are broken newest first by the caller.
   */
  readonly relevance: RawBuilder<number>;
  /**
   * `SELECT count(*) AS n` of the matches straight from the text index, when the
   * dialect can confine it to the scope there; valid only when no filter applies.
   */
  readonly count: RawBuilder<{ n: number | string }> | null;
}

/** The kind and workspaces a query is confined to (the caller's, seed 5). */
export interface TextScope {
  readonly kind: number;
  readonly workspaceIds: readonly number[];
  /** Words the filter implies (filter/pushdown.ts); a dialect may use them to narrow the match early. */
  readonly required: RequiredWords;
}

export interface TextSearchDialect {
  textMatch(words: readonly string[], scope: TextScope): TextMatch;
}
