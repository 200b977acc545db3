import type { DB } from '../../db/database.js';
import type { Alternatives, TextSearchDialect } from '../dialects/index.js';
import { closestTerms } from './candidates.js';
import { allowedTypos, type TypoOptions } from './options.js';

/**
 * The typo candidates of each query word (issue #27): the words of the term dictionary of the caller's workspaces
 * (search_terms, migration 0027) within the word's typo budget, read through the dialect (SQLite: by length;
 * PostgreSQL: nearest by pg_trgm's trigram distance) and measured here. Null when no word has any, so the caller
 * keeps the exact answer. The dictionary is per workspace, so another workspace's words are never candidates; a
 * candidate only finds documents the search itself lets through (its scope and the private-asset rule).
 */
export async function typoAlternatives(
  db: DB,
  dialect: TextSearchDialect,
  workspaceIds: readonly number[],
  words: readonly string[],
  options: TypoOptions,
): Promise<Alternatives | null> {
  const alternatives = await Promise.all(
    words.map(async (typed) => {
      const word = typed.toLowerCase();
      const typos = allowedTypos(word, options);
      if (typos === 0) return [];
      const { rows } = await dialect.nearTerms(workspaceIds, word, typos).execute(db);
      return closestTerms(word, typos, rows);
    }),
  );
  return alternatives.some((a) => a.length > 0) ? alternatives : null;
}
