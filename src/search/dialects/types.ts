import type { RawBuilder, SqlBool } from 'kysely';
import type { RequiredWords } from '../filter/pushdown.js';
import type { Term } from '../typos/candidates.js';

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
   * description or tags, 3 found only through a typo candidate (issue #27).
   * Ties are broken newest first by the caller.
   */
  readonly relevance: RawBuilder<number>;
}

/** Per query word, the dictionary words that may stand for it (search/typos/); empty: the word as typed only. */
export type Alternatives = readonly (readonly string[])[];

/** A query widened by typo candidates (issue #27). */
export interface TypoMatch {
  readonly alternatives: Alternatives;
  /**
   * Whether some document of the scope matches the words as typed. When none does (the usual reason to widen),
   * every match is a typo match, tier 3, and the tiers need no lookups.
   */
  readonly typedFound: boolean;
}

export interface TextSearchDialect {
  /**
   * `required`: words the filter implies (filter/pushdown.ts); a dialect may use them to narrow the match early.
   * `typos`: a document matches a word as typed or any of its alternatives (whole words, not prefixes).
   */
  textMatch(words: readonly string[], required: RequiredWords, typos?: TypoMatch): TextMatch;
  /**
   * Words of the term dictionary of these workspaces that may lie within `typos` edits of `word` (lower case), with
   * their document counts: a bounded superset that search/typos/candidates.ts narrows to the real distance.
   */
  nearTerms(workspaceIds: readonly number[], word: string, typos: number): RawBuilder<Term>;
}
