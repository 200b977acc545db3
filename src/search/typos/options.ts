/**
 * Typo tolerance (issue #27, section 3), with Typesense's parameters and defaults: a query word of at least
 * `minLen1Typo` characters may differ from a document's word by one edit, of at least `minLen2Typo` by two, never
 * more than `numTypos`; words are corrected only when the exact query finds fewer than `tokensThreshold` documents
 * (Typesense's typo_tokens_threshold, default 1: only when nothing matches as typed).
 */
export interface TypoOptions {
  readonly numTypos: number;
  readonly minLen1Typo: number;
  readonly minLen2Typo: number;
  readonly tokensThreshold: number;
}

export const DEFAULT_TYPOS: TypoOptions = { numTypos: 2, minLen1Typo: 4, minLen2Typo: 7, tokensThreshold: 1 };

/** The candidates kept per query word (Typesense's max_candidates is 4 for prefixes; whole words here). */
export const MAX_CANDIDATES = 8;

/** A word with a digit is matched exactly (the term dictionary holds no such word, index-schema/sources.ts TERM_RULE). */
const DIGIT = /\p{N}/u;

/** The edits a query word of this spelling may have. Length in code points, as the dictionary counts it. */
export function allowedTypos(word: string, options: TypoOptions): number {
  if (DIGIT.test(word)) return 0;
  const length = [...word].length;
  const budget = length >= options.minLen2Typo ? 2 : length >= options.minLen1Typo ? 1 : 0;
  return Math.min(budget, options.numTypos);
}
