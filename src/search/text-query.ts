import { appError } from '../errors.js';
import { SCOPE_MARK } from './dialects/scope.js';

/** More words than this in q is a 400 (each word is one index lookup). */
export const MAX_QUERY_WORDS = 32;

/**
 * Words of a query: runs of letters, digits and private-use characters, the
 * same rule as SQLite's unicode61 tokenizer (categories L* N* Co) and as the
 * PostgreSQL index ([[:alnum:]] runs). So `IMG_2041.jpg` is img, 2041, jpg.
 */
const WORD = /[\p{L}\p{N}\p{Co}]+/gu;

/**
 * seed 2.1: q is the query text and `*` returns everything. Returns the words
 * every document must contain (the last one as a prefix), or null for "match
 * all": `*`, an empty q, or a q without any letter or digit.
 */
export function queryWords(q: string): string[] | null {
  if (q.trim() === '*') return null;
  // U+E000 marks the index's scope tokens (dialects/scope.ts); it is never part of a query word.
  const words = q.replaceAll(SCOPE_MARK, ' ').match(WORD) ?? [];
  if (words.length === 0) return null;
  if (words.length > MAX_QUERY_WORDS) {
    throw appError('VALIDATION_ERROR', `q has ${words.length} words; at most ${MAX_QUERY_WORDS} are searched`, { field: 'q' });
  }
  return words;
}
