import type { Predicate } from './bind.js';

/**
 * Words a document must contain for the filter to hold, when the filter
 * requires a tag by equality at its top level (`tags:=[summer] && ...`): the
 * tag's text is indexed as words too, so `summer` must be a word of the
 * document. A text index can then cut the candidates before any row is read
 * (SQLite, dialects/sqlite.ts); the filter itself is still applied in SQL, so
 * this only ever narrows to a superset of the answer.
 *
 * Returned as conditions, each a list of alternatives (a tag list is "any
 * of"), each alternative the words of one tag. Only ASCII tags are used, whose
 * words every tokenizer cuts alike.
 */
export type RequiredWords = readonly (readonly (readonly string[])[])[];

const ASCII = /^[\x20-\x7e]*$/;
const WORD = /[a-z0-9]+/g;

function tagAlternatives(p: Predicate): string[][] | null {
  if (p.type !== 'tags' || p.test !== 'equals' || p.negate) return null;
  const alternatives = p.values.map((v) => (ASCII.test(v) ? (v.match(WORD) ?? []) : []));
  return alternatives.every((words) => words.length > 0) ? alternatives : null;
}

export function requiredWords(p: Predicate | null): RequiredWords {
  if (!p) return [];
  const top = p.type === 'and' ? p.children : [p];
  return top.map(tagAlternatives).filter((a): a is string[][] => a !== null);
}
