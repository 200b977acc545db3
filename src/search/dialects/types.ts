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
}

export interface TextSearchDialect {
  /** `required`: words the filter implies (filter/pushdown.ts); a dialect may use them to narrow the match early. */
  textMatch(words: readonly string[], required: RequiredWords): TextMatch;
}
